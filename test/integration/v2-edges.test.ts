/**
 * Requests SDK v2 checks, serves or reshapes before this project's handlers, answered by
 * `serve --sdk v2` as `serve` (SDK v1 + its own 2026-07-28 dispatcher) answers them:
 * - a task request the SDK's schemas refuse never becomes a task (`task: { ttl: null }`);
 * - `tasks/update` with `inputResponses` that is not a map: -32602;
 * - `subscriptions/listen` asking for task ids without the tasks extension: -32021;
 * - a task made on the 2026-07-28 wire, read on a 2025-11-25 session of the same principal,
 *   in the 2025-11-25 shapes (`ttl`, `pollInterval`, its related-task key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extWire, type ExtReply } from './harness/ext-wire.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok, type Rec } from './harness/json.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { getTask, listAll } from './harness/task-calls.js';

const AUTH = ['--auth-token', 'tok-a=alice'];
const HEADERS = { authorization: 'Bearer tok-a' };
let v1: HttpServerProcess;
let v2: HttpServerProcess;
beforeAll(async () => {
  [v1, v2] = await Promise.all([spawnHttpServer(AUTH), spawnHttpServer([...AUTH, '--sdk', 'v2'])]);
}, 30_000);
afterAll(async () => {
  await Promise.allSettled([v1?.close(), v2?.close()]);
});

async function pollFor(read: () => Promise<Rec>, done: (value: Rec) => boolean): Promise<Rec> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const modern = (url: string) => {
  const w = extWire(url);
  return (method: string, params: Rec = {}, caps?: Rec): Promise<ExtReply> => w.post(method, params, { headers: HEADERS, ...(caps && { caps }) });
};

describe.each([
  ['serve (SDK v1)', () => v1],
  ['serve --sdk v2', () => v2],
] as const)('%s', (_name, server) => {
  it('refuses a 2025-11-25 task request with task.ttl null (-32602) and makes no task', async () => {
    const wire = await attachHttpWire(server().url, () => server().stderr(), { bearerToken: 'tok-a' });
    try {
      const before = (await listAll(wire)).length;
      const res = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: null } });
      expect(res.error?.code).toBe(-32602);
      expect(res.error?.message).toMatch(/ttl/);
      expect(await listAll(wire)).toHaveLength(before);
    } finally {
      await wire.close();
    }
  });

  it('refuses tasks/update whose inputResponses is not a map, and the task still waits for its answer', async () => {
    const post = modern(server().url);
    const created = (await post('tools/call', { name: 'ask_name', arguments: {} }, { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } })).body.result!;
    const taskId = String(created['taskId']);
    try {
      for (const inputResponses of [[], 'yes']) {
        const reply = await post('tasks/update', { taskId, inputResponses });
        expect(reply.body.error).toEqual({ code: -32602, message: 'Invalid params for tasks/update: inputResponses must map input request ids to responses' });
      }
      const task = (await post('tasks/get', { taskId })).body.result!;
      expect(['working', 'input_required']).toContain(task['status']);
    } finally {
      await post('tasks/cancel', { taskId });
    }
  });

  it('fails a task whose answer in tasks/update is malformed (here wrapped as {method, result})', async () => {
    const post = modern(server().url);
    const caps = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const taskId = String((await post('tools/call', { name: 'ask_name', arguments: {} }, caps)).body.result!['taskId']);
    const asked = await pollFor(async () => (await post('tasks/get', { taskId })).body.result!, (t) => t['status'] === 'input_required');
    const key = Object.keys(asked['inputRequests'] as Rec)[0]!;
    const wrapped = { method: 'elicitation/create', result: { action: 'accept', content: { name: 'Ada' } } };
    expect((await post('tasks/update', { taskId, inputResponses: { [key]: wrapped } })).body.error).toBeUndefined();
    const ended = await pollFor(async () => (await post('tasks/get', { taskId })).body.result!, (t) => t['status'] !== 'input_required' && t['status'] !== 'working');
    expect(ended).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining('malformed') });
  });

  it('leaves a request that is not well-formed JSON-RPC to the SDK (an object id, a wrong version): no -32602 of ours', async () => {
    for (const [id, jsonrpc] of [[{ a: 1 }, '2.0'], [7, '1.0']] as const) {
      const res = await fetch(server().url, {
        method: 'POST',
        headers: { ...HEADERS, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tasks/update', 'mcp-name': 't1' },
        body: JSON.stringify({ jsonrpc, id, method: 'tasks/update', params: { taskId: 't1', inputResponses: [], _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
      });
      // What the SDK answers (each SDK its own way), never this project's -32602 for a valid request.
      const text = await res.text();
      expect(text).not.toContain('-32602');
      if (server() === v2) expect(JSON.parse(text)).toMatchObject({ error: { code: -32600 } });
    }
  });

  it('ignores a stray task param on a 2026-07-28 tools/call (that wire has none)', async () => {
    const post = modern(server().url);
    const reply = await post('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: null } });
    expect(reply.body.error).toBeUndefined();
    expect(reply.body.result?.['resultType']).toBe('task');
  });

  it('refuses subscriptions/listen for task ids without the extension declared (-32021, HTTP 400)', async () => {
    const post = modern(server().url);
    const reply = await post('subscriptions/listen', { notifications: { taskIds: ['any'] } }, {});
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
  });

  it('shows a task made on the 2026-07-28 wire to a 2025-11-25 session of the same principal in 2025-11-25 shapes', async () => {
    const post = modern(server().url);
    const taskId = String((await post('tools/call', { name: 'sleep', arguments: { ms: 10 } })).body.result!['taskId']);
    const wire = await attachHttpWire(server().url, () => server().stderr(), { bearerToken: 'tok-a' });
    try {
      const task = await getTask(wire, taskId);
      expect(task).toHaveProperty('ttl');
      expect(task).not.toHaveProperty('ttlMs');
      expect(task).not.toHaveProperty('pollIntervalMs');
      const result = ok(await wire.request('tasks/result', { taskId }));
      expect(result['_meta']).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
      expect((await listAll(wire)).map((t) => t['taskId'])).toContain(taskId);
    } finally {
      await wire.close();
    }
  });
});
