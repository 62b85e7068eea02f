/**
 * `TaskClientV2`: the requester machine on an SDK v2 `Client`, against `serve` (SDK v1 embedded:
 * SEP-1686 and 2025-11-25) and `serve --sdk v2` (2025-11-25): results, status callbacks, input
 * through the client's own elicitation handler, cancel.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskClientV2 } from '../../adapters/mcp-client-v2/index.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

let v1: HttpServerProcess;
let v2: HttpServerProcess;
beforeAll(async () => {
  [v1, v2] = await Promise.all([spawnHttpServer(), spawnHttpServer(['--sdk', 'v2'])]);
}, 30_000);
afterAll(async () => {
  await Promise.allSettled([v1?.close(), v2?.close()]);
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'task-client-v2', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;

const cases = [
  ['serve (SDK v1), SEP-1686', () => v1.url, 'sep-1686'],
  ['serve (SDK v1), 2025-11-25', () => v1.url, '2025-11-25'],
  ['serve --sdk v2, 2025-11-25', () => v2.url, '2025-11-25'],
] as const;

describe.each(cases)('TaskClientV2 against %s', (_name, url, dialect) => {
  it('calls a tool as a task, reports its statuses and gets its result', async () => {
    const client = await connect(url());
    try {
      const tasks = new TaskClientV2(client, { dialect });
      const statuses: string[] = [];
      const result = await tasks.beginCallTool({ name: 'sleep', arguments: { ms: 300 } }, { ttl: 60_000, keepAlive: 60_000 }).result({ onTaskStatus: (t) => statuses.push(t.status) });
      expect(text(result)).toBe('slept 300 ms');
      expect(statuses.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("answers the task's elicitation through the client's own handler", async () => {
    const client = await connect(url());
    try {
      const result = await new TaskClientV2(client, { dialect }).beginCallTool({ name: 'ask_name', arguments: {} }).result();
      expect(text(result)).toBe('Hello, Ada');
    } finally {
      await client.close();
    }
  });

  it('cancels a running task', async () => {
    const client = await connect(url());
    try {
      const pending = new TaskClientV2(client, { dialect }).beginCallTool({ name: 'long_job', arguments: { seconds: 30 } });
      const settled = pending.result().then(() => 'completed', (e: unknown) => (e as Error).name);
      await new Promise((r) => setTimeout(r, 300));
      pending.cancel();
      expect(await settled).toBe('TaskCancelledError');
    } finally {
      await client.close();
    }
  });
});
