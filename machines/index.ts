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
export type { TaskMachine } from './task.machine.js';
export { advancesProgress, boundedMessage, MAX_MESSAGE_CHARS, taskEvents, TASK_EVENT_TYPES } from './task.events.js';
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
  TaskProgressEvent,
  TaskHandlerEvent,
} from './task.events.js';
export { TaskStatus, TERMINAL_STATUSES, isTerminalStatus } from './task.types.js';
export type { ChildTask, PartialResult, TaskContext, TaskInput, TaskOwner, TaskProgress, HandlerPosition } from './task.types.js';
export { requesterMachine, DEFAULT_REQUESTER_POLL_FREQUENCY, DEFAULT_MAX_CANCEL_POLLS } from './requester.machine.js';
export type { RequesterMachine } from './requester.machine.js';
export { requesterEvents, REQUESTER_EVENT_TYPES } from './requester.events.js';
export type {
  RequesterEvent,
  RequesterCreatedEvent,
  RequesterResponseEvent,
  RequesterRequestFailedEvent,
  RequesterCancelEvent,
} from './requester.events.js';
export { RequesterDialect, RequesterErrorCode } from './requester.types.js';
export type {
  RequesterAnswerInput,
  RequesterContext,
  RequesterError,
  RequesterInput,
  RequesterInputRequest,
  RequesterOutcome,
  RequesterOutput,
  RequesterResultSource,
  RequesterTask,
  RequesterTaskRef,
  RequesterWaitInput,
} from './requester.types.js';
