/**
 * Intermediate results (SEP-1686 "Future Work"), black-box through `mcp-tasks serve`: `long_job`
 * publishes `step i/10 done` at the end of each step, and a requester reads them while it runs
 * with a cursor in `_meta["io.github.mcp-task-actors/partial"]` on `tasks/get` (both backends,
 * session and extension wires); where the dialect has a push channel (2025-11-25 status
 * notifications) they come with the notifications, and a long task's stream gets a heartbeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from './harness/cluster.js';
import { extWire, type ExtWire } from './harness/ext-wire.js';
import { attachHttpWire } from './harness/http-wire.js';
import { metaOf, ok, sleep, type Rec } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer } from './harness/process.js';
import { connectStdio } from './harness/stdio-wire.js';
import { create2025, expectError } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const PARTIAL = 'io.github.mcp-task-actors/partial';
const STEPS = Array.from({ length: 10 }, (_, i) => `step ${i + 1}/10 done`);

interface Item {
  readonly seq: number;
  readonly at: number;
  readonly content: { type: string; text: string }[];
}
interface Partials {
  readonly items: Item[];
  readonly nextCursor: string;
  readonly total: number;
}

const partialsOf = (answer: Rec): Partials => {
  const p = metaOf(answer)?.[PARTIAL] as Partials | undefined;
  if (p === undefined) throw new Error(`no ${PARTIAL} in ${JSON.stringify(answer)}`);
  return p;
};

/** Reads a task's partial results with the cursor until it ends: every item read, and how many reads brought something. */
async function readAll(get: (cursor: string | undefined) => Promise<Rec>): Promise<{ items: Item[]; reads: number; final: Partials }> {
  const items: Item[] = [];
  let cursor: string | undefined;
  let reads = 0;
  for (let i = 0; i < 400; i++) {
    const answer = await get(cursor);
    const p = partialsOf(answer);
    if (p.items.length > 0) reads++;
    items.push(...p.items);
    cursor = p.nextCursor;
    if (['completed', 'failed', 'cancelled'].includes(String(answer['status']))) return { items, reads, final: p };
    await sleep(40);
  }
  throw new Error('the task did not end');
}

/** `subscriptions/listen` on `url` for `taskId` until the server ends the stream: the task notifications. */
async function listen(url: string, taskId: string): Promise<Rec[]> {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'sub', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: meta } }),
  });
  return (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { method?: string; params?: Rec })
    .filter((m) => m.method === 'notifications/tasks')
    .map((m) => m.params!);
}

function expectSteps(items: readonly Item[]): void {
  // Nothing missed, nothing repeated, in order.
  expect(items.map((i) => i.seq)).toEqual(STEPS.map((_, i) => i + 1));
  expect(items.map((i) => i.content[0]?.text)).toEqual(STEPS);
}

