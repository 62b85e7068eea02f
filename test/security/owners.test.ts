/**
 * Every requester its own owner (issue 31, item 2). On NATS every `serve --stdio` process and every
 * anonymous 2026-07-28 HTTP caller used to be the same owner (no session, no principal), so two
 * stdio users of one task space listed, read and cancelled each other's tasks, and saw the
 * anonymous HTTP callers' tasks too. Now:
 * - each stdio connection is its own owner, on SDK v1 and v2, in every dialect it speaks;
 * - an anonymous 2026-07-28 task is reachable only by its id (a bearer handle the server chose):
 *   another anonymous caller holding the id reaches it, a stdio user never does, and no
 *   `tasks/list` shows it.
 *
 * One nats-server; stdio nodes and one HTTP node join it as separate processes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extWire, EXT_VERSION, WITH_EXT } from '../integration/harness/ext-wire.js';
import { ok, type Rec } from '../integration/harness/json.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from '../integration/harness/process.js';
import { connectStdio } from '../integration/harness/stdio-wire.js';
import { create2025, createSep, INVALID_PARAMS, listAll, NOT_FOUND } from '../integration/harness/task-calls.js';
import type { Wire } from '../integration/harness/types.js';

const EXT_META = {
  'io.modelcontextprotocol/protocolVersion': EXT_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'owners-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': WITH_EXT,
};

/** A 2026-07-28 task over stdio: its id. */
async function createExtOverStdio(wire: Wire): Promise<string> {
  const result = ok(await wire.request('tools/call', { name: 'sleep', arguments: { ms: 60_000 }, _meta: EXT_META }));
  expect(result['resultType']).toBe('task');
  return String(result['taskId']);
}

/** What a session dialect's look-up of `taskId` answers: 'found' or the error message. */
async function lookUp(wire: Wire, method: string, taskId: string): Promise<string> {
  const res = await wire.request(method, { taskId });
  if (res.error === undefined) return 'found';
  expect(res.error.code).toBe(INVALID_PARAMS);
  return res.error.message;
}

/** What a 2026-07-28 `tasks/get` over stdio answers for `taskId`. */
async function lookUpExt(wire: Wire, taskId: string): Promise<string> {
  const res = await wire.request('tasks/get', { taskId, _meta: EXT_META });
  return res.error === undefined ? 'found' : res.error.message;
}

describe.each([
  { sdk: 'v1', flags: [] as string[] },
  { sdk: 'v2', flags: ['--sdk', 'v2'] },
])('owners on NATS, serve --sdk $sdk', ({ sdk, flags }) => {
  let nats: NatsServer;
  let http: HttpServerProcess;
  let a: Wire;
  let b: Wire;
  beforeAll(async () => {
    nats = await startNatsServer();
    const cluster = ['--nats', nats.url, '--nats-prefix', `owners${sdk}`, '--max-polls-per-second', 'off'];
    // The HTTP node is SDK v1's in both: `serve --sdk v2 --nats --http` is refused (its sessions
    // stay in one process); the stdio users speak through the SDK line under test.
    [a, b, http] = await Promise.all([connectStdio([...flags, ...cluster]), connectStdio([...flags, ...cluster]), spawnHttpServer(cluster)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close(), http?.close()]);
    await nats?.[Symbol.asyncDispose]();
  });

  it('should keep two stdio users apart in every dialect they speak: no listing, reading or cancelling of the other\'s tasks', async () => {
    const own = [(await create2025(a, 'sleep', { ms: 60_000 })).taskId, await createExtOverStdio(a)];
    if (sdk === 'v1') own.push((await createSep(a, 'sleep', { ms: 60_000 }, { taskId: randomUUID() })).taskId);
    // A sees its own tasks; B none of them, and every look-up answers as for an id never used.
    const listedByA = (await listAll(a)).map((t) => t['taskId']);
    for (const id of own.filter((_, i) => i !== 1)) expect(listedByA).toContain(id);
    const listedByB = (await listAll(b)).map((t) => t['taskId']);
    for (const id of own) expect(listedByB).not.toContain(id);
    for (const id of own) {
      expect(await lookUp(b, 'tasks/get', id)).toBe(NOT_FOUND);
      expect(await lookUpExt(b, id)).toMatch(/not found/i);
    }
    expect(await lookUp(b, 'tasks/cancel', own[0]!)).toMatch(/not found/i);
    // Still A's, still running.
    const mine = ok(await a.request('tasks/get', { taskId: own[0]! }));
    expect(mine['status']).toBe('working');
    expect(await lookUpExt(a, own[1]!)).toBe('found');
  });

  it('should let an anonymous 2026-07-28 task be reached by its id over HTTP alone, never by a stdio user nor in a listing', async () => {
    const creator = extWire(http.url);
    const created = await creator.call('sleep', { ms: 60_000 });
    expect(created['resultType']).toBe('task');
    const taskId = String(created['taskId']);
    // Another anonymous caller with the id: the id is the handle.
    const holder = extWire(http.url);
    expect((await holder.getTask(taskId))['status']).toBe('working');
    // Stdio users: not in their listings, not reachable by id in any dialect.
    for (const user of [a, b]) {
      expect((await listAll(user)).map((t: Rec) => t['taskId'])).not.toContain(taskId);
      expect(await lookUp(user, 'tasks/get', taskId)).toBe(NOT_FOUND);
      expect(await lookUpExt(user, taskId)).toMatch(/not found/i);
      expect(await lookUp(user, 'tasks/cancel', taskId)).toMatch(/not found/i);
    }
    expect((await holder.getTask(taskId))['status']).toBe('working');
    await holder.post('tasks/cancel', { taskId });
    expect((await creator.until(taskId, (t) => t['status'] === 'cancelled'))['status']).toBe('cancelled');
  });
});
