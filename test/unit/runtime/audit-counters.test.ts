import { describe, expect, it } from 'vitest';
import { disabledSecurityReport, SuspicionCounters } from '../../../runtime/audit/index.js';
import { InvalidArgumentError } from '../../../runtime/index.js';

const a = { session: 'a', principal: null };
const b = { session: 'b', principal: 'bob' };

function counters(thresholds: ConstructorParameters<typeof SuspicionCounters>[0] = {}) {
  let clock = 1_000_000;
  const c = new SuspicionCounters(thresholds, () => clock);
  return { c, tick: (ms: number) => (clock += ms) };
}

describe('SuspicionCounters', () => {
  it('should flag a requester once when its failed look-ups in a window go above the threshold', () => {
    const { c, tick } = counters({ failedLookups: 20, windowMs: 60_000 });
    for (let i = 0; i < 20; i++) expect(c.failedLookup(a)).toBeNull();
    const flag = c.failedLookup(a);
    expect(flag).toEqual({ reason: 'failed-lookups', requester: { key: '\u0001a', ...a, peer: null }, count: 21, threshold: 20, windowMs: 60_000 });
    // Once per window, however many more.
    for (let i = 0; i < 50; i++) expect(c.failedLookup(a)).toBeNull();
    // Another requester is counted apart.
    expect(c.failedLookup(b)).toBeNull();
    tick(60_001);
    expect(c.failedLookup(a)).not.toBeNull(); // still far above: flagged again in the next window
    const report = c.report('n1');
    expect(report.totals).toMatchObject({ failedLookups: 73, flags: 2 });
    expect(report.top[0]).toMatchObject({ session: 'a', principal: null, failedLookups: 72, flags: 2, flagged: true });
    expect(report.top[1]).toMatchObject({ session: null, principal: 'bob', failedLookups: 1, flagged: false });
    expect(report.flagged).toBe(1);
  });

  it('should count over a sliding window, not reset at a window boundary', () => {
    const { c, tick } = counters({ failedLookups: 20, windowMs: 60_000 });
    tick(50_000);
    for (let i = 0; i < 15; i++) c.failedLookup(a); // late in the first window
    tick(15_000); // 5 s into the second window: most of the first still overlaps
    const flags = Array.from({ length: 8 }, () => c.failedLookup(a)).filter((f) => f !== null);
    expect(flags).toHaveLength(1);
    expect(flags[0]!.count).toBeGreaterThan(20);
  });

  it('should forget failures older than the window', () => {
    const { c, tick } = counters({ failedLookups: 20, windowMs: 60_000 });
    for (let i = 0; i < 20; i++) c.failedLookup(a);
    tick(130_000);
    for (let i = 0; i < 20; i++) expect(c.failedLookup(a)).toBeNull();
  });

  it('should count polls of one task sooner than half its poll interval, after the grace of a new status', () => {
    const { c, tick } = counters({ fastPolls: 2 });
    expect(c.poll(a, 't1', 'working', 1000)).toBeNull(); // first poll
    tick(100);
    expect(c.poll(a, 't1', 'working', 1000)).toBeNull(); // right after a new status (the first): grace
    tick(100);
    expect(c.poll(a, 't1', 'working', 1000)).toBeNull(); // fast #1
    expect(c.report('n').totals.fastPolls).toBe(1);
    tick(500);
    expect(c.poll(a, 't1', 'working', 1000)).toBeNull(); // half the interval: fine
    tick(500);
    expect(c.poll(a, 't1', 'completed', 1000)).toBeNull(); // new status
    tick(1);
    expect(c.poll(a, 't1', 'completed', 1000)).toBeNull(); // the get of a tasks/result right after: grace
    tick(1);
    expect(c.poll(a, 't1', 'completed', 1000)).toBeNull(); // the closing get a 2025-11-25 requester sends: grace too (the end gives two)
    expect(c.report('n').totals.fastPolls).toBe(1);
    tick(1);
    expect(c.poll(a, 't1', 'completed', 1000)).toBeNull(); // fast #2
    tick(1);
    expect(c.poll(a, 't1', 'completed', 1000)).toMatchObject({ reason: 'fast-polls', count: 3, threshold: 2 }); // fast #3
    // Another task of the same requester, and the same id of another requester, are their own.
    expect(c.poll(a, 't2', 'working', 1000)).toBeNull();
    expect(c.poll(b, 't1', 'working', 1000)).toBeNull();
    expect(c.report('n').top).toEqual([expect.objectContaining({ session: 'a', fastPolls: 3, flagged: true })]);
  });

  it('should judge a poll by the interval suggested at the previous poll, not at this one', () => {
    const { c, tick } = counters();
    c.poll(a, 't1', 'working', 25); // first poll, which suggested 25 ms
    c.poll(a, 't1', 'working', 25); // grace after a new status
    tick(20);
    c.poll(a, 't1', 'working', 1000); // 20 ms after a poll that suggested 25: not fast
    tick(400);
    c.poll(a, 't1', 'working', 1000); // 400 ms after one that suggested 1000: fast
    expect(c.report('n').totals.fastPolls).toBe(1);
  });

  it('should count limit refusals by limit', () => {
    const { c } = counters();
    c.limitRefused(a, 'pollsPerSecond');
    c.limitRefused(a, 'pollsPerSecond');
    c.limitRefused(b, 'createsPerSecond');
    const report = c.report('n');
    expect(report.limitRefusals).toEqual({ pollsPerSecond: 2, createsPerSecond: 1 });
    expect(report.totals.limitRefusals).toBe(3);
  });

  it('should keep at most maxTracked requesters and polled tasks, and totals of all', () => {
    const { c, tick } = counters({ maxTracked: 3, topRequesters: 2 });
    for (let i = 0; i < 10; i++) {
      tick(1);
      c.failedLookup({ session: `s${i}`, principal: null });
    }
    c.failedLookup({ session: 's9', principal: null });
    const report = c.report('n');
    expect(report.tracked).toBe(3);
    expect(report.totals.failedLookups).toBe(11);
    expect(report.top.map((r) => r.session)).toEqual(['s9', 's8']);
    for (let i = 0; i < 10; i++) c.poll(a, `t${i}`, 'working', 1000);
    // t0 was forgotten: its next poll is a first poll again and the one after is its grace; had
    // t0 been kept, the second would be fast.
    c.poll(a, 't0', 'working', 1000);
    c.poll(a, 't0', 'working', 1000);
    expect(c.report('n').totals.fastPolls).toBe(0);
    c.poll(a, 't9', 'working', 1000);
    c.poll(a, 't9', 'working', 1000);
    expect(c.report('n').totals.fastPolls).toBe(1);
  });

  it('should forget requesters idle for ten windows that were never flagged', () => {
    const { c, tick } = counters({ windowMs: 1_000, failedLookups: 1 });
    c.failedLookup(a);
    c.failedLookup(b);
    c.failedLookup(b); // flagged
    tick(10_001);
    const report = c.report('n');
    expect(report.top.map((r) => r.principal)).toEqual(['bob']);
    expect(report.totals.failedLookups).toBe(3);
  });

  it('should refuse thresholds that are not positive numbers', () => {
    expect(() => new SuspicionCounters({ failedLookups: 0 })).toThrow(InvalidArgumentError);
    expect(() => new SuspicionCounters({ windowMs: Number.NaN })).toThrow(/windowMs/);
  });

  it('should report zeros, disabled, without audit', () => {
    expect(disabledSecurityReport('local')).toMatchObject({ enabled: false, node: 'local', totals: { failedLookups: 0, fastPolls: 0 }, top: [] });
  });
});
