/**
 * Retry pacing of push deliveries: exponential backoff with jitter, so a receiver that is down
 * is not hammered, and the retries of many events that failed together (a receiver outage) spread
 * out instead of arriving in waves.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Delivery settings shared by every push queue.
 *
 * @example
 * ```ts
 * const queue = new MemoryPushQueue({ allow, maxAttempts: 5, timeoutMs: 5_000 });
 * ```
 */
export interface PushOptions {
  /** Attempts per event at most (the first included). @default 8 */
  readonly maxAttempts?: number;
  /** Delay before the second attempt, in ms; doubled for each later one. @default 500 */
  readonly baseDelayMs?: number;
  /** Longest delay between two attempts, in ms. @default 60000 */
  readonly maxDelayMs?: number;
  /** How long one request may take (connect to end of response headers), in ms. @default 10000 */
  readonly timeoutMs?: number;
  /** How long an event id is remembered for dedup after it was queued, in ms. @default 120000 */
  readonly duplicateWindowMs?: number;
  /** How long attempt records are kept for inspection, in ms. @default 3600000 */
  readonly attemptsTtlMs?: number;
}

/**
 * {@link PushOptions} with every default applied.
 *
 * @example
 * ```ts
 * const options: ResolvedPushOptions = resolvePushOptions({ maxAttempts: 3 });
 * ```
 */
export type ResolvedPushOptions = Required<PushOptions>;

/** Share of the delay added or removed at random. */
const JITTER = 0.2;

/**
 * Applies defaults to {@link PushOptions} and checks them.
 *
 * @param options - the caller's options
 * @throws {@link InvalidArgumentError} when a value is not a positive number (`maxAttempts` a
 *   positive integer)
 * @example
 * ```ts
 * resolvePushOptions({ maxAttempts: 3 }).baseDelayMs; // 500
 * ```
 */
export function resolvePushOptions(options: PushOptions = {}): ResolvedPushOptions {
  const resolved: ResolvedPushOptions = {
    maxAttempts: options.maxAttempts ?? 8,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
    attemptsTtlMs: options.attemptsTtlMs ?? 3_600_000,
  };
  if (!Number.isSafeInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) {
    throw new InvalidArgumentError(`maxAttempts must be a positive integer, got ${resolved.maxAttempts}`);
  }
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got ${value}`);
  }
  return resolved;
}

const DEFAULTS = resolvePushOptions();

/**
 * How long to wait after failed attempt number `attempt` (1-based) before the next one:
 * `baseDelayMs × 2^(attempt-1)`, ±20 % at random, never more than `maxDelayMs`.
 *
 * @param attempt - the attempt that just failed, 1 for the first
 * @param options - base and maximum delay
 * @param random - a number in [0, 1), for tests
 * @returns the delay in whole ms
 * @example
 * ```ts
 * retryDelay(1); // 400..600
 * retryDelay(3); // 1600..2400
 * retryDelay(20); // 48000..60000
 * ```
 */
export function retryDelay(
  attempt: number,
  options: Pick<ResolvedPushOptions, 'baseDelayMs' | 'maxDelayMs'> = DEFAULTS,
  random: () => number = Math.random,
): number {
  // Capping the exponent first keeps 2^n finite for any attempt count.
  const exponent = Math.min(Math.max(0, Math.floor(attempt) - 1), 52);
  const delay = Math.min(options.baseDelayMs * 2 ** exponent, options.maxDelayMs);
  const jittered = delay * (1 + JITTER * (2 * random() - 1));
  return Math.round(Math.min(jittered, options.maxDelayMs));
}
