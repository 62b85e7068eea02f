/**
 * The stateless 2026-07-28 wire with the `io.modelcontextprotocol/tasks` extension, as raw HTTP
 * JSON-RPC against the real CLI server, and a 2025-11-25 SDK session on the same server.
 */
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EXT_ID, EXT_VERSION, expectError, extWire, isTerminal, WITH_EXT, type ExtWire } from './harness/ext-wire.js';
import { connectSdkClientTo } from './harness/sdk-client.js';
import { assertCliBuilt, spawnHttpServer, type HttpServerProcess } from './harness/process.js';

let server: HttpServerProcess;
let wire: ExtWire;
const post: ExtWire['post'] = (...a) => wire.post(...a);
const call: ExtWire['call'] = (...a) => wire.call(...a);
const getTask: ExtWire['getTask'] = (...a) => wire.getTask(...a);
const until: ExtWire['until'] = (...a) => wire.until(...a);

beforeAll(async () => {
  assertCliBuilt();
  server = await spawnHttpServer();
  wire = extWire(server.url);
});
afterAll(async () => {
  await server?.close();
});

describe('the stateless 2026-07-28 wire', () => {
  it('should advertise the tasks extension, not the legacy tasks capability, in server/discover', async () => {
    const reply = await post('server/discover', {}, { caps: {} });
    expect(reply.status).toBe(200);
    const result = reply.body.result!;
    expect(result['resultType']).toBe('complete');
    expect(result['supportedVersions']).toEqual([EXT_VERSION]);
    expect(result).toMatchObject({ cacheScope: expect.any(String), ttlMs: 0, capabilities: { extensions: { [EXT_ID]: {} } } });
    expect((result['capabilities'] as Record<string, unknown>)['tasks']).toBeUndefined();
    expect(result['_meta']).toMatchObject({ 'io.modelcontextprotocol/serverInfo': { name: 'mcp-tasks' } });
  });

  it('should list the tools without execution.taskSupport', async () => {
    const tools = (await post('tools/list')).body.result!['tools'] as { name: string; execution?: unknown }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['sleep', 'long_job', 'fail', 'echo', 'ask_name', 'summarize']));
    expect(tools.every((t) => t.execution === undefined)).toBe(true);
  });

  it('should answer -32020 with the request id when Mcp-Method or Mcp-Name disagree with the body', async () => {
    expectError(await post('tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-method': 'tasks/get' } }), 400, -32020);
    expectError(await post('tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-method': undefined } }), 400, -32020);
    expectError(await post('tasks/get', { taskId: 'abc' }, { headers: { 'mcp-name': 'other' } }), 400, -32020);
    // A base64-encoded header value is decoded before the comparison.
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    expect((await post('tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-name': encoded } })).status).toBe(200);
  });

  it('should refuse a request without _meta (-32602), with an unknown version (-32022) or a version header that disagrees (-32020)', async () => {
    expectError(await post('tools/list', {}, { meta: null }), 400, -32602);
    const error = expectError(
      await post('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} }, headers: { 'mcp-protocol-version': '2099-01-01' } }),
      400,
      -32022,
    );
    expect(error.data).toEqual({ requested: '2099-01-01', supported: [EXT_VERSION] });
    // The version header and the _meta version must agree.
    expectError(await post('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } }), 400, -32020);
  });

  it('should answer removed methods with 404 -32601, with the extension declared', async () => {
    for (const method of ['tasks/result', 'tasks/list', 'ping', 'initialize']) {
      expectError(await post(method, method.startsWith('tasks/r') ? { taskId: 'x' } : {}), 404, -32601);
    }
  });
});

describe('tools/call with the tasks extension', () => {
  it('should answer synchronously without the extension, and ignore the legacy params.task', async () => {
    const result = await call('sleep', { ms: 1 }, { caps: {} });
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slept 1 ms' }] });
    const legacy = (await post('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } }, { caps: {} })).body.result!;
    expect(legacy).toMatchObject({ resultType: 'complete', content: [{ text: 'slept 1 ms' }] });
    expect(legacy['taskId']).toBeUndefined();
  });

  it('should answer a forbidden tool synchronously even with the extension declared', async () => {
    expect(await call('echo', { text: 'hi' })).toMatchObject({ resultType: 'complete', content: [{ text: 'hi' }] });
  });

  it('should answer with a flat task that tasks/get finds at once, then inline the result', async () => {
    const created = await call('sleep', { ms: 200 });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String), pollIntervalMs: expect.any(Number) });
    expect(Number.isInteger(created['ttlMs'])).toBe(true);
    for (const gone of ['task', 'ttl', 'pollInterval', 'result', 'requestState']) expect(created[gone]).toBeUndefined();
    const taskId = String(created['taskId']);
    expect((await getTask(taskId))['status']).toMatch(/working|completed/);
    const done = await until(taskId, isTerminal);
    expect(done).toMatchObject({ resultType: 'complete', status: 'completed', result: { content: [{ text: 'slept 200 ms' }] } });
    expect((done['result'] as Record<string, unknown>)['_meta']).toBeUndefined();
  });

  it('should complete a task whose tool reports isError', async () => {
    const { taskId } = await call('fail', { message: 'boom' });
    const done = await until(String(taskId), isTerminal);
    expect(done).toMatchObject({ status: 'completed', result: { isError: true, content: [{ text: 'boom' }] } });
  });

  it('should answer -32021 with requiredCapabilities for a required-task tool without the extension', async () => {
    const error = expectError(await post('tools/call', { name: 'long_job', arguments: { seconds: 1 } }, { caps: {} }), 400, -32021);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [EXT_ID]: {} } } });
  });

  it('should answer -32021 when a plain call needs input (no way to ask without a task)', async () => {
    expectError(await post('tools/call', { name: 'ask_name', arguments: {} }, { caps: { elicitation: {} } }), 400, -32021);
  });
});

