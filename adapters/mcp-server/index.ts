/**
 * Host tasks in an `@modelcontextprotocol/sdk` server: tools, prompts and resources whose requests
 * may become tasks (SEP-1686), plus `tasks/get`, `tasks/result`, `tasks/list`, `tasks/delete`.
 *
 * @example
 * ```ts
 * import { createTaskRuntime } from 'mcp-task-actors';
 * import { createTaskServer } from 'mcp-task-actors/adapters/mcp-server';
 * const server = createTaskServer({ name: 'demo', version: '1.0.0' }, { runtime: createTaskRuntime(), tools });
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
  AttachTaskServerOptions,
  StandaloneInputOptions,
  BeforeTaskOutcome,
  RequestWorkContext,
  TaskToolDefinition,
  TaskPromptDefinition,
  TaskResourceDefinition,
  TaskServerDefinitions,
  InlineAnswerOptions,
  ClientTaskMethod,
  ClientTaskRequestOptions,
  StatelessHandler,
  StatelessHandlerOptions,
  StatelessRequestContext,
} from './api.js';

const api: typeof Api = await loadWithPeer('@modelcontextprotocol/sdk', '>=1.25.0 <=1.32.2', 'mcp-task-actors/adapters/mcp-server', () => import('./api.js'));

/** See {@link Api.attachTaskServer}. */
export const attachTaskServer = api.attachTaskServer;
/** See {@link Api.createTaskServer}. */
export const createTaskServer = api.createTaskServer;
/** See {@link Api.TaskSupport}. */
export const TaskSupport = api.TaskSupport;
/** See {@link Api.TaskSupport}. */
export type TaskSupport = Api.TaskSupport;
/** See {@link Api.JsonRpcError}. */
export const JsonRpcError = api.JsonRpcError;
/** See {@link Api.JsonRpcError}. */
export type JsonRpcError = Api.JsonRpcError;
/** See {@link Api.JsonRpcCode}. */
export const JsonRpcCode = api.JsonRpcCode;
/** See {@link Api.toJsonRpcError}. */
export const toJsonRpcError = api.toJsonRpcError;
/** See {@link Api.ownerOf}. */
export const ownerOf = api.ownerOf;
/** See {@link Api.RuntimeTaskStore}. */
export const RuntimeTaskStore = api.RuntimeTaskStore;
/** See {@link Api.RuntimeTaskStore}. */
export type RuntimeTaskStore = Api.RuntimeTaskStore;
/** See {@link Api.requestClientTask}. */
export const requestClientTask = api.requestClientTask;
/** See {@link Api.ClientTaskError}. */
export const ClientTaskError = api.ClientTaskError;
/** See {@link Api.ClientTaskError}. */
export type ClientTaskError = Api.ClientTaskError;
/** See {@link Api.createStatelessHandler}. */
export const createStatelessHandler = api.createStatelessHandler;
