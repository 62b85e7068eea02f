/**
 * An SDK v2 server (`@modelcontextprotocol/server` 2.x) hosting the demo definitions through
 * `attachTaskServerV2`, served over HTTP in this process on a runtime the test chooses.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { demoDefinitions } from '../../../adapters/cli/demo-tools.js';
import { attachTaskServerV2, createTaskHttpHandlerV2, toNodeListener } from '../../../adapters/mcp-server-v2/index.js';
import type { TaskRuntime } from '../../../runtime/index.js';

/** A running v2-embedded endpoint. */
export interface V2Server {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the demo definitions on `runtime`; `tokens` maps bearer tokens to principals.
 *
 * @example
 * ```ts
 * const server = await startV2Server(createTaskRuntime(), { 'tok-a': 'alice' });
 * ```
 */
export async function startV2Server(runtime: TaskRuntime, tokens: Readonly<Record<string, string>> = {}): Promise<V2Server> {
  const endpoint = createTaskHttpHandlerV2(() => {
    const server = new McpServer({ name: 'v2-under-test', version: '1.0.0' });
    attachTaskServerV2(server, { runtime, ...demoDefinitions });
    return server;
  });
  const http = createServer(
    toNodeListener(endpoint, (req) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const principal = token === undefined ? undefined : tokens[token];
      return principal === undefined ? undefined : { token: token!, clientId: principal, scopes: [] };
    }),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      await endpoint.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