describe('tasks/get, tasks/update and tasks/cancel', () => {
  it('should refuse the task methods without the extension (-32021) before looking up the id', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) expectError(await post(method, { taskId: 'gate-test' }, { caps: {} }), 400, -32021);
  });

  it('should answer -32602 for an unknown task', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) expectError(await post(method, { taskId: 'no-such-task' }), 200, -32602);
  });

  it('should list pending input requests and take the answer through tasks/update', async () => {
    const { taskId } = await call('ask_name', {}, { caps: { ...WITH_EXT, elicitation: {} } });
    const waiting = await until(String(taskId), (t) => t['status'] === 'input_required');
    const requests = waiting['inputRequests'] as Record<string, { method: string; params: { message: string } }>;
    const [key, request] = Object.entries(requests)[0]!;
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
    // Keys that are not outstanding are ignored; the real one is applied before the ack.
    const ack = await post('tasks/update', { taskId, inputResponses: { 'unknown-key': { ignored: true }, [key]: { action: 'accept', content: { name: 'Alice' } } } });
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(((await getTask(String(taskId)))['inputRequests'] as Record<string, unknown> | undefined)?.[key]).toBeUndefined();
    expect(await until(String(taskId), isTerminal)).toMatchObject({ status: 'completed', result: { content: [{ text: 'Hello, Alice' }] } });
  });

  it('should inline the JSON-RPC error of a failed task', async () => {
    const { taskId } = await call('summarize', { text: 'long text' }, { caps: { ...WITH_EXT, sampling: {} } });
    const waiting = await until(String(taskId), (t) => t['status'] === 'input_required');
    const [key] = Object.keys(waiting['inputRequests'] as object);
    // Not a CreateMessageResult: the tool cannot read it and fails.
    await post('tasks/update', { taskId, inputResponses: { [key!]: { nonsense: true } } });
    const done = await until(String(taskId), isTerminal);
    expect(done).toMatchObject({ status: 'failed', error: { code: expect.any(Number), message: expect.stringContaining('malformed') } });
    expect(done['result']).toBeUndefined();
  });

  it('should acknowledge cancel with an empty result, cancel cooperatively, and ack a terminal task again', async () => {
    const { taskId } = await call('long_job', { seconds: 30 });
    const ack = await post('tasks/cancel', { taskId });
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(await until(String(taskId), isTerminal)).toMatchObject({ status: 'cancelled' });
    expect((await post('tasks/cancel', { taskId })).body.result).toMatchObject({ resultType: 'complete' });
  });
});

describe('subscriptions/listen for task status', () => {
  it('should refuse task ids without the extension (-32021)', async () => {
    expectError(await post('subscriptions/listen', { notifications: { taskIds: ['x'] } }, { caps: {} }), 400, -32021);
  });

  it('should acknowledge the known ids, push DetailedTask notifications, and end once they are terminal', async () => {
    const { taskId } = await call('sleep', { ms: 300 });
    const meta = { 'io.modelcontextprotocol/protocolVersion': EXT_VERSION, 'io.modelcontextprotocol/clientCapabilities': WITH_EXT };
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': EXT_VERSION, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId, 'no-such-task'] }, _meta: meta } }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    // The server ends the stream itself once every subscribed task is terminal.
    const messages = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> });
    const sub = { 'io.modelcontextprotocol/subscriptionId': 'sub-1' };
    expect(messages[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [taskId] }, _meta: sub } });
    const updates = messages.filter((m) => m.method === 'notifications/tasks');
    expect(updates.length).toBeGreaterThan(0);
    for (const u of updates) expect(u.params).toMatchObject({ taskId, _meta: sub });
    expect(updates.at(-1)?.params).toMatchObject({ status: 'completed', result: { content: [{ text: 'slept 300 ms' }] } });
    expect(messages.at(-1)).toMatchObject({ id: 'sub-1', result: { resultType: 'complete', _meta: sub } });
  });
});

