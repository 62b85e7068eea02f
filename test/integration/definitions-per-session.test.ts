/**
 * One runtime behind an HTTP endpoint that makes a different server for each session: each
 * session's tasks run its own server's definitions, and a later session's `initialize` replaces
 * nobody's (work is registered once per runtime, not on every `initialize`). Real SDK clients,
 * each with its own session, over a real endpoint.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';
import { sleepTool } from '../../adapters/cli/demo-tools.js';
import { createTaskServer, type TaskToolDefinition } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';

/** A tool whose work says which session's server it belongs to (its run closes over that). */
function whoami(label: string): TaskToolDefinition<Record<string, never>> {
  return { name: 'whoami', inputSchema: z.object({}), taskSupport: 'optional', run: async () => ({ content: [{ type: 'text', text: `server ${label}` }] }) };
}

let runtime: TaskRuntime;
let endpoint: HttpEndpoint;
let registrations = 0;
let servers = 0;
const clients: Client[] = [];

beforeAll(async () => {
  const base = createTaskRuntime();
  // Counts what reaches the runtime: the shared sleep tool must be registered once, whatever the sessions.
  runtime = Object.assign(Object.create(base) as TaskRuntime, {
    registerHandler: (...a: Parameters<TaskRuntime['registerHandler']>) => {
      registrations++;
      base.registerHandler(...a);
    },
  });
  endpoint = await startHttpEndpoint({ port: 0, createServer: () => createTaskServer({ name: 't', version: '0' }, { runtime, tools: [sleepTool, whoami(String(++servers))] }) });
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await endpoint.close();
  await runtime.dispose();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'c', version: '0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
  clients.push(client);
  return client;
}

/** Runs `whoami` as a 2025-11-25 task and returns its text. */
async function whoamiTask(client: Client): Promise<string> {
  const created = await client.request({ method: 'tools/call', params: { name: 'whoami', arguments: {}, task: { ttl: 60_000 } } }, z.looseObject({ task: z.looseObject({ taskId: z.string() }) }));
  const result = await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('definitions of servers made per session', () => {
  it("should run each session's tasks with its own server's definitions, whichever session began last", async () => {
    const one = await connect();
    const two = await connect();
    const three = await connect();
    expect(servers).toBe(3);
    // Session one began first: its task must not run session three's definition.
    expect(await whoamiTask(one)).toBe('server 1');
    expect(await whoamiTask(three)).toBe('server 3');
    expect(await whoamiTask(two)).toBe('server 2');
    // As plain calls too (no task): the same definitions.
    const direct = await one.callTool({ name: 'whoami', arguments: {} });
    expect(direct.content).toEqual([{ type: 'text', text: 'server 1' }]);
  });

  it('should register a definition shared by every server once, however many sessions begin', async () => {
    const before = registrations;
    await connect();
    await connect();
    // Only the two new whoami definitions; the shared sleep tool is not registered again.
    expect(registrations - before).toBe(2);
    const client = await connect();
    const created = await client.request({ method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } } }, z.looseObject({ task: z.looseObject({ taskId: z.string() }) }));
    const result = await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'slept 1 ms' }]);
  });
});
