/**
 * `mcp-tasks serve --sdk v2`: the demo server through the SDK v2 embedding
 * (`@modelcontextprotocol/server` 2.x, `attachTaskServerV2`) instead of SDK v1. It serves the
 * tasks extension on 2026-07-28 and the 2025-11-25 task methods; SEP-1686 is SDK v1's only.
 *
 * @module
 */
import { McpServer, specTypeSchemas, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { TaskRuntime } from '../../runtime/index.js';
import type { InlineAnswerOptions, TaskServerDefinitions } from '../mcp-server/index.js';
import { attachTaskServerV2 } from '../mcp-server-v2/index.js';
import { refuseInbound } from '../mcp-server-v2/inbound-checks.js';
import type { HttpEndpoint, HttpHandlerOptionsV2, HttpListenOptions } from '../http/index.js';
import { startEndpoint, type OperatorFront } from '../http/endpoint.js';
import { JsonRpcLineTransport, type MessageParser } from '../wire/json-rpc-lines.js';

/** What is served: the definitions, and whether hosts that speak no tasks get the task tools (`--task-tools`). */
type Served = TaskServerDefinitions & InlineAnswerOptions & { readonly taskTools?: boolean };

/** SDK v2's own check of one message (the one its stdio transport applies), so valid input reads as before. */
const parseV2: MessageParser<JSONRPCMessage> = (value) => {
  const checked = specTypeSchemas.JSONRPCMessage['~standard'].validate(value);
  if (checked.issues === undefined) return { message: checked.value };
  const issue = checked.issues[0];
  return { issue: issue && { message: issue.message, path: (issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)) } };
};

/**
 * The stdio line transport with the 2026-07-28 checks SDK v2 would skip (see `inbound-checks.ts`),
 * made on each message as it came, as `createTaskHttpHandlerV2` makes them over HTTP.
 */
class StdioTransportV2 extends JsonRpcLineTransport<JSONRPCMessage> {
  protected override deliver(message: JSONRPCMessage): void {
    const refusal = refuseInbound(message);
    if (refusal === undefined) return super.deliver(message);
    void this.send(refusal.body as JSONRPCMessage);
  }
}

/** The server factory both transports share: one v2 server per request, session or connection. */
function factory(info: { name: string; version: string }, runtime: TaskRuntime, definitions: Served): () => McpServer {
  return () => {
    const server = new McpServer(info);
    attachTaskServerV2(server, { runtime, ...definitions });
    return server;
  };
}

/**
 * Serves over Streamable HTTP; with `operator`, `GET /status` in front.
 *
 * @example
 * ```ts
 * const endpoint = await serveHttpV2(info, runtime, demoDefinitions, { port: 0 }, { status: localStatusSource(runtime), operatorToken: null });
 * ```
 */
export function serveHttpV2(
  info: { name: string; version: string },
  runtime: TaskRuntime,
  definitions: Served,
  options: Omit<HttpHandlerOptionsV2, 'createServer' | 'sdk'> & HttpListenOptions,
  operator?: OperatorFront,
): Promise<HttpEndpoint> {
  return startEndpoint({ ...options, sdk: 'v2', createServer: factory(info, runtime, definitions) }, operator);
}

/**
 * Serves over stdio; the opening exchange picks the era. Bad input is answered as on SDK v1
 * (-32700 for a line that is not JSON, -32600 naming what was wrong otherwise) by this project's
 * line transport: the SDK's own drops it, so the requester would wait forever for an answer.
 *
 * @example
 * ```ts
 * const handle = serveStdioV2(info, runtime, demoDefinitions, () => process.exit(0));
 * ```
 */
export function serveStdioV2(info: { name: string; version: string }, runtime: TaskRuntime, definitions: Served, onerror: (error: Error) => void): { close(): Promise<void> } {
  // The SDK's own stdio transport takes a line of up to this many bytes: keep accepting those.
  const transport = new StdioTransportV2(process.stdin, process.stdout, { parse: parseV2, maxLineBytes: STDIO_DEFAULT_MAX_BUFFER_SIZE });
  return serveStdio(factory(info, runtime, definitions), { onerror, transport });
}
