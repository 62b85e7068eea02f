/**
 * The SDK v1 server adapter's implementation, loaded by `index.ts` (which checks that the SDK is installed).
 *
 * @module
 */
export { attachTaskServer, createTaskServer } from './attach-task-server.js';
export type { AttachTaskServerOptions } from './attach-task-server.js';
export type { StandaloneInputOptions } from '../wire/standalone-inputs.js';
export { TaskSupport } from '../wire/definitions.js';
export type {
  BeforeTaskOutcome,
  RequestWorkContext,
  TaskToolDefinition,
  TaskPromptDefinition,
  TaskResourceDefinition,
  TaskServerDefinitions,
  InlineAnswerOptions,
} from '../wire/definitions.js';
export { JsonRpcError, JsonRpcCode, toJsonRpcError } from '../wire/wire-errors.js';
export { ownerOf } from '../wire/request-info.js';
export { RuntimeTaskStore } from './runtime-task-store.js';
export { requestClientTask, ClientTaskError } from './client-task-request.js';
export type { ClientTaskMethod, ClientTaskRequestOptions } from './client-task-request.js';
export { createStatelessHandler } from '../wire/stateless/index.js';
export type { StatelessHandler, StatelessHandlerOptions, StatelessRequestContext } from '../wire/stateless/index.js';
