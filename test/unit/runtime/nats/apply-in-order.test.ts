import { describe, expect, it } from 'vitest';
import { applyInOrder } from '../../../../runtime/backends/nats/apply-in-order.js';

const ev = (seq: number, tag = '') => ({ seq, tag });
const seqs = (list: readonly { seq: number }[]) => list.map((e) => e.seq);

describe('applyInOrder', () => {
  it('should apply a contiguous run after lastSeq', () => {
    const r = applyInOrder(0, [ev(1), ev(2), ev(3)]);
    expect(seqs(r.apply)).toEqual([1, 2, 3]);
    expect(r.skipped).toEqual([]);
    expect(r.pending).toEqual([]);
    expect(r.gap).toBeNull();
    expect(r.lastSeq).toBe(3);
  });

  it('should sort out-of-order arrivals (a failover delivers new events first)', () => {
    const r = applyInOrder(2, [ev(5), ev(3), ev(4)]);
    expect(seqs(r.apply)).toEqual([3, 4, 5]);
    expect(r.lastSeq).toBe(5);
  });

  it('should skip repeats at or below lastSeq and second copies in the batch', () => {
    const r = applyInOrder(2, [ev(1), ev(2), ev(3, 'a'), ev(3, 'b')]);
    expect(seqs(r.apply)).toEqual([3]);
    expect(r.apply[0]?.tag).toBe('a');
    expect(seqs(r.skipped)).toEqual([1, 2, 3]);
    expect(r.lastSeq).toBe(3);
  });

  it('should stop at a gap, report it and keep later events pending', () => {
    const r = applyInOrder(1, [ev(2), ev(5), ev(7), ev(5)]);
    expect(seqs(r.apply)).toEqual([2]);
    expect(r.gap).toEqual({ from: 3, to: 4 });
    expect(seqs(r.pending)).toEqual([5, 7]);
    expect(seqs(r.skipped)).toEqual([5]);
    expect(r.lastSeq).toBe(2);
  });

  it('should apply the pending events once the gap is filled', () => {
    const first = applyInOrder(0, [ev(1), ev(3)]);
    expect(first.gap).toEqual({ from: 2, to: 2 });
    const second = applyInOrder(first.lastSeq, [...first.pending, ev(2)]);
    expect(seqs(second.apply)).toEqual([2, 3]);
    expect(second.gap).toBeNull();
    expect(second.lastSeq).toBe(3);
  });

  it('should report a gap when nothing is next', () => {
    const r = applyInOrder(4, [ev(9)]);
    expect(r.apply).toEqual([]);
    expect(r.gap).toEqual({ from: 5, to: 8 });
    expect(r.lastSeq).toBe(4);
  });

  it('should return nothing for an empty batch', () => {
    expect(applyInOrder(7, [])).toEqual({ apply: [], skipped: [], pending: [], gap: null, lastSeq: 7 });
  });

  it('should not modify its input', () => {
    const input = [ev(2), ev(1)];
    applyInOrder(0, input);
    expect(seqs(input)).toEqual([2, 1]);
  });
});
