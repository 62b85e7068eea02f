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
 * @module
 */
export { attachTaskServer, createTaskServer } from './attach-task-server.js';
export type { AttachTaskServerOptions } from './attach-task-server.js';
export { TaskSupport } from './definitions.js';
export type {
  BeforeTaskOutcome,
  RequestWorkContext,
  TaskToolDefinition,
  TaskPromptDefinition,
  TaskResourceDefinition,
  TaskServerDefinitions,
} from './definitions.js';
export { JsonRpcError, JsonRpcCode, toJsonRpcError } from './wire-errors.js';
export { ownerOf } from './request-context.js';
export { RuntimeTaskStore } from './runtime-task-store.js';
export { requestClientTask, ClientTaskError } from './client-task-request.js';
export type { ClientTaskMethod, ClientTaskRequestOptions } from './client-task-request.js';
export { createStatelessHandler } from './stateless/index.js';
export type { StatelessHandler, StatelessHandlerOptions, StatelessRequestContext } from './stateless/index.js';
