import { describe, expect, it } from 'vitest';
import { MIN_POLL_INTERVAL_MS, suggestedPollInterval } from '../../../runtime/index.js';

const at = (status: 'working' | 'input_required' | 'completed' | 'failed', pollFrequency = 1000) => ({ status, pollFrequency, createdAt: 10_000 });

describe('suggestedPollInterval', () => {
  it('should suggest the floor to a new task, then its age, up to the configured interval', () => {
    expect(suggestedPollInterval(at('working'), 10_000)).toBe(MIN_POLL_INTERVAL_MS);
    expect(suggestedPollInterval(at('working'), 10_010)).toBe(MIN_POLL_INTERVAL_MS);
    expect(suggestedPollInterval(at('working'), 10_300)).toBe(300);
    expect(suggestedPollInterval(at('input_required'), 10_640)).toBe(640);
    expect(suggestedPollInterval(at('working'), 11_000)).toBe(1000);
    expect(suggestedPollInterval(at('working'), 99_000)).toBe(1000);
  });

  it('should never suggest more than the configured interval, nor less than it when that is below the floor', () => {
    expect(suggestedPollInterval(at('working', 10), 10_000)).toBe(10);
    expect(suggestedPollInterval(at('working', 100), 10_500)).toBe(100);
  });

  it('should suggest the configured interval once the task is terminal, and survive a clock behind creation', () => {
    expect(suggestedPollInterval(at('completed'), 10_001)).toBe(1000);
    expect(suggestedPollInterval(at('failed'), 10_001)).toBe(1000);
    expect(suggestedPollInterval(at('working'), 9_000)).toBe(MIN_POLL_INTERVAL_MS);
  });

  it('should let a requester that follows it poll a long task no more often than the configured interval', () => {
    // Follow the suggestion from creation for 60 s: the doubling phase adds a handful of polls.
    let now = 10_000;
    const polls: number[] = [];
    while (now < 70_000) {
      polls.push(now);
      now += suggestedPollInterval(at('working'), now);
    }
    const late = polls.filter((p) => p > 11_000);
    for (let i = 1; i < late.length; i++) expect(late[i]! - late[i - 1]!).toBe(1000);
    expect(polls.length).toBeLessThanOrEqual(60 + 7);
  });
});
