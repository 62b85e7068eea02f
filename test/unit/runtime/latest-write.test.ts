/**
 * LatestWrite: one write in flight; values given meanwhile replace each other, and the last one
 * given is always written (a run's final progress report is never lost to coalescing).
 */
import { describe, expect, it } from 'vitest';
import { LatestWrite } from '../../../runtime/backends/nats/latest-write.js';

function deferredSender(): { sent: number[]; inFlight: () => number; settleNext: (ok?: boolean) => Promise<void>; send: (v: number) => Promise<void> } {
  const sent: number[] = [];
  const waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    sent,
    inFlight: () => maxInFlight,
    send: (v) => {
      sent.push(v);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject })).finally(() => {
        inFlight -= 1;
      });
    },
    settleNext: async (ok = true) => {
      const next = waiting.shift()!;
      if (ok) next.resolve();
      else next.reject(new Error('conflict'));
      // Lets the finally and the next write run.
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('LatestWrite', () => {
  it('should keep one write in flight, coalesce what comes meanwhile, and write the last value', async () => {
    const sender = deferredSender();
    const latest = new LatestWrite(sender.send);
    for (let i = 1; i <= 100; i++) latest.write(i);
    expect(sender.sent).toEqual([1]);
    await sender.settleNext();
    expect(sender.sent).toEqual([1, 100]);
    latest.write(101);
    latest.write(102);
    await sender.settleNext(false); // a failed write does not stop the next
    expect(sender.sent).toEqual([1, 100, 102]);
    await sender.settleNext();
    expect(sender.inFlight()).toBe(1);
    latest.write(103);
    expect(sender.sent).toEqual([1, 100, 102, 103]);
  });

  it('should be idle at once with nothing in flight, else once the last value given is written', async () => {
    const sender = deferredSender();
    const latest = new LatestWrite(sender.send);
    let idle = false;
    await latest.idle();
    latest.write(1);
    latest.write(2);
    void latest.idle().then(() => (idle = true));
    await sender.settleNext(false); // 1 failed: 2, given meanwhile, is written next
    expect([sender.sent, idle]).toEqual([[1, 2], false]);
    latest.write(3);
    await sender.settleNext();
    expect([sender.sent, idle]).toEqual([[1, 2, 3], false]);
    await sender.settleNext();
    expect(idle).toBe(true);
  });
});
