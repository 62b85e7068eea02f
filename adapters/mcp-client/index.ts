/**
 * The client role over the MCP TypeScript SDK: task-augmented tool calls from a connected
 * `Client` (`TaskClient`), in the SEP-1686 or the 2025-11-25 dialect, each driven by a requester
 * actor; and client-hosted tasks for the sampling and elicitation requests servers send
 * (`attachTaskHost`).
 *
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { TaskClient, TaskCancelledError } from 'mcp-task-actors/adapters/mcp-client';
 *
 * const tasks = new TaskClient(client, { dialect: 'sep-1686', pollFrequency: 500 });
 * const pending = tasks.beginCallTool({ name: 'long_job', arguments: { seconds: 5 } });
 * const taskId = await pending.taskId;
 * try {
 *   const result = await pending.result({ onTaskStatus: (t) => console.log(t.status, t.statusMessage) });
 * } catch (e) {
 *   if (e instanceof TaskCancelledError) console.log('cancelled');
 * }
 * // After a reconnect: new TaskClient(newClient).resume(taskId).result()
 * ```
 *
 * Needs the optional peer dependency `@modelcontextprotocol/sdk` (1.x); without it, importing this
 * module fails with a `MissingPeerDependencyError` that says so.
 *
 * @module
 */
import { loadWithPeer } from '../peer-dependency.js';
import type * as Api from './api.js';

export type {
  TaskHostOptions,
  TaskClientOptions,
  ResolvedTaskClientOptions,
  CallToolParams,
  BeginCallOptions,
  ResumeOptions,
  ResultOptions,
  PendingTask,
  InputRequestHandler,
  RawDispatch,
  RawDispatchResponse,
  RequesterTask,
  TaskDialect,
  TaskCall,
  TaskUpdate,
  CallOptions,
  CallStart,
  CallDialect,
  DialectChoice,
  TaskRefOptions,
} from './api.js';

const api: typeof Api = await loadWithPeer('@modelcontextprotocol/sdk', '>=1.25.0 <=1.32.2', 'mcp-task-actors/adapters/mcp-client', () => import('./api.js'));

/** See {@link Api.TaskClient}. */
export const TaskClient = api.TaskClient;
/** See {@link Api.TaskClient}. */
export type TaskClient = Api.TaskClient;
/** See {@link Api.resolveTaskClientOptions}. */
export const resolveTaskClientOptions = api.resolveTaskClientOptions;
/** See {@link Api.attachTaskHost}. */
export const attachTaskHost = api.attachTaskHost;
/** See {@link Api.TaskClientError}. */
export const TaskClientError = api.TaskClientError;
/** See {@link Api.TaskClientError}. */
export type TaskClientError = Api.TaskClientError;
/** See {@link Api.TaskFailedError}. */
export const TaskFailedError = api.TaskFailedError;
/** See {@link Api.TaskFailedError}. */
export type TaskFailedError = Api.TaskFailedError;
/** See {@link Api.TaskCancelledError}. */
export const TaskCancelledError = api.TaskCancelledError;
/** See {@link Api.TaskCancelledError}. */
export type TaskCancelledError = Api.TaskCancelledError;
/** See {@link Api.TaskProtocolError}. */
export const TaskProtocolError = api.TaskProtocolError;
/** See {@link Api.TaskProtocolError}. */
export type TaskProtocolError = Api.TaskProtocolError;
/** See {@link Api.TaskClientErrorCode}. */
export const TaskClientErrorCode = api.TaskClientErrorCode;
/** See {@link Api.TaskClientErrorCode}. */
export type TaskClientErrorCode = Api.TaskClientErrorCode;
/** See {@link Api.isTaskClientError}. */
export const isTaskClientError = api.isTaskClientError;
/** See {@link Api.errors}. */
export const errors = api.errors;
