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
 * @module
 */
export { TaskClient, resolveTaskClientOptions } from './task-client.js';
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
} from './task-client.errors.js';
export type {
  TaskClientOptions,
  ResolvedTaskClientOptions,
  CallToolParams,
  BeginCallOptions,
  ResumeOptions,
  ResultOptions,
  PendingTask,
} from './task-client.types.js';
export type { RequesterTask as ObservedTask, RequesterDialect as TaskDialect } from '../../machines/index.js';