describe.each([
  {
    name: 'memory',
    start: async () => {
      const s = await spawnHttpServer();
      return { url: s.url, close: () => s.close(), diag: () => s.stderr() };
    },
  },
  {
    name: 'NATS (front + worker)',
    start: async () => {
      const nats: NatsServer = await startNatsServer({ jetstream: true });
      const prefix = freshPrefix('partials');
      const nodes: ClusterNode[] = await startNodes([
        { label: 'front', role: 'front', nats: nats.url, prefix },
        { label: 'w1', role: 'worker', nats: nats.url, prefix },
      ]);
      return {
        url: nodes[0]!.url,
        diag: () => describeNodes(nodes),
        close: async () => {
          await closeNodes(nodes);
          await nats.stop();
        },
      };
    },
  },
])('partial results on $name', ({ start }) => {
  let backend: { url: string; close(): Promise<void>; diag(): string };
  let wire: Wire;
  let ext: ExtWire;

  beforeAll(async () => {
    backend = await start();
    wire = await attachHttpWire(backend.url, () => backend.diag());
    ext = extWire(backend.url);
  }, 60_000);
  afterAll(async () => {
    await wire?.close();
    await backend?.close();
  }, 30_000);

  it('2025-11-25: reads long_job\'s steps with a cursor while it runs, nothing missed or repeated', async () => {
    const { taskId } = await create2025(wire, 'long_job', { seconds: 1.5 });
    const read = await readAll(async (cursor) => ok(await wire.request('tasks/get', { taskId, _meta: { [PARTIAL]: cursor === undefined ? {} : { cursor } } })));
    expectSteps(read.items);
    // Read as they came, not all at the end.
    expect(read.reads).toBeGreaterThan(2);
    expect(read.final).toMatchObject({ total: 10, nextCursor: '10' });
    // Kept with the task: read again from the start after it ended.
    const again = partialsOf(ok(await wire.request('tasks/get', { taskId, _meta: { [PARTIAL]: { cursor: '0' } } })));
    expectSteps(again.items);
    // A plain tasks/get carries none; a cursor that was never given is refused.
    expect(metaOf(ok(await wire.request('tasks/get', { taskId })))?.[PARTIAL]).toBeUndefined();
    expectError(await wire.request('tasks/get', { taskId, _meta: { [PARTIAL]: { cursor: 'abc' } } }), -32602, 'partial-result cursor');
    // Nor one past the last result: taken, it would hide every result to come.
    expectError(await wire.request('tasks/get', { taskId, _meta: { [PARTIAL]: { cursor: '11' } } }), -32602, 'partial-result cursor');
  });

  it('2026-07-28 extension: the same cursor on tasks/get', async () => {
    const taskId = String((await ext.call('long_job', { seconds: 1 }))['taskId']);
    const meta = (cursor: string | undefined): Rec => ({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'partials-test', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      [PARTIAL]: cursor === undefined ? {} : { cursor },
    });
    const read = await readAll(async (cursor) => {
      const reply = await ext.post('tasks/get', { taskId }, { meta: meta(cursor) });
      expect(reply.body.error).toBeUndefined();
      return reply.body.result!;
    });
    expectSteps(read.items);
    const bad = await ext.post('tasks/get', { taskId }, { meta: { ...meta(undefined), [PARTIAL]: { cursor: -1 } } });
    expect(bad.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('partial-result cursor') });
  });

  it('2026-07-28 extension: subscriptions/listen pushes each step once, as it comes', async () => {
    const taskId = String((await ext.call('long_job', { seconds: 1 }))['taskId']);
    const notes = await listen(backend.url, taskId);
    expectSteps(notes.flatMap((n) => (metaOf(n)?.[PARTIAL] as Partials | undefined)?.items ?? []));
    expect(notes.filter((n) => metaOf(n)?.[PARTIAL] !== undefined).length, 'pushed over several notifications').toBeGreaterThan(2);
  });
});

describe('heartbeat on subscriptions/listen', () => {
  it('pushes a task nothing changed about every heartbeat', async () => {
    const server = await spawnHttpServer(['--heartbeat', '200']);
    try {
      const taskId = String((await extWire(server.url).call('sleep', { ms: 1_300 }))['taskId']);
      const notes = await listen(server.url, taskId);
      // The state at subscription, then a beat every 200 ms of the 1.3 s: 5 or more while working.
      expect(notes.filter((n) => n['status'] === 'working').length, JSON.stringify(notes)).toBeGreaterThanOrEqual(5);
      expect(notes.at(-1)?.['status']).toBe('completed');
    } finally {
      await server.close();
    }
  });
});

describe('partial results and heartbeat on the 2025-11-25 push channel (stdio)', () => {
  let wire: Wire;
  beforeAll(async () => {
    wire = await connectStdio(['--heartbeat', '200']);
  });
  afterAll(async () => {
    await wire?.close();
  });

  const statusNotes = (taskId: string): Rec[] =>
    wire.notifications.filter((n) => n.method === 'notifications/tasks/status' && n.params?.['taskId'] === taskId).map((n) => n.params as Rec);

  it('status notifications carry every step, each once', async () => {
    const { taskId } = await create2025(wire, 'long_job', { seconds: 1 });
    await wire.waitForNotification((n) => n.method === 'notifications/tasks/status' && n.params?.['taskId'] === taskId && n.params?.['status'] === 'completed', 10_000);
    const items = statusNotes(taskId).flatMap((n) => (metaOf(n)?.[PARTIAL] as Partials | undefined)?.items ?? []);
    expectSteps(items);
  });

  it('a task running longer than the heartbeat is told again every heartbeat, with nothing else changing', async () => {
    const { taskId } = await create2025(wire, 'sleep', { ms: 1_300 });
    // When each beat arrived, watched every 10 ms until the task completed.
    const at: number[] = [];
    const working = (): number => statusNotes(taskId).filter((n) => n['status'] === 'working').length;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(10)) {
      while (at.length < working()) at.push(Date.now());
      if (statusNotes(taskId).some((n) => n['status'] === 'completed')) break;
    }
    expect(statusNotes(taskId).some((n) => n['status'] === 'completed')).toBe(true);
    // Running 1.3 s with a 200 ms heartbeat (none before it is 200 ms old): 4 or more beats, a beat apart.
    expect(at.length, JSON.stringify(statusNotes(taskId))).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!, 'beats are a heartbeat apart').toBeGreaterThanOrEqual(120);
  });
});
