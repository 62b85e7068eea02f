/**
 * Push notifications end to end through `mcp-tasks serve --push-allow`: a requester registers a
 * webhook in `_meta["io.github.mcp-task-actors/push"]` of its task-creating request, and a
 * loopback receiver gets signed events (every dialect; retried after 500s; only on allowed URLs).
 * On NATS, a worker SIGKILLed between two deliveries of a task loses neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPush } from '../../runtime/push/push-signing.js';
import { closeNodes, describeNodes, freshPrefix, pollUntil, startNodes, waitForRunner, type ClusterNode } from './harness/cluster.js';
import { extWire, isTerminal, WITH_EXT } from './harness/ext-wire.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok, type Rec } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { create2025, createSep, expectError, INVALID_PARAMS } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';
import { startReceiver, statuses, type Received } from './harness/webhook-receiver.js';

const PUSH = 'io.github.mcp-task-actors/push';
const SECRET = 'a-requester-chosen-secret-0123456789';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const bodyOf = (r: Received): Rec => JSON.parse(r.body) as Rec;
const eventsFor = (receiver: Receiver, taskId: string): Rec[] => receiver.requests.map(bodyOf).filter((b) => b['taskId'] === taskId);
const pushMeta = (url: string, more: Rec = {}): Rec => ({ [PUSH]: { url, secret: SECRET, ...more } });

/** Every request `receiver` got carries a signature that verifies with the requester's secret. */
function expectSigned(receiver: Receiver): void {
  for (const r of receiver.requests) expect(verifyPush(r.body, r.headers, SECRET), `signature of ${r.body}`).toBe(true);
}

describe('push notifications on memory', () => {
  let server: HttpServerProcess;
  let allowed: Receiver;
  let forbidden: Receiver;
  let wire: Wire;

  beforeAll(async () => {
    // The first two deliveries fail with 500; every later one is taken.
    allowed = await startReceiver(statuses(500, 500, 200));
    forbidden = await startReceiver(statuses(200));
    server = await spawnHttpServer(['--push-allow', `${allowed.base}/hooks/`]);
    wire = await attachHttpWire(server.url, () => server.stderr());
  });
  afterAll(async () => {
    await wire?.close();
    await server?.close();
    await allowed?.close();
    await forbidden?.close();
  });

  it('2025-11-25: the terminal event arrives signed, after the receiver answered 500 twice', async () => {
    const { taskId } = await create2025(wire, 'sleep', { ms: 50 }, { meta: pushMeta(`${allowed.base}/hooks/a`) });
    const got = await pollUntil('three attempts', async () => eventsFor(allowed, taskId), (e) => e.length >= 3, { timeoutMs: 15_000 });
    // The same event each time (at least once: its id is the receiver's idempotency key).
    expect(got.map((e) => [e['status'], e['eventId']])).toEqual(Array(3).fill(['completed', got[0]!['eventId']]));
    expect(got[0]).toMatchObject({ type: 'io.github.mcp-task-actors/task-status', taskId, dialect: '2025-11-25', label: 'sleep' });
    expectSigned(allowed);
    expect(allowed.requests[0]!.path).toBe('/hooks/a');
  });

  it('refuses a URL the operator did not allow, and never calls it', async () => {
    for (const url of [`${forbidden.base}/hooks/a`, `${allowed.base}/other`, `${allowed.base.replace('127.0.0.1', 'localhost')}/hooks/a`]) {
      const reply = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 }, _meta: pushMeta(url) });
      expectError(reply, INVALID_PARAMS, 'not one this server');
    }
    expectError(await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: {}, _meta: pushMeta(`${allowed.base}/hooks/a`, { secret: 'short' }) }), INVALID_PARAMS, 'secret');
    // A task that did run (no webhook) gives the forbidden receiver nothing either.
    await create2025(wire, 'sleep', { ms: 1 });
    expect(forbidden.requests).toEqual([]);
  });

  it('SEP-1686 and 2026-07-28: registered the same way; a requester-wide webhook covers its later tasks', async () => {
    const sep = await createSep(wire, 'sleep', { ms: 10 }, { meta: pushMeta(`${allowed.base}/hooks/sep`, { scope: 'requester' }) });
    ok(await wire.responseFor(sep.requestId, 10_000));
    // A later task of the same requester (session), registering nothing itself.
    const later = await create2025(wire, 'sleep', { ms: 10 });
    const ext = extWire(server.url);
    const extTask = String((await ext.call('sleep', { ms: 10 }, { meta: { ...extMeta(), ...pushMeta(`${allowed.base}/hooks/ext`) } }))['taskId']);
    for (const id of [sep.taskId, later.taskId, extTask]) {
      await pollUntil(`the completed event of ${id}`, async () => eventsFor(allowed, id), (e) => e.some((b) => b['status'] === 'completed'), { timeoutMs: 10_000 });
    }
    expect(allowed.requests.filter((r) => bodyOf(r)['taskId'] === later.taskId).every((r) => r.path === '/hooks/sep')).toBe(true);
    expectSigned(allowed);
  });

  it("a task's own webhook and its requester's both get the event; a refused duplicate id leaves the live task's webhook alone", async () => {
    const w = await attachHttpWire(server.url, () => server.stderr());
    const first = await create2025(w, 'sleep', { ms: 10 }, { meta: pushMeta(`${allowed.base}/hooks/wide`, { scope: 'requester' }) });
    const both = await create2025(w, 'sleep', { ms: 10 }, { meta: pushMeta(`${allowed.base}/hooks/own`) });
    const paths = await pollUntil('both webhooks', async () => allowed.requests.filter((r) => bodyOf(r)['taskId'] === both.taskId).map((r) => r.path), (p) => p.includes('/hooks/own') && p.includes('/hooks/wide'), { timeoutMs: 10_000 });
    expect(new Set(paths)).toEqual(new Set(['/hooks/own', '/hooks/wide']));
    await pollUntil('the first task delivered', async () => eventsFor(allowed, first.taskId), (e) => e.length > 0);
    // SEP-1686: the requester chooses ids; a second create under a live one is refused before its webhook is kept.
    const sep = await createSep(w, 'sleep', { ms: 300 }, { meta: pushMeta(`${allowed.base}/hooks/sep-first`) });
    const again = await w.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, _meta: { 'modelcontextprotocol.io/task': { taskId: sep.taskId }, ...pushMeta(`${allowed.base}/hooks/sep-thief`) } });
    expect(again.error, JSON.stringify(again)).toBeDefined();
    ok(await w.responseFor(sep.requestId, 10_000));
    const sepPaths = await pollUntil('the SEP task delivered', async () => allowed.requests.filter((r) => bodyOf(r)['taskId'] === sep.taskId).map((r) => r.path), (p) => p.length > 0);
    expect(new Set(sepPaths)).toEqual(new Set(['/hooks/sep-first', '/hooks/wide']));
    await w.close();
  });

  it('refuses a requester-wide webhook of an anonymous requester on the stateless wire (every anonymous caller shares its owner)', async () => {
    const reply = await extWire(server.url).post('tools/call', { name: 'sleep', arguments: { ms: 1 } }, { meta: { ...extMeta(), ...pushMeta(`${allowed.base}/hooks/x`, { scope: 'requester' }) } });
    expect(reply.body.error).toMatchObject({ code: INVALID_PARAMS, message: expect.stringContaining('scope "requester" needs') });
  });

  it("input_required is pushed, then the end (extension wire, answered with tasks/update)", async () => {
    const ext = extWire(server.url);
    const caps = { ...WITH_EXT, elicitation: {} };
    const taskId = String((await ext.call('ask_name', {}, { meta: { ...extMeta(caps), ...pushMeta(`${allowed.base}/hooks/ask`) } }))['taskId']);
    await pollUntil('input_required pushed', async () => eventsFor(allowed, taskId), (e) => e.some((b) => b['status'] === 'input_required'), { timeoutMs: 10_000 });
    const waiting = await ext.until(taskId, (t) => t['status'] === 'input_required');
    const [key] = Object.keys(waiting['inputRequests'] as Rec);
    await ext.post('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } } });
    await ext.until(taskId, isTerminal);
    const events = await pollUntil('completed pushed', async () => eventsFor(allowed, taskId), (e) => e.some((b) => b['status'] === 'completed'), { timeoutMs: 10_000 });
    expect([...new Set(events.map((e) => e['status']))]).toEqual(['input_required', 'completed']);
  });
});

