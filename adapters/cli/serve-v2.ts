/**
 * `mcp-tasks serve --sdk v2`: the demo server through the SDK v2 embedding
 * (`@modelcontextprotocol/server` 2.x, `attachTaskServerV2`) instead of SDK v1. It serves the
 * tasks extension on 2026-07-28 and the 2025-11-25 task methods; SEP-1686 is SDK v1's only.
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { TaskRuntime } from '../../runtime/index.js';
import type { TaskServerDefinitions } from '../mcp-server/index.js';
import { attachTaskServerV2 } from '../mcp-server-v2/index.js';
import type { HttpEndpoint } from './http-endpoint.js';
import { startHttpEndpointV2, type HttpEndpointV2Options } from './http-endpoint-v2.js';

/** The server factory both transports share: one v2 server per request, session or connection. */
function factory(info: { name: string; version: string }, runtime: TaskRuntime, definitions: TaskServerDefinitions): () => McpServer {
  return () => {
    const server = new McpServer(info);
    attachTaskServerV2(server, { runtime, ...definitions });
    return server;
  };
}

/**
 * Serves over Streamable HTTP.
 *
 * @example
 * ```ts
 * const endpoint = await serveHttpV2(info, runtime, demoDefinitions, { port: 0 });
 * ```
 */
export function serveHttpV2(info: { name: string; version: string }, runtime: TaskRuntime, definitions: TaskServerDefinitions, options: Omit<HttpEndpointV2Options, 'createServer'>): Promise<HttpEndpoint> {
  return startHttpEndpointV2({ ...options, createServer: factory(info, runtime, definitions) });
}

/**
 * Serves over stdio; the opening exchange picks the era.
 *
 * @example
 * ```ts
 * const handle = serveStdioV2(info, runtime, demoDefinitions, () => process.exit(0));
 * ```
 */
export function serveStdioV2(info: { name: string; version: string }, runtime: TaskRuntime, definitions: TaskServerDefinitions, onerror: (error: Error) => void): { close(): Promise<void> } {
  return serveStdio(factory(info, runtime, definitions), { onerror });
}
