/**
 * Events of the task lifecycle machine and their creator functions. Every event carries `at`
 * (epoch ms) so that timestamps enter the machine as data and the machine stays pure.
 *
 * @module
 */
import type { HandlerPosition, TaskProgress, TaskStatus } from './task.types.js';

/** Handler began working (submitted → working). */
export interface TaskStartEvent { readonly type: 'task.start'; readonly at: number }
/** An input request (elicitation, sampling) was sent for the task. */
export interface TaskInputRequestEvent { readonly type: 'task.input.request'; readonly requestId: string; readonly at: number }
/** The requester answered one pending input request. */
export interface TaskInputResponseEvent { readonly type: 'task.input.response'; readonly requestId: string; readonly at: number }
/** Human-readable progress, no status change. */
export interface TaskStatusMessageEvent { readonly type: 'task.message'; readonly message: string; readonly at: number }
/** The work finished with a result stored under `resultRef`. */
export interface TaskCompleteEvent { readonly type: 'task.complete'; readonly resultRef: string; readonly at: number }
/** The work failed. */
export interface TaskFailEvent { readonly type: 'task.fail'; readonly error: string; readonly at: number }
/** The requester cancelled the task. */
export interface TaskCancelEvent { readonly type: 'task.cancel'; readonly reason: string | null; readonly at: number }
/** The receiver lost track of the outcome (e.g. the worker died): terminal `unknown`. */
export interface TaskLoseEvent { readonly type: 'task.lose'; readonly error: string; readonly at: number }
/** A subtask of the task was started, or moved to `status` (no status change of the task itself). */
export interface TaskChildEvent { readonly type: 'task.child'; readonly childId: string; readonly status: TaskStatus; readonly at: number }
/** The work published an intermediate result (no status change). */
export interface TaskPartialEvent { readonly type: 'task.partial'; readonly content: unknown; readonly at: number }

/**
 * The work reported progress (no status change). Taken only when `progress` is more than the last
 * report's (see {@link advancesProgress}); a `message` is also the task's status message.
 */
export interface TaskProgressEvent extends TaskProgress {
  readonly type: 'task.progress';
  /** When it was reported, epoch ms. */
  readonly at: number;
}

/**
 * The task's handler machine entered a state (no status change): where it is now, for operators
 * on any node. Reported by `machineHandler`; other handlers never send it.
 */
export interface TaskHandlerEvent {
  readonly type: 'task.handler';
  readonly position: HandlerPosition;
  /** When it was reported, epoch ms. */
  readonly at: number;
}

/** Every event the task machine accepts from outside. */
export type TaskEvent =
  | TaskStartEvent
  | TaskInputRequestEvent
  | TaskInputResponseEvent
  | TaskStatusMessageEvent
  | TaskCompleteEvent
  | TaskFailEvent
  | TaskCancelEvent
  | TaskLoseEvent
  | TaskChildEvent
  | TaskPartialEvent
  | TaskProgressEvent
  | TaskHandlerEvent;

/**
 * The `type` of every task event, for iteration in tests and tools.
 *
 * @example
 * ```ts
 * for (const type of TASK_EVENT_TYPES) console.log(type);
 * ```
 */
export const TASK_EVENT_TYPES = [
  'task.start',
  'task.input.request',
  'task.input.response',
  'task.message',
  'task.complete',
  'task.fail',
  'task.cancel',
  'task.lose',
  'task.child',
  'task.partial',
  'task.progress',
  'task.handler',
] as const satisfies readonly TaskEvent['type'][];

/**
 * The most characters a status message or an error message keeps. They are read by people, and
 * every answer about the task carries them (on NATS, every record and event): a handler throwing
 * an error with megabytes of text must not make the task that large.
 */
export const MAX_MESSAGE_CHARS = 16 * 1024;

/**
 * A message cut to {@link MAX_MESSAGE_CHARS}, saying how much was left out.
 *
 * @example
 * ```ts
 * boundedMessage('x'.repeat(20_000)); // the first 16384 characters, then '… (3616 more characters)'
 * ```
 */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_CHARS) return message;
  // Never cut a surrogate pair in two.
  const end = /[\uD800-\uDBFF]/.test(message.charAt(MAX_MESSAGE_CHARS - 1)) ? MAX_MESSAGE_CHARS - 1 : MAX_MESSAGE_CHARS;
  // A copy, not a slice: an engine's slice may keep the whole original alive (V8 does for long
  // ones), and the point is to keep only what is shown (a 5 MB error kept 5 MB behind 16 KiB).
  return JSON.parse(JSON.stringify(`${message.slice(0, end)}… (${message.length - end} more characters)`)) as string;
}

/**
 * Whether a progress report of `progress` moves the task on from its last one: MCP's progress rule
 * ("the progress value MUST increase with each notification"), kept by the task itself, so every
 * requester that follows it sees values that only increase.
 *
 * @param last - the task's last report (`context.progress`), if any
 * @param progress - the new report's value
 * @example
 * ```ts
 * advancesProgress({ progress: 4, total: 10 }, 4); // false: not more than the last
 * ```
 */
export function advancesProgress(last: Pick<TaskProgress, 'progress'> | undefined, progress: number): boolean {
  return last === undefined || progress > last.progress;
}

/**
 * Event creators. Each takes the time explicitly (default `Date.now()`), so replayed histories
 * keep their original timestamps.
 *
 * @example
 * ```ts
 * import { taskEvents } from 'mcp-task-actors/machines';
 * actor.send(taskEvents.cancel('user asked'));
 * ```
 */
export const taskEvents = {
  start: (at = Date.now()): TaskStartEvent => ({ type: 'task.start', at }),
  inputRequest: (requestId: string, at = Date.now()): TaskInputRequestEvent => ({ type: 'task.input.request', requestId, at }),
  inputResponse: (requestId: string, at = Date.now()): TaskInputResponseEvent => ({ type: 'task.input.response', requestId, at }),
  message: (message: string, at = Date.now()): TaskStatusMessageEvent => ({ type: 'task.message', message: boundedMessage(message), at }),
  complete: (resultRef: string, at = Date.now()): TaskCompleteEvent => ({ type: 'task.complete', resultRef, at }),
  fail: (error: string, at = Date.now()): TaskFailEvent => ({ type: 'task.fail', error: boundedMessage(error), at }),
  cancel: (reason: string | null = null, at = Date.now()): TaskCancelEvent => ({ type: 'task.cancel', reason: reason === null ? null : boundedMessage(reason), at }),
  lose: (error: string, at = Date.now()): TaskLoseEvent => ({ type: 'task.lose', error: boundedMessage(error), at }),
  child: (childId: string, status: TaskStatus, at = Date.now()): TaskChildEvent => ({ type: 'task.child', childId, status, at }),
  partial: (content: unknown, at = Date.now()): TaskPartialEvent => ({ type: 'task.partial', content, at }),
  progress: (report: TaskProgress, at = Date.now()): TaskProgressEvent => ({
    type: 'task.progress',
    progress: report.progress,
    ...(report.total !== undefined && { total: report.total }),
    ...(report.message !== undefined && { message: boundedMessage(report.message) }),
    at,
  }),
  handler: (position: HandlerPosition, at = Date.now()): TaskHandlerEvent => ({ type: 'task.handler', position, at }),
} as const;
