/**
 * The 2026-07-28 wire over stdio: `server/discover`, then `tools/call`, `prompts/get` and
 * `resources/read` as tasks of the tasks extension, read to completion with `tasks/get`, and a
 * status subscription to the end; through `serve --stdio` (SDK v1 with this project's stateless
 * dispatcher) and `serve --sdk v2 --stdio` (the SDK's own `serveStdio`), on memory and on NATS.
 * The 2025-11-25 wire still answers on the same pipe (SDK v1: beside it, from the first line).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { killChild, spawnServe } from './harness/process.js';

type Message = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string } };

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'stdio-2026', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

/** A line-delimited JSON-RPC peer on a spawned `serve --stdio`. */
function stdioPeer(flags: readonly string[]) {
  const { child, tail } = spawnServe(['--stdio', ...flags]);
  const seen: Message[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') seen.push(JSON.parse(line) as Message);
      for (const w of waiters.splice(0)) w();
    }
  });
  let next = 0;
  const until = async (found: () => Message | undefined, what: string): Promise<Message> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const m = found();
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`no ${what} within 15 s; stderr:\n${tail.toString().slice(-2000)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  const send = (method: string, params: Record<string, unknown>, envelope = true): string | number => {
    const id = `r${++next}`;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: envelope ? { ...params, _meta: ENVELOPE } : params })}\n`);
    return id;
  };
  const request = async (method: string, params: Record<string, unknown>, envelope = true): Promise<Message> => {
    const id = send(method, params, envelope);
    return until(() => seen.find((m) => m.id === id && (m.result !== undefined || m.error !== undefined)), `answer to ${method}`);
  };
  const settled = async (taskId: string): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 200; i++) {
      const { result } = await request('tasks/get', { taskId });
      if (['completed', 'failed', 'cancelled'].includes(String(result?.['status']))) return result!;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`task ${taskId} did not settle`);
  };
  return { send, request, settled, seen, until, close: () => killChild(child) };
}

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
}, 30_000);
afterAll(async () => {
  await nats?.stop();
});

// SDK v2 owns `subscriptions/listen` and its filter has no task ids: no task status stream there.
const setups: [string, () => string[], { listen: boolean }][] = [
  ['serve --stdio (SDK v1), memory', () => [], { listen: true }],
  ['serve --stdio (SDK v1), NATS', () => ['--nats', nats.url], { listen: true }],
  ['serve --sdk v2 --stdio, memory', () => ['--sdk', 'v2'], { listen: false }],
  ['serve --sdk v2 --stdio, NATS', () => ['--sdk', 'v2', '--nats', nats.url], { listen: false }],
];

describe.each(setups)('the 2026-07-28 wire over stdio: %s', (_name, flags, { listen: withListen }) => {
  it(`discovers the extension, runs a tool, a prompt and a resource as tasks${withListen ? ', and streams a status subscription' : ''}`, async () => {
    const peer = stdioPeer(flags());
    try {
      const discovered = await peer.request('server/discover', {});
      expect(discovered.result?.['capabilities']).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} }, tools: {}, prompts: {}, resources: {} });
      const tool = (await peer.request('tools/call', { name: 'sleep', arguments: { ms: 300 } })).result!;
      expect(tool).toMatchObject({ resultType: 'task', status: 'working' });
      const listen = withListen ? peer.send('subscriptions/listen', { notifications: { taskIds: [tool['taskId']] } }) : undefined;
      expect(await peer.settled(String(tool['taskId']))).toMatchObject({ status: 'completed', result: { content: [{ text: 'slept 300 ms' }] } });
      if (listen !== undefined) {
        const end = await peer.until(() => peer.seen.find((m) => m.id === listen && m.result !== undefined), 'the end of the subscription');
        expect(end.result).toMatchObject({ resultType: 'complete' });
        const pushed = peer.seen.filter((m) => m.method === 'notifications/tasks' && m.params?.['taskId'] === tool['taskId']);
        expect(pushed.at(-1)?.params).toMatchObject({ status: 'completed' });
      }

      const prompt = (await peer.request('prompts/get', { name: 'greeting', arguments: { name: 'Ada' } })).result!;
      expect(prompt).toMatchObject({ resultType: 'task' });
      expect(await peer.settled(String(prompt['taskId']))).toMatchObject({ status: 'completed', result: { messages: [expect.anything()] } });
      const resource = (await peer.request('resources/read', { uri: 'demo://report' })).result!;
      expect(resource).toMatchObject({ resultType: 'task' });
      expect(await peer.settled(String(resource['taskId']))).toMatchObject({ status: 'completed', result: { contents: [expect.objectContaining({ uri: 'demo://report' })] } });

      // tasks/result is not on this wire.
      expect((await peer.request('tasks/result', { taskId: tool['taskId'] })).error?.code).toBe(-32601);
    } finally {
      await peer.close();
    }
  }, 60_000);
});
