/**
 * The pure task lifecycle: the SEP-1686 state machine, its events and types. Imports only `xstate`.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { taskMachine, taskEvents } from 'mcp-task-actors/machines';
 * const actor = createActor(taskMachine, { input }).start();
 * actor.send(taskEvents.start());
 * ```
 *
 * @module
 */
export { taskMachine } from './task.machine.js';
export type { TaskMachine, TaskHandlerInput } from './task.machine.js';
export { taskEvents, TASK_EVENT_TYPES } from './task.events.js';
export type {
  TaskEvent,
  TaskStartEvent,
  TaskInputRequestEvent,
  TaskInputResponseEvent,
  TaskStatusMessageEvent,
  TaskCompleteEvent,
  TaskFailEvent,
  TaskCancelEvent,
  TaskLoseEvent,
} from './task.events.js';
export { TaskStatus, TERMINAL_STATUSES, isTerminalStatus } from './task.types.js';
export type { TaskContext, TaskInput, TaskOwner, TaskHandlerOutput } from './task.types.js';
