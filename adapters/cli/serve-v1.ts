/**
 * `mcp-tasks serve` with SDK v1 (the default): the demo server through `@modelcontextprotocol/sdk`
 * (`createTaskServer`, every dialect), with the 2026-07-28 wire answered beside the SDK
 * (`createStatelessHandler`). Loaded only when serving with SDK v1, so that `serve --sdk v2` runs
 * without SDK v1 installed.
 *
 * @module
 */
import type { TaskRuntime } from '../../runtime/index.js';
import { createStatelessHandler, createTaskServer, type InlineAnswerOptions, type TaskServerDefinitions } from '../mcp-server/index.js';
import type { HttpEndpoint, HttpHandlerOptionsV1, HttpListenOptions } from '../http/index.js';
import { startEndpoint, type OperatorFront } from '../http/endpoint.js';
import { JsonRpcStdioTransport } from '../mcp-server/stdio-transport.js';

/** The served implementation's name and version. */
type Info = { name: string; version: string };

/** What is served: the definitions, and whether hosts that speak no tasks get the task tools (`--task-tools`). */
export type Served = TaskServerDefinitions & InlineAnswerOptions & { readonly taskTools?: boolean };

/**
 * Serves over stdio until stdin ends: the session-based dialects through the SDK, and the
 * 2026-07-28 wire (tasks extension) beside them, as over HTTP.
 *
 * @param handlers - `onerror` hears protocol errors, `onclose` that the transport closed
 * @example
 * ```ts
 * await serveStdioV1(info, runtime, demoDefinitions, { onerror: console.warn, onclose: () => process.exit(0) });
 * ```
 */
export async function serveStdioV1(info: Info, runtime: TaskRuntime, definitions: Served, handlers: { onerror: (error: Error) => void; onclose: () => void }): Promise<void> {
  const server = createTaskServer(info, { runtime, ...definitions });
  server.onerror = handlers.onerror;
  const transport = new JsonRpcStdioTransport(process.stdin, process.stdout, { stateless: stateless(info, runtime, definitions) });
  transport.onclose = handlers.onclose;
  await server.connect(transport);
}

/**
 * Serves over Streamable HTTP: one SDK server per session, and the 2026-07-28 stateless wire
 * (tasks extension) beside the session-based dialects; with `operator`, `GET /status` in front.
 *
 * @example
 * ```ts
 * const endpoint = await serveHttpV1(info, runtime, demoDefinitions, { port: 0 }, { status: localStatusSource(runtime), operatorToken: null });
 * ```
 */
export function serveHttpV1(
  info: Info,
  runtime: TaskRuntime,
  definitions: Served,
  options: Omit<HttpHandlerOptionsV1, 'createServer' | 'stateless' | 'sdk'> & HttpListenOptions,
  operator?: OperatorFront,
): Promise<HttpEndpoint> {
  return startEndpoint(
    {
      ...options,
      createServer: () => createTaskServer(info, { runtime, ...definitions }),
      stateless: stateless(info, runtime, definitions),
    },
    operator,
  );
}

/** The 2026-07-28 wire beside the SDK: the task tools are the session eras' only (that wire reads each request's capabilities). */
function stateless(info: Info, runtime: TaskRuntime, { taskTools: _taskTools, ...definitions }: Served) {
  return createStatelessHandler({ runtime, info, ...definitions });
}
