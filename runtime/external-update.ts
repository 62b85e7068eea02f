/**
 * Tasks driven from outside (no handler: e.g. the SDK's own task handlers through a `TaskStore`)
 * move by status updates; this turns one update into the lifecycle events that express it.
 *
 * @module
 */
import { taskEvents, type TaskEvent, type TaskStatus } from '../machines/index.js';
import type { TaskUpdate } from './task-runtime.types.js';

/** The one input request id that tasks driven from outside use for `input_required`. */
export const EXTERNAL_INPUT = 'external';

/**
 * The machine events for `change` applied to a task now in `current`; `resultRef` names where a
 * completed task's result is stored.
 *
 * @example
 * ```ts
 * eventsForUpdate('input_required', { status: 'working' }, 'ref', Date.now()); // [task.input.response]
 * ```
 */
export function eventsForUpdate(current: TaskStatus, change: TaskUpdate, resultRef: string, at: number): TaskEvent[] {
  const events: TaskEvent[] = [];
  if ('statusMessage' in change && change.statusMessage !== undefined && change.status !== 'cancelled') {
    events.push(taskEvents.message(change.statusMessage, at));
  }
  switch (change.status) {
    case undefined:
      break;
    case 'working':
      if (current === 'submitted') events.push(taskEvents.start(at));
      if (current === 'input_required') events.push(taskEvents.inputResponse(EXTERNAL_INPUT, at));
      break;
    case 'input_required':
      if (current !== 'input_required') events.push(taskEvents.inputRequest(EXTERNAL_INPUT, at));
      break;
    case 'completed':
      events.push(taskEvents.complete(resultRef, at));
      break;
    case 'failed':
      events.push(taskEvents.fail(change.error, at));
      break;
    case 'cancelled':
      events.push(taskEvents.cancel(change.statusMessage ?? null, at));
      break;
  }
  return events;
}
