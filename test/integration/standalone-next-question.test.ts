/**
 * A task that asks a second question right after the first is answered: each question reaches the
 * requester's standalone stream once (the first, answered, is never handed over and sent again).
 */
/**
 * Input of a 2025-11-25 task followed from two connections of one principal (a requester that
 * recovered its task on a new connection while the old one is still open): both standalone streams
 * carry the question; once one answers, the other's copy is withdrawn (notifications/cancelled).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { attachTaskServer } from '../../adapters/mcp-server/attach-task-server.js';
import type { TaskToolDefinition } from '../../adapters/mcp-server/definitions.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';

const ask: TaskToolDefinition<Record<string, never>> = {
  name: 'ask',
  inputSchema: z.object({}),
  run: async (_args, ctx) => {
    const schema = { type: 'object', properties: { name: { type: 'string' } } } as const;
    const a = await ctx.elicit({ message: 'A?', requestedSchema: schema });
    const b = await ctx.elicit({ message: 'B?', requestedSchema: schema });
    return { content: [{ type: 'text', text: JSON.stringify([a, b]) }] };
  },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const authInfo = { token: 't', clientId: 'alice', scopes: [] };

async function session(runtime: TaskRuntime) {
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  attachTaskServer(server, { runtime, tools: [ask] });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: true });
  await server.connect(transport);
  let sid: string | undefined;
  let id = 0;
  const headers = () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sid && { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }) });
  const post = async (body: unknown) => {
    const res = await transport.handleRequest(new Request('http://x/mcp', { method: 'POST', headers: headers(), body: JSON.stringify(body) }), { authInfo });
    sid ??= res.headers.get('mcp-session-id') ?? undefined;
    return res.status === 202 ? undefined : ((await res.json()) as Record<string, any>);
  };
  await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const get = await transport.handleRequest(new Request('http://x/mcp', { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' } }), { authInfo });
  const seen: any[] = [];
  void (async () => {
    const reader = get.body!.getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += new TextDecoder().decode(value);
      const parts = buf.split('\n\n');
      buf = parts.pop()!;
      for (const p of parts) { const d = p.split('\n').find((l) => l.startsWith('data: ')); if (d) seen.push(JSON.parse(d.slice(6))); }
    }
  })();
  return { post, seen, next: () => ++id, close: () => transport.close() };
}


async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 25) {
    if (waited > 5_000) throw new Error(`not within 5 s: ${what}`);
    await sleep(25);
  }
}

it('asks A once, then B, when the task asks B right after A is answered', async () => {
  const runtime = createTaskRuntime();
  const a = await session(runtime);
  try {
    const created = await a.post({ jsonrpc: '2.0', id: a.next(), method: 'tools/call', params: { name: 'ask', arguments: {}, task: { ttl: 60_000 } } });
    const taskId = created!['result'].task.taskId as string;
    const asked = (m: string) => a.seen.filter((x) => x.method === 'elicitation/create' && x.params.message === m);
    const poll = setInterval(() => void a.post({ jsonrpc: '2.0', id: a.next(), method: 'tasks/get', params: { taskId } }), 100);
    await until('A asked', () => asked('A?').length === 1);
    await a.post({ jsonrpc: '2.0', id: asked('A?')[0].id, result: { action: 'accept', content: { name: 'Ada' } } });
    await until('B asked', () => asked('B?').length === 1);
    await sleep(1500); // the human thinks about B
    clearInterval(poll);
    expect(asked('A?').length).toBe(1);
  } finally {
    await a.close();
    await runtime.dispose();
  }
});
