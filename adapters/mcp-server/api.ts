/**
 * The SDK v1 server adapter's implementation, loaded by `index.ts` (which checks that the SDK is installed).
 *
 * @module
 */
export { attachTaskServer, createTaskServer } from './attach-task-server.js';
export type { AttachTaskServerOptions } from './attach-task-server.js';
export type { StandaloneInputOptions } from './standalone-inputs.js';
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
