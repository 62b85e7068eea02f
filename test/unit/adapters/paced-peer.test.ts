import { describe, expect, it } from 'vitest';
import { pacedPeer, retryAfterOf } from '../../../adapters/wire/task-client.retry.js';
import type { RequesterPeer } from '../../../adapters/wire/task-client.wire.js';
import { z } from 'zod';

/** A peer that refuses the first `refusals` requests with `error`, then answers. */
function refusing(refusals: number, error: Error): RequesterPeer & { calls: number } {
  const peer = {
    calls: 0,
    request(): Promise<unknown> {
      peer.calls++;
      return peer.calls <= refusals ? Promise.reject(error) : Promise.resolve({ ok: true });
    },
  };
  return peer;
}

const limited = (retryAfterMs: unknown, code = -32029) => Object.assign(new Error('Limit exceeded'), { code, data: { limit: 'createsPerSecond', retryAfterMs } });
const ask = (peer: RequesterPeer, signal?: AbortSignal) => peer.request({ method: 'tools/call', params: {} }, z.unknown(), signal ? { signal } : undefined);

describe('pacedPeer: the requester waits out what the server asks', () => {
  it('sends a -32029 or -32030 with retryAfterMs again after at least that wait', async () => {
    for (const code of [-32029, -32030]) {
      const inner = refusing(2, limited(20, code));
      const started = performance.now();
      await expect(ask(pacedPeer(inner), undefined)).resolves.toEqual({ ok: true });
      expect(inner.calls).toBe(3);
      expect(performance.now() - started).toBeGreaterThanOrEqual(20 + 40 - 2); // 20, then doubled
    }
  });

  it('gives the refusal to the caller past the retries, for a wait it does not name or one over the cap, and for other codes', async () => {
    const over = refusing(10, limited(1));
    await expect(ask(pacedPeer(over, { retries: 2 }))).rejects.toThrow('Limit exceeded');
    expect(over.calls).toBe(3);
    for (const error of [limited(null), limited(60_000), limited(5, -32602), new Error('fetch failed')]) {
      const inner = refusing(1, error);
      await expect(ask(pacedPeer(inner))).rejects.toBe(error);
      expect(inner.calls).toBe(1);
    }
  });

  it('stops waiting when the call is aborted', async () => {
    const inner = refusing(1, limited(10_000));
    const controller = new AbortController();
    const asked = ask(pacedPeer(inner), controller.signal);
    controller.abort(new Error('caller gave up'));
    await expect(asked).rejects.toThrow('caller gave up');
    expect(inner.calls).toBe(1);
  });

  it('reads the wait of either SDK line and of the raw 2026-07-28 dispatch', () => {
    expect(retryAfterOf({ code: -32030, data: { reason: 'shutting-down', retryAfterMs: 1000 } })).toBe(1000);
    expect(retryAfterOf({ code: -32029 })).toBeNull();
    expect(retryAfterOf('-32029')).toBeNull();
    expect(retryAfterOf({ code: -32029, data: { retryAfterMs: Number.NaN } })).toBeNull();
  });
});
