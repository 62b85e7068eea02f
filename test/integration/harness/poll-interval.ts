/**
 * The suggested polling interval a task reports (SEP-1686 `pollFrequency`, 2025-11-25
 * `pollInterval`), checked against the runtime's rule: a running task suggests
 * `clamp(age, 25 ms, configured)`, a terminal one the configured interval.
 */
import { expect } from 'vitest';
import { MIN_POLL_INTERVAL_MS } from '../../../runtime/index.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);

/**
 * Asserts that `value` is what a task with `status` may suggest under `configured`. With the
 * task's creation time (2025-11-25's `createdAt`), it also bounds the value by the task's age now.
 *
 * @example
 * ```ts
 * expectPollInterval(task['pollInterval'], 1000, { status: 'working', createdAt: Date.parse(task['createdAt']) });
 * ```
 */
export function expectPollInterval(value: unknown, configured: number, task: { status: unknown; createdAt?: number }): void {
  expect(typeof value, `poll interval ${String(value)}`).toBe('number');
  const v = value as number;
  if (TERMINAL.has(String(task.status))) {
    expect(v, 'a terminal task suggests the configured interval').toBe(configured);
    return;
  }
  const floor = Math.min(MIN_POLL_INTERVAL_MS, configured);
  expect(v).toBeGreaterThanOrEqual(floor);
  expect(v).toBeLessThanOrEqual(configured);
  // Timestamps on the wire are whole milliseconds; allow for that rounding.
  if (task.createdAt !== undefined) expect(v).toBeLessThanOrEqual(Math.max(floor, Math.min(configured, Date.now() - task.createdAt + 2)));
}
