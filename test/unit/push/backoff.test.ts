import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../runtime/errors.js';
import { resolvePushOptions, retryDelay } from '../../../runtime/push/backoff.js';

describe('resolvePushOptions', () => {
  it('should apply the documented defaults', () => {
    expect(resolvePushOptions()).toEqual({
      maxAttempts: 8,
      baseDelayMs: 500,
      maxDelayMs: 60_000,
      timeoutMs: 10_000,
      duplicateWindowMs: 120_000,
      attemptsTtlMs: 3_600_000,
    });
    expect(resolvePushOptions({ maxAttempts: 3 }).maxAttempts).toBe(3);
  });

  it('should refuse values out of range', () => {
    expect(() => resolvePushOptions({ maxAttempts: 0 })).toThrow(InvalidArgumentError);
    expect(() => resolvePushOptions({ maxAttempts: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => resolvePushOptions({ baseDelayMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => resolvePushOptions({ timeoutMs: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => resolvePushOptions({ maxDelayMs: Infinity })).toThrow(InvalidArgumentError);
  });
});

describe('retryDelay', () => {
  it('should double from 500 ms, with the jitter at its extremes and centre', () => {
    expect(retryDelay(1, undefined, () => 0.5)).toBe(500);
    expect(retryDelay(2, undefined, () => 0.5)).toBe(1_000);
    expect(retryDelay(3, undefined, () => 0.5)).toBe(2_000);
    expect(retryDelay(1, undefined, () => 0)).toBe(400);
    expect(retryDelay(1, undefined, () => 0.999_999)).toBe(600);
  });

  it('should never exceed the cap, however many attempts', () => {
    expect(retryDelay(8, undefined, () => 0.5)).toBe(60_000); // 500 × 128 = 64 s, capped
    expect(retryDelay(8, undefined, () => 0)).toBe(48_000);
    expect(retryDelay(10_000, undefined, () => 0.999_999)).toBe(60_000);
  });

  it('should stay within ±20 % of the capped exponential delay for any attempt and options', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseDelayMs, maxDelayMs, r) => {
          const nominal = Math.min(baseDelayMs * 2 ** (attempt - 1), maxDelayMs);
          const delay = retryDelay(attempt, { baseDelayMs, maxDelayMs }, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * 0.8));
          expect(delay).toBeLessThanOrEqual(Math.ceil(Math.min(nominal * 1.2, maxDelayMs)));
        },
      ),
    );
  });

  it('should spread delays with the default random source', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelay(4)));
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(3_200);
      expect(d).toBeLessThanOrEqual(4_800);
    }
    expect(delays.size).toBeGreaterThan(1);
  });
});
