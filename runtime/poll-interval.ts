/**
 * The polling interval a task suggests to its requester, which adapts to the task's age: a young
 * task suggests polling soon, since most work is short, and the suggestion grows with the task
 * until it reaches the configured interval (`pollFrequency`, SEP-1686 `pollFrequency`, 2025-11-25
 * `pollInterval`, the extension's `pollIntervalMs`).
 *
 * The rule: `clamp(age, MIN_POLL_INTERVAL_MS, configured)`, where `age` is the time since the task
 * was created. A requester that follows it polls at about 25, 50, 100, 200 … ms of age, so it sees
 * a short task end within twice its duration (at least 25 ms), and a long task, once older than
 * the configured interval, is polled exactly as before: never harder. A terminal task suggests the
 * configured interval (there is nothing more to wait for). Every dialect renders this value and
 * the audit's fast-poll count compares with it, so what is suggested and what is judged agree.
 *
 * @module
 */
import { isTerminalStatus, type TaskStatus } from '../machines/index.js';

/** The shortest interval a task ever suggests, ms (or the configured one, when that is shorter). */
export const MIN_POLL_INTERVAL_MS = 25;

/** What {@link suggestedPollInterval} reads of a task. */
export interface PollTiming {
  readonly status: TaskStatus;
  /** The configured interval, ms. */
  readonly pollFrequency: number;
  /** Creation time, epoch ms. */
  readonly createdAt: number;
}

/**
 * The interval, in ms, that `task` suggests at time `now`.
 *
 * @param task - the task (its status, configured interval and creation time)
 * @param now - the time of the read, epoch ms
 * @example
 * ```ts
 * suggestedPollInterval({ status: 'working', pollFrequency: 1000, createdAt: 0 }, 10);    // 25
 * suggestedPollInterval({ status: 'working', pollFrequency: 1000, createdAt: 0 }, 300);   // 300
 * suggestedPollInterval({ status: 'working', pollFrequency: 1000, createdAt: 0 }, 5_000); // 1000
 * ```
 */
export function suggestedPollInterval(task: PollTiming, now: number): number {
  const configured = task.pollFrequency;
  if (isTerminalStatus(task.status)) return configured;
  const age = Math.max(0, now - task.createdAt);
  return Math.min(configured, Math.max(MIN_POLL_INTERVAL_MS, Math.round(age)));
}
