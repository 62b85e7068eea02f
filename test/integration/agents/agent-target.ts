/**
 * Where the agent adapters' tests run the served tools: `serve` on memory, or a NATS front node
 * with a worker node beside it; and the agent's MCP client, connected for one describe block.
 */
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TaskClient } from '../../../adapters/mcp-client/index.js';
import { spawnHttpServer } from '../harness/process.js';
import { startFrontWorker } from '../harness/nats-front-worker.js';

export { stopSharedNats } from '../harness/nats-front-worker.js';

/** The two deployments every await-mode suite runs against. */
export const TARGETS = [
  { name: 'serve (memory)', start: async () => spawnHttpServer(['--poll-frequency', '100']) },
  { name: 'a NATS front + worker', start: async () => startFrontWorker(['--poll-frequency', '100']) },
] as const;

/** One of {@link TARGETS}. */
export type Target = (typeof TARGETS)[number];

/**
 * Starts `target` and connects an SDK v1 client (declaring elicitation) with a `TaskClient` for the
 * enclosing describe block; `use` receives the task client once connected.
 */
export function onTarget(target: Target, clientName: string, use: (tasks: TaskClient) => void): void {
  let server: { url: string; close(): Promise<void> } | undefined;
  let client: Client | undefined;
  let tasks: TaskClient | undefined;
  beforeAll(async () => {
    server = await target.start();
    client = new Client({ name: clientName, version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    tasks = new TaskClient(client, { pollFrequency: 100 });
    use(tasks);
  }, 30_000);
  afterAll(async () => {
    tasks?.dispose();
    await client?.close();
    await server?.close();
  });
}
