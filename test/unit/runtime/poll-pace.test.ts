/** judgePollPace: the one judge both the poll limit (charges what is not kept) and the audit (counts what is fast) use. */
import { describe, expect, it } from 'vitest';
import { FAST_PACE_SHARE, judgePoll, judgePollPace, KEPT_PACE_SHARE, nextPollMark, PollPacing } from '../../../runtime/core/poll-pacing.js';

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
    pacing.answered('k', 0, 1_000, 'working');
    expect(pacing.kept('k', 0)).toBe(true); // the grace of a new status, used up
    pacing.answered('k', 0, 1_000, 'working');
    expect(pacing.kept('k', 899)).toBe(false);
    expect(pacing.kept('k', 900)).toBe(true);
  });
});

describe('judgePoll: the grace after a new status and after the end', () => {
  it('frees the poll right after a new working status, and the two right after the end, then paces again', () => {
    let mark = nextPollMark(undefined, 0, 1_000, 'working');
    expect(judgePoll(undefined, 0)).toBe('first');
    expect(judgePoll(mark, 1)).toBe('kept'); // right after the first answer
    mark = nextPollMark(mark, 1, 1_000, 'working');
    expect(judgePoll(mark, 2)).toBe('fast');
    mark = nextPollMark(mark, 2, 1_000, 'completed'); // the tasks/get that saw the end
    expect(judgePoll(mark, 3)).toBe('kept'); // tasks/result at once
    mark = nextPollMark(mark, 3, 1_000, 'completed');
    expect(judgePoll(mark, 4)).toBe('kept'); // the closing tasks/get of a 2025-11-25 requester
    mark = nextPollMark(mark, 4, 1_000, 'completed');
    expect(judgePoll(mark, 5)).toBe('fast'); // reading an ended task fast, again and again: paced
  });

  it('never calls fast a poll that finds a new status (the requester was told: a status push)', () => {
    const mark = nextPollMark(nextPollMark(undefined, 0, 1_000, 'working'), 1, 1_000, 'working');
    expect(judgePoll(mark, 2, 'working')).toBe('fast');
    expect(judgePoll(mark, 2, 'completed')).toBe('kept');
  });

  it('is the rule of both judges: PollPacing charges none of a TaskClient-like sequence', () => {
    const pacing = new PollPacing();
    pacing.answered('k', 0, 25, 'working'); // the create
    expect(pacing.kept('k', 1)).toBe(true);
    pacing.answered('k', 1, 25, 'completed'); // the tasks/get that saw the end
    expect(pacing.kept('k', 2)).toBe(true); // tasks/result
    pacing.answered('k', 2, 1_000, 'completed');
    expect(pacing.kept('k', 3)).toBe(true); // the closing tasks/get
    pacing.answered('k', 3, 1_000, 'completed');
    expect(pacing.kept('k', 4)).toBe(false);
  });
});