/** The extension wire's per-request `_meta` (the ext harness replaces `_meta` whole when given one). */
function extMeta(caps: Rec = WITH_EXT): Rec {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'push-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': caps,
  };
}

describe('push notifications on NATS: a worker SIGKILLed between two deliveries loses neither', () => {
  let nats: NatsServer;
  let nodes: ClusterNode[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(statuses(200));
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('push');
    const flags = ['--push-allow', `${receiver.base}/`, '--push-ack-wait', '2000', '--lease-ttl', '1500'];
    nodes = await startNodes([
      { label: 'front', role: 'front', nats: nats.url, prefix, flags },
      { label: 'w1', role: 'worker', nats: nats.url, prefix, flags },
      { label: 'w2', role: 'worker', nats: nats.url, prefix, flags },
    ]);
  }, 60_000);
  afterAll(async () => {
    await closeNodes(nodes);
    await nats?.stop();
    await receiver?.close();
  }, 30_000);

  it('input_required is delivered, its worker dies, and the end is delivered too', async () => {
    const diag = (): string => describeNodes(nodes);
    const ext = extWire(nodes[0]!.url);
    const caps = { ...WITH_EXT, elicitation: {} };
    const taskId = String((await ext.call('ask_name', {}, { meta: { ...extMeta(caps), ...pushMeta(`${receiver.base}/hook`, { events: 'all' }) } }))['taskId']);
    await pollUntil('input_required delivered', async () => eventsFor(receiver, taskId), (e) => e.some((b) => b['status'] === 'input_required'), { timeoutMs: 15_000, diagnostics: diag });
    const { node } = await waitForRunner(nodes.slice(1), taskId, { diagnostics: diag });
    await node.crash();
    const waiting = await ext.until(taskId, (t) => t['status'] === 'input_required');
    const [key] = Object.keys(waiting['inputRequests'] as Rec);
    await ext.post('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Kim' } } } });
    expect(await ext.until(taskId, isTerminal, 20_000)).toMatchObject({ status: 'completed', result: { content: [{ text: 'Hello, Kim' }] } });
    await pollUntil('completed delivered', async () => eventsFor(receiver, taskId), (e) => e.some((b) => b['status'] === 'completed'), { timeoutMs: 20_000, diagnostics: diag });
    expectSigned(receiver);
  }, 60_000);
});
