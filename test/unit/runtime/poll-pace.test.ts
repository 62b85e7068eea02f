/** judgePollPace: the one judge both the poll limit (charges what is not kept) and the audit (counts what is fast) use. */
import { describe, expect, it } from 'vitest';
import { FAST_PACE_SHARE, judgePollPace, KEPT_PACE_SHARE, PollPacing } from '../../../runtime/core/poll-pacing.js';

describe('judgePollPace', () => {
  it('calls a poll kept from 90 % of the suggested interval, fast under half of it, early between', () => {
    expect(KEPT_PACE_SHARE).toBe(0.9);
    expect(FAST_PACE_SHARE).toBe(0.5);
    expect(judgePollPace(1_000, 1_000, 2_000)).toBe('kept');
    expect(judgePollPace(1_000, 1_000, 1_900)).toBe('kept');
    expect(judgePollPace(1_000, 1_000, 1_899)).toBe('early');
    expect(judgePollPace(1_000, 1_000, 1_500)).toBe('early');
    expect(judgePollPace(1_000, 1_000, 1_499)).toBe('fast');
  });

  it('is what PollPacing frees a poll by', () => {
    const pacing = new PollPacing();
    pacing.answered('k', 0, 1_000);
    expect(pacing.kept('k', 899)).toBe(false);
    expect(pacing.kept('k', 900)).toBe(true);
  });
});
