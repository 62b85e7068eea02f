/**
 * Host tasks in an SDK v2 server (`@modelcontextprotocol/server` 2.x): the tasks extension on the
 * 2026-07-28 wire and the 2025-11-25 task methods, from one server, on the same runtime as the
 * SDK v1 embedding. Needs the optional peer dependency `@modelcontextprotocol/server`; without it,
 * importing this module fails with a `MissingPeerDependencyError` that says so.
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
import { loadWithPeer } from '../peer-dependency.js';
import type * as Api from './api.js';

export type { AttachTaskServerV2Options, InlineAnswerOptions, NodeListenerOptions, TaskHttpHandlerV2, TaskHttpHandlerV2Options, TaskServerFactoryV2, StandaloneInputOptions } from './api.js';

const api: typeof Api = await loadWithPeer('@modelcontextprotocol/server', '^2.4.0', 'mcp-task-actors/adapters/mcp-server-v2', () => import('./api.js'));

/** See {@link Api.attachTaskServerV2}. */
export const attachTaskServerV2 = api.attachTaskServerV2;
/** See {@link Api.createTaskHttpHandlerV2}. */
export const createTaskHttpHandlerV2 = api.createTaskHttpHandlerV2;
/** See {@link Api.toNodeListener}. */
export const toNodeListener = api.toNodeListener;
/** See {@link Api.STANDALONE_INPUT_GRACE_MS}. */
export const STANDALONE_INPUT_GRACE_MS = api.STANDALONE_INPUT_GRACE_MS;
/** See {@link Api.UNATTACHED_ANSWER_MS}. */
export const UNATTACHED_ANSWER_MS = api.UNATTACHED_ANSWER_MS;
