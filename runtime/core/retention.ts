/**
 * How long an ended task is kept, and what of it: one rule for every backend. A task is kept for
 * its keepAlive from its end (`null`: until deleted); while it runs it never expires. Only a
 * completed task, or a failed one whose work kept a result, has a result to return.
 *
 * @module
 */
import { isTerminalStatus, type TaskStatus } from '../../machines/index.js';

/**
 * When a task in `status` expires: its end plus its keepAlive, or `null` (running, or kept until deleted).
 *
 * @example
 * ```ts
 * expiresAtOf('completed', { keepAlive: 60_000, updatedAt: 1_000 }); // 61_000
 * expiresAtOf('working', { keepAlive: 60_000, updatedAt: 1_000 }); // null
 * ```
 */
export function expiresAtOf(status: TaskStatus, context: { readonly keepAlive: number | null; readonly updatedAt: number }): number | null {
  return isTerminalStatus(status) && context.keepAlive !== null ? context.updatedAt + context.keepAlive : null;
}

/**
 * Whether a task in `status` may keep a result to return (`completed`, or `failed` with the result its work kept).
 *
 * @example
 * ```ts
 * mayKeepResult('cancelled'); // false
 * ```
 */
export function mayKeepResult(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed';
}
