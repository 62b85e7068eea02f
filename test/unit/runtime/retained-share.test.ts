/**
 * The share rule of `maxRetainedBytesPerRequester` (issue 42, item 5): a requester's default share
 * is a quarter of the node's `maxRetainedBytes` (following it when it is raised, lowered or off),
 * and the bytes an ended task keeps are counted per requester, from its end until its removal.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits, shareOf } from '../../../runtime/limits.js';
import { KeptBytes, keptBytesOf } from '../../../runtime/core/kept-bytes.js';
import { LIMIT_FLAGS, TaskLimitError } from '../../../runtime/errors.js';
import { toJsonRpcError } from '../../../adapters/wire/wire-errors.js';

describe('maxRetainedBytesPerRequester', () => {
  it('should default to a quarter of maxRetainedBytes, following it', () => {
    expect(resolveLimits({}).maxRetainedBytesPerRequester).toBe(DEFAULT_LIMITS.maxRetainedBytes! / 4);
    expect(resolveLimits({ maxRetainedBytes: 1_000_000 }).maxRetainedBytesPerRequester).toBe(250_000);
    expect(resolveLimits({ maxRetainedBytes: null }).maxRetainedBytesPerRequester).toBeNull();
    expect(resolveLimits({ maxRetainedBytes: 3 }).maxRetainedBytesPerRequester).toBe(1);
    expect(shareOf(null)).toBeNull();
  });

  it('should take a share given (or off) over the default, and refuse a bad one', () => {
    expect(resolveLimits({ maxRetainedBytes: 1_000_000, maxRetainedBytesPerRequester: 10 }).maxRetainedBytesPerRequester).toBe(10);
    expect(resolveLimits({ maxRetainedBytesPerRequester: null }).maxRetainedBytesPerRequester).toBeNull();
    expect(() => resolveLimits({ maxRetainedBytesPerRequester: -1 })).toThrow(/maxRetainedBytesPerRequester/);
    // An embedding runtime that asks for no limits has none.
    expect(resolveLimits(undefined).maxRetainedBytesPerRequester).toBeNull();
  });

  it('should name its flag in the refusal, mapped to -32029 with retryAfterMs in data', () => {
    expect(LIMIT_FLAGS['maxRetainedBytesPerRequester']).toBe('--max-retained-bytes-per-requester');
    const error = toJsonRpcError(new TaskLimitError('maxRetainedBytesPerRequester', '10 bytes per requester', null));
    expect(error.code).toBe(-32029);
    expect(error.message).toContain('maxRetainedBytesPerRequester');
    expect(error.message).toContain('--max-retained-bytes-per-requester');
    expect(error.data).toEqual({ limit: 'maxRetainedBytesPerRequester', retryAfterMs: null });
  });
});

describe('KeptBytes', () => {
  const context = { statusMessage: 'done', error: null };

  it('should count what an ended task keeps: its record, outcome and messages, no outcome when cancelled', () => {
    expect(keptBytesOf({ status: 'completed', context }, 2_000, 1_024)).toBe(1_024 + 2_000 + 4);
    expect(keptBytesOf({ status: 'cancelled', context }, 2_000, 1_024)).toBe(1_024 + 4);
    expect(keptBytesOf({ status: 'failed', context: { ...context, error: 'boom' } }, 10, 0)).toBe(10 + 4 + 4);
  });

  it('should sum per requester and in all, and free a requester’s share when its tasks go', () => {
    const kept = new KeptBytes();
    kept.add('a/1', 'a', 100);
    kept.add('a/2', 'a', 50);
    kept.add('b/1', 'b', 7);
    expect([kept.of('a'), kept.of('b'), kept.total]).toEqual([150, 7, 157]);
    // Counted again (an end heard twice): replaced, not added.
    kept.add('a/2', 'a', 50);
    expect(kept.of('a')).toBe(150);
    kept.remove('a/1');
    kept.remove('a/unknown');
    expect([kept.of('a'), kept.total]).toEqual([50, 57]);
    kept.remove('a/2');
    expect([kept.of('a'), kept.size]).toEqual([0, 1]);
  });

  it('should forget tasks past their retention, and the first counted past a cap', () => {
    const kept = new KeptBytes();
    kept.add('a/1', 'a', 10, 1_000);
    kept.add('a/2', 'a', 20, 5_000);
    kept.add('a/3', 'a', 30);
    kept.prune(1_000);
    expect(kept.of('a')).toBe(50);
    kept.prune(2_000, 1);
    expect(kept.of('a')).toBe(30);
  });
});
