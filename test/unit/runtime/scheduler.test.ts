import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineScheduler } from '../../../runtime/index.js';

// Fake timers move Date.now (the scheduler's default clock) and its setTimeout together, so each
// test can stand just before a deadline and assert nothing fired, then step onto it.
const T0 = 1_000_000;

describe('DeadlineScheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('should fire keys in deadline order, once each, at their deadline and not before', () => {
    const fired: string[] = [];
    const s = new DeadlineScheduler((k) => fired.push(k));
    s.schedule('c', T0 + 30);
    s.schedule('a', T0 + 5);
    s.schedule('b', T0 + 15);
    vi.advanceTimersByTime(4);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(9);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(16);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(s.size).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual(['a', 'b', 'c']);
    s.dispose();
  });

  it('should honour the latest deadline of a key and forget cancelled keys', () => {
    const fired: string[] = [];
    const s = new DeadlineScheduler((k) => fired.push(k));
    // 'first' keeps the old entries off the top of the heap, so they surface only when due.
    s.schedule('first', T0 + 5);
    s.schedule('moved', T0 + 5);
    s.schedule('moved', T0 + 40);
    s.schedule('gone', T0 + 5);
    s.cancel('gone');
    expect(s.size).toBe(2);
    // Past the old deadlines, one tick before the new one.
    vi.advanceTimersByTime(39);
    expect(fired).toEqual(['first']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['first', 'moved']);
    s.dispose();
  });

  it('should fire a deadline moved earlier at the earlier time', () => {
    const fired: string[] = [];
    const s = new DeadlineScheduler((k) => fired.push(k));
    s.schedule('k', T0 + 1_000);
    s.schedule('k', T0 + 10);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual(['k']);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual(['k']);
    s.dispose();
  });
});
