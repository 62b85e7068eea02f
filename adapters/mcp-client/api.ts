/**
 * The SDK v1 client adapter's implementation, loaded by `index.ts` (which checks that the SDK is installed).
 *
 * @module
 */
export { TaskClient } from './task-client-sdk1.js';
export { resolveTaskClientOptions } from '../wire/task-client.js';
export { attachTaskHost } from './task-host.js';
export type { TaskHostOptions } from './task-host.js';
export {
  TaskClientError,
  TaskFailedError,
  TaskCancelledError,
  TaskProtocolError,
  TaskClientErrorCode,
  isTaskClientError,
  errors,
} from '../wire/task-client.errors.js';
export type {
  TaskClientOptions,
  ResolvedTaskClientOptions,
  CallToolParams,
  BeginCallOptions,
  ResumeOptions,
  ResultOptions,
  PendingTask,
  InputRequestHandler,
} from '../wire/task-client.types.js';
export type { RawDispatch, RawDispatchResponse } from '../wire/task-client.ext-peer.js';
export type { TaskCall, TaskUpdate, CallOptions, CallStart, CallDialect, DialectChoice, TaskRefOptions } from '../wire/task-call.types.js';
export type { RequesterTask, RequesterDialect as TaskDialect } from '../../machines/index.js';
