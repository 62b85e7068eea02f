/**
 * The SDK v2 server adapter's implementation (see `index.ts`, which loads it). Host tasks in an SDK v2 server (`@modelcontextprotocol/server` 2.x): the tasks extension on the
 * 2026-07-28 wire and the 2025-11-25 task methods, from one server, on the same runtime as the
 * SDK v1 embedding. Needs the optional peer dependency `@modelcontextprotocol/server`.
 *
 * @example
 * ```ts
 * import { createTaskRuntime } from 'mcp-task-actors';
 * import { attachTaskServerV2, createTaskHttpHandlerV2, toNodeListener } from 'mcp-task-actors/adapters/mcp-server-v2';
 * const runtime = createTaskRuntime();
 * const endpoint = createTaskHttpHandlerV2(() => {
 *   const server = new McpServer({ name: 'reports', version: '1.0.0' });
 *   attachTaskServerV2(server, { runtime, tools: [reportTool] });
 *   return server;
 * });
 * http.createServer(toNodeListener(endpoint)).listen(3000);
 * ```
 *
 * @module
 */
export { attachTaskServerV2 } from './attach-task-server-v2.js';
export type { AttachTaskServerV2Options } from './attach-task-server-v2.js';
export type { InlineAnswerOptions } from '../wire/definitions.js';
export { createTaskHttpHandlerV2, toNodeListener } from './http-v2.js';
export type { NodeListenerOptions, TaskHttpHandlerV2, TaskHttpHandlerV2Options, TaskServerFactoryV2 } from './http-v2.js';
export { STANDALONE_INPUT_GRACE_MS, UNATTACHED_ANSWER_MS } from '../wire/standalone-inputs.js';
export type { StandaloneInputOptions } from '../wire/standalone-inputs.js';