describe('subscriptions/listen and the poll rate', () => {
  let limited: HttpServerProcess | undefined;
  afterAll(async () => {
    await limited?.close();
  });

  /** Opens a listen for `taskIds` and reads its whole stream (the server ends it). */
  async function listen(url: string, taskIds: string[]): Promise<{ method?: string; params?: Record<string, unknown>; error?: { code: number } }[]> {
    const meta = { 'io.modelcontextprotocol/protocolVersion': EXT_VERSION, 'io.modelcontextprotocol/clientCapabilities': WITH_EXT };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': EXT_VERSION, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sub-rate', method: 'subscriptions/listen', params: { notifications: { taskIds }, _meta: meta } }),
    });
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return [JSON.parse(text) as { error?: { code: number } }];
    return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { method?: string; params?: Record<string, unknown> });
  }

  it('should push every change without spending the requester\'s polls, and refuse a listen over the rate with -32029', async () => {
    // One poll a second (bursts of two): each push of long_job's ten steps would be refused if it were charged.
    limited = await spawnHttpServer(['--max-polls-per-second', '1']);
    const wire2 = extWire(limited.url);
    const taskId = String((await wire2.call('long_job', { seconds: 1 }))['taskId']);
    const messages = await listen(limited.url, [taskId]);
    const updates = messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params!);
    expect(updates.length).toBeGreaterThan(4);
    expect(updates.at(-1)).toMatchObject({ taskId, status: 'completed' });
    // The requester's own reads are charged: spend the burst, then a listen is refused as a whole.
    const other = String((await wire2.call('sleep', { ms: 1 }))['taskId']);
    // The bucket refills at one a second: on a loaded machine a second may pass between the
    // refusal and the listen. So: spend it until refused, listen at once, and try again (bounded)
    // when a refill came between.
    let listenCode: number | undefined;
    for (let round = 0; round < 5 && listenCode !== -32029; round++) {
      let refused: { error?: { code: number } } | undefined;
      for (let i = 0; i < 5 && refused === undefined; i++) {
        const reply = await wire2.post('tasks/get', { taskId: other });
        if (reply.body.error?.code === -32029) refused = reply.body;
      }
      expect(refused?.error?.code).toBe(-32029);
      const [answer] = await listen(limited.url, [other]);
      listenCode = answer?.error?.code;
    }
    expect(listenCode).toBe(-32029);
  });
});

describe('the session-based dialects on the same endpoint', () => {
  it('should still serve a 2025-11-25 SDK session with tasks', async () => {
    const peer = await connectSdkClientTo(server);
    try {
      expect(peer.client.getServerCapabilities()?.tasks).toBeDefined();
      const tools = await peer.client.listTools();
      expect(tools.tools.find((t) => t.name === 'sleep')?.execution?.taskSupport).toBe('optional');
      const created = await peer.client.request({ method: 'tools/call', params: { name: 'sleep', arguments: { ms: 10 }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
      expect(created.task.status).toBe('working');
      // Tasks of the stateless wire belong to no session: this session cannot see them, nor they its.
      const listed = await peer.client.request({ method: 'tasks/list', params: {} }, z.looseObject({ tasks: z.array(z.looseObject({ taskId: z.string() })) }));
      expect(listed.tasks.map((t) => t.taskId)).toEqual([created.task.taskId]);
      expectError(await post('tasks/get', { taskId: created.task.taskId }), 200, -32602);
    } finally {
      await peer.close();
    }
  });
});

describe('the stateless wire with authentication', () => {
  let authed: HttpServerProcess | undefined;
  afterAll(async () => {
    await authed?.close();
  });

  it('should bind tasks to the principal: another principal gets -32602, an anonymous request 401', async () => {
    authed = await spawnHttpServer(['--auth-token', 'tok-a=alice', '--auth-token', 'tok-b=bob']);
    const asAlice = extWire(authed.url);
    const { taskId } = await asAlice.call('long_job', { seconds: 30 }, { headers: { authorization: 'Bearer tok-a' } });
    const byBob = await asAlice.post('tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-b' } });
    expectError(byBob, 200, -32602);
    expectError(await asAlice.post('tasks/cancel', { taskId }, { headers: { authorization: 'Bearer tok-b' } }), 200, -32602);
    expect((await asAlice.post('tasks/get', { taskId }, { headers: { authorization: 'Bearer tok-a' } })).body.result?.['status']).toBe('working');
    expect((await asAlice.post('tasks/get', { taskId })).status).toBe(401);
    await asAlice.post('tasks/cancel', { taskId }, { headers: { authorization: 'Bearer tok-a' } });
  });
});
