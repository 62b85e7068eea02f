/**
 * The polling interval a task suggests on the wire (SEP-1686 `pollFrequency`, 2025-11-25
 * `pollInterval`), checked against the runtime's rule, restated here so that the wire is checked
 * against the rule rather than against the code that implements it:
 *
 *     terminal ? configured : min(configured, max(25, round(age at the read)))
 *
 * A test rarely knows the age exactly, so the check takes the bounds it does know: when the task
 * was created (the 2025-11-25 `createdAt`, or the SEP-1686 create request's send and reply
 * times) and when the read was sent; the reply arrived before now. Server and tests share the
 * host's clock.
 */
import { expect } from 'vitest';

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);
/** Wire timestamps are whole milliseconds, and the rule rounds the age. */
const SLACK_MS = 1;

/** What a test knows of the read. */
export interface PollIntervalRead {
  /** The status the read returned (in the wire's own terms). */
  readonly status: unknown;
  /** When the task was created, epoch ms: exact, or `[earliest, latest]`. Unknown: any age. */
  readonly created?: number | readonly [number, number];
  /** When the read was sent, epoch ms. Unknown: the read may have come right after the creation. */
  readonly sentAt?: number;
}

/** The interval the rule gives a live task of age `age` under `configured`. */
function ruleAt(age: number, configured: number): number {
  return Math.min(configured, Math.max(25, Math.round(age)));
}

/**
 * Asserts that `value` is what the rule gives a task under `configured`, for any age the read
 * may have seen.
 *
 * @example
 * ```ts
 * const sentAt = Date.now();
 * const task = await rawGet(client, taskId);
 * expectPollInterval(task['pollInterval'], 1000, { status: task['status'], created: Date.parse(task['createdAt']), sentAt });
 * ```
 */
export function expectPollInterval(value: unknown, configured: number, read: PollIntervalRead): void {
  expect(typeof value, `poll interval ${String(value)}`).toBe('number');
  const v = value as number;
  if (TERMINAL.has(String(read.status))) {
    expect(v, 'a terminal task suggests the configured interval').toBe(configured);
    return;
  }
  const [earliest, latest] = read.created === undefined ? [-Infinity, Infinity] : typeof read.created === 'number' ? [read.created, read.created] : read.created;
  const youngest = read.sentAt === undefined || latest === Infinity ? 0 : read.sentAt - latest - SLACK_MS;
  const oldest = Date.now() - earliest + SLACK_MS;
  const [low, high] = [ruleAt(youngest, configured), ruleAt(oldest, configured)];
  expect(v, `a task between ${Math.max(0, youngest)} and ${oldest} ms old suggests ${low}..${high} ms`).toBeGreaterThanOrEqual(low);
  expect(v, `a task between ${Math.max(0, youngest)} and ${oldest} ms old suggests ${low}..${high} ms`).toBeLessThanOrEqual(high);
}
