/**
 * The suggested polling interval a task reports (SEP-1686 `pollFrequency`, 2025-11-25
 * `pollInterval`): the configured interval.
 */
import { expect } from 'vitest';

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
  // The configured interval, whatever the task's status and age (an age-adaptive one pushed
  // requesters that followed it past their poll-rate limit).
  void TERMINAL;
  void task;
  expect(v).toBe(configured);
}
