/**
 * Storage that returns to empty: once its tasks have expired (or been deleted), a task space's
 * streams hold nothing of them, no KV delete or purge marker either, and every node still says
 * "expired" for the most recent of them. A front node and a worker on a real nats-server.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { LeaseManager } from '../../runtime/backends/nats/leases.js';
import { RecordStore } from '../../runtime/backends/nats/record-store.js';
import { applyEvent, newRecord } from '../../runtime/backends/nats/task-record.js';
import { taskEvents } from '../../machines/index.js';
import { ownerKeyOf } from '../../runtime/task-identity.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's1', principal: null };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
let prefixSeq = 0;

async function pair(extra: NatsTaskRuntimeOptions = {}): Promise<{ front: NatsTaskRuntime; worker: NatsTaskRuntime; prefix: string }> {
  const prefix = `st${++prefixSeq}`;
  const open = async (role: 'front' | 'worker'): Promise<NatsTaskRuntime> => {
    const r = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role, nodeId: `${prefix}-${role}`, ...extra });
    r.registerHandler('echo', async (p) => p);
    r.registerHandler('big', async (p) => ({ text: 'x'.repeat((p as { n: number }).n) }));
    r.registerHandler('fail', async () => {
      throw new Error('failed on purpose');
    });
    r.registerHandler('hold', async (_p, ctx) => delay(60_000, null, { signal: ctx.signal }));
    r.registerHandler('ask', async (_p, ctx) => ({ got: await ctx.requestInput('elicitation/create', { message: 'name?' }) }));
    runtimes.push(r);
    return r;
  };
  return { front: await open('front'), worker: await open('worker'), prefix };
}

/** Messages in each stream of the task space (KV buckets included: their streams are `KV_<prefix>_*`). */
async function streamMessages(r: NatsTaskRuntime, prefix: string): Promise<Record<string, number>> {
  const jsm = await jetstreamManager(r.connection);
  const out: Record<string, number> = {};
  for await (const s of jsm.streams.list()) {
    const name = s.config.name;
    if (name.startsWith(`${prefix}_`) || name.startsWith(`KV_${prefix}_`)) out[name] = s.state.messages;
  }
  return out;
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string, params: unknown, keepAlive: number) =>
  r.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler, params, keepAlive });

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('NATS storage after tasks end', () => {
  it('leaves no message of an expired or deleted task in any stream, and says "expired" on every node', async () => {
    // Limits on: the running-task claims (one entry per owner) are part of the task space too.
    const { front, worker, prefix } = await pair({ limits: { maxResultBytes: null, maxConcurrentTasks: 100, createsPerSecond: null, pollsPerSecond: null } });
    // Long enough for the streams to be seen holding the tasks right after they are created.
    const keepAlive = 4_000;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await create(front, `echo-${i}`, 'echo', { i }, keepAlive)).taskId);
    // 10 KB: kept in the results bucket; 1.5 MB: in chunks there.
    ids.push((await create(front, 'mid', 'big', { n: 10_000 }, keepAlive)).taskId);
    ids.push((await create(front, 'huge', 'big', { n: 1_500_000 }, keepAlive)).taskId);
    for (let i = 0; i < 5; i++) ids.push((await create(front, `fail-${i}`, 'fail', {}, keepAlive)).taskId);
    for (let i = 0; i < 5; i++) ids.push((await create(front, `hold-${i}`, 'hold', {}, keepAlive)).taskId);
    ids.push((await create(front, 'asked', 'ask', {}, keepAlive)).taskId);
    // Deleted before their retention ends: their retention timer stays queued until it is due
    // (then finds nothing to remove).
    for (let i = 0; i < 5; i++) await create(front, `gone-${i}`, 'echo', { i }, keepAlive);
    // While retained, the streams do hold the tasks (so the count below is not empty by accident).
    const during = await streamMessages(front, prefix);
    expect(during[`KV_${prefix}_snapshots`]).toBeGreaterThan(0);

    for (let i = 0; i < 5; i++) {
      await vi.waitFor(async () => expect((await front.get(`hold-${i}`, owner)).status).toBe('working'), { timeout: 5_000 });
      await front.cancel(`hold-${i}`, owner);
    }
    await vi.waitFor(async () => expect((await front.get('asked', owner)).status).toBe('input_required'), { timeout: 5_000 });
    await front.cancel('asked', owner);
    for (let i = 0; i < 5; i++) {
      await front.waitForTerminal(`gone-${i}`, owner, { timeout: 5_000 });
      await front.delete(`gone-${i}`, owner);
    }
    const perTask = [`KV_${prefix}_snapshots`, `KV_${prefix}_results`, `KV_${prefix}_leases`, `${prefix}_events`, `${prefix}_index`, `${prefix}_work`, `${prefix}_timers_work`];
    await vi.waitFor(
      async () => {
        const now = await streamMessages(front, prefix);
        for (const name of perTask) expect({ name, messages: now[name] }).toEqual({ name, messages: 0 });
      },
      { timeout: 25_000, interval: 200 },
    );
    const left = await streamMessages(front, prefix);
    // What may stay is per node (heartbeats) and per owner (its running-task count), not per task.
    const total = Object.values(left).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(2 + 1);

    for (const r of [front, worker]) {
      for (const id of ['echo-0', 'huge', 'fail-0', 'hold-0', 'asked']) await expect(r.get(id, owner)).rejects.toMatchObject({ name: 'TaskExpiredError' });
      // A deleted task is not an expired one.
      await expect(r.get('gone-0', owner)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    }
    // The id is free again, and its new task is not taken for the expired one.
    await create(worker, 'echo-0', 'echo', { again: true }, keepAlive);
    expect((await front.waitForOutcome('echo-0', owner, { timeout: 5_000 })).result).toEqual({ again: true });
  }, 60_000);

  it('remembers the most recent expiredMemory expiries on every node, then answers "not found"', async () => {
    const { front, worker, prefix } = await pair({ expiredMemory: 2 });
    for (const id of ['a', 'b', 'c']) {
      await create(front, id, 'echo', {}, 100);
      // One after the other, so the order of removal is the order of creation: removed (its record
      // is there once create returns), not only past its retention, which reads as expired before
      // the timer has run.
      await vi.waitFor(async () => expect((await streamMessages(front, prefix))[`KV_${prefix}_snapshots`]).toBe(0), { timeout: 10_000, interval: 50 });
    }
    for (const r of [front, worker]) {
      // Each node hears of every removal, whichever node's timer made it.
      await vi.waitFor(async () => expect(r.get('c', owner)).rejects.toMatchObject({ name: 'TaskExpiredError' }), { timeout: 2_000, interval: 20 });
      await expect(r.get('b', owner)).rejects.toMatchObject({ name: 'TaskExpiredError' });
      await expect(r.get('a', owner)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    }
  });

  it('finishes a removal that stopped half-way (its record marked, the rest still there) when the timer comes', async () => {
    const { front, prefix } = await pair();
    await create(front, 'half', 'echo', { x: 1 }, 500);
    await front.waitForTerminal('half', owner, { timeout: 5_000 });
    // What a removal leaves when NATS goes away after its first step: the record's marker.
    const kv = await new Kvm(front.connection).open(`${prefix}_snapshots`);
    await kv.delete(taskKey({ ownerKey: ownerKeyOf(owner), taskId: 'half' }));
    const perTask = [`KV_${prefix}_snapshots`, `KV_${prefix}_leases`, `${prefix}_events`, `${prefix}_index`, `${prefix}_timers_work`];
    const before = await streamMessages(front, prefix);
    expect(before[`${prefix}_events`]).toBeGreaterThan(0);
    // Before: the timer found no record and stopped there; the marker, events and index entry stayed.
    await vi.waitFor(
      async () => {
        const now = await streamMessages(front, prefix);
        for (const name of perTask) expect({ name, messages: now[name] }).toEqual({ name, messages: 0 });
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('queues the retention timer of a task whose worker died between its end and its timer', async () => {
    // A front node only: the task's run is queued, and no worker of ours takes it.
    const prefix = `st${++prefixSeq}`;
    const front = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role: 'front', nodeId: `${prefix}-front` });
    runtimes.push(front);
    front.registerHandler('echo', async (p) => p);
    await create(front, 'orphan', 'echo', { y: 1 }, 300);
    // A worker "ghost" takes it and writes its end, then dies: its lease is never released, and
    // its retention timer never queued (the record is moved here without the runtime's write path).
    const key = taskKey({ ownerKey: ownerKeyOf(owner), taskId: 'orphan' });
    const leases = await LeaseManager.open(front.connection, { bucketPrefix: prefix });
    expect(await leases.acquire(key, 'ghost', 500)).not.toBeNull();
    const store = await RecordStore.open(front.connection, { prefix, replicas: 1, storage: 'file' }, 'ghost');
    const at = Date.now();
    const ended = await store.mutate(key, (r) => {
      const started = applyEvent({ ...r, attempts: 1, node: 'ghost' }, taskEvents.start(at));
      return started && applyEvent({ ...started, inline: { value: { y: 1 } }, hasResult: true }, taskEvents.complete('inline', at));
    });
    expect(ended?.record.status).toBe('completed');
    expect((await front.get('orphan', owner)).status).toBe('completed');
    // Before: nothing would ever remove it (past its retention it only reads as expired). The
    // front's failover monitor takes the lost lease, finds the task ended, and queues its timer;
    // the task is then removed like any other.
    await vi.waitFor(async () => expect(await store.read(key)).not.toMatchObject({ found: expect.anything() }), { timeout: 10_000, interval: 100 });
    await vi.waitFor(async () => expect((await streamMessages(front, prefix))[`KV_${prefix}_snapshots`]).toBe(0), { timeout: 5_000, interval: 100 });
  });

  it('forgets, on the node that created it, a task another node ended and removed', async () => {
    const layout = { prefix: `st${++prefixSeq}`, replicas: 1, storage: 'file' } as const;
    const [ncA, ncB] = [await connectNats({ servers: server.url }), await connectNats({ servers: server.url })];
    const creator = await RecordStore.open(ncA, layout, 'creator');
    const stop = creator.removal.listen();
    const other = await RecordStore.open(ncB, layout, 'other');
    const input = { taskId: 'made-here', owner, dialect: 'sep-1686', method: 'tools/call', label: null, keepAlive: 1, pollFrequency: 1_000, createdAt: 1 } as const;
    const key = taskKey({ ownerKey: ownerKeyOf(owner), taskId: 'made-here' });
    await creator.create(key, ownerKeyOf(owner), newRecord(input, null));
    expect(creator.revisionsKept).toBe(1);
    // Run, ended and removed by another node: the creator never writes it again.
    const ended = await other.mutate(key, (r) => applyEvent(r, taskEvents.start(2)));
    const done = await other.mutate(key, (r) => applyEvent(r, taskEvents.complete('inline', 3)));
    expect(done?.record.status).toBe('completed');
    await other.removal.remove(key, done!.record, { expired: true });
    expect(ended).not.toBeNull();
    // Before: kept for good, one entry per such task (the soak's heap grew with every task).
    await vi.waitFor(() => expect(creator.revisionsKept).toBe(0), { timeout: 2_000, interval: 10 });
    stop();
    await Promise.all([ncA.close(), ncB.close()]);
  });

  it('leaves alone a task created again under the id of one whose removal stopped half-way', async () => {
    const { front, prefix } = await pair();
    await create(front, 'twin', 'echo', { n: 1 }, 500);
    await front.waitForTerminal('twin', owner, { timeout: 5_000 });
    const kv = await new Kvm(front.connection).open(`${prefix}_snapshots`);
    await kv.delete(taskKey({ ownerKey: ownerKeyOf(owner), taskId: 'twin' }));
    // The id is free (its record is a marker): a new task takes it before the old timer comes.
    await create(front, 'twin', 'echo', { n: 2 }, 60_000);
    expect((await front.waitForOutcome('twin', owner, { timeout: 5_000 })).result).toEqual({ n: 2 });
    // The old task's timer comes and goes (the new task's alone is left), and the new task is untouched.
    const jsm = await jetstreamManager(front.connection);
    await vi.waitFor(async () => {
      const timers = await jsm.streams.getMessage(`${prefix}_timers_work`, { seq: (await jsm.streams.info(`${prefix}_timers_work`)).state.first_seq });
      expect((await streamMessages(front, prefix))[`${prefix}_timers_work`]).toBe(1);
      expect(timers?.json<{ due: number }>().due).toBeGreaterThan(Date.now() + 30_000);
    }, { timeout: 10_000, interval: 100 });
    expect((await front.get('twin', owner)).status).toBe('completed');
    expect((await front.result('twin', owner)).result).toEqual({ n: 2 });
    expect((await front.list(owner)).tasks.map((t) => t.taskId)).toEqual(['twin']);
    // The old task's index entry is gone, the new one's is there.
    expect((await streamMessages(front, prefix))[`${prefix}_index`]).toBe(1);
  });

  it('refuses at once a create whose run the work queue refuses (a full stream is not an outage), leaving nothing of it', async () => {
    const prefix = `st${++prefixSeq}`;
    // A front node only: nothing takes runs off the queue.
    const front = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role: 'front', nodeId: `${prefix}-front` });
    runtimes.push(front);
    front.registerHandler('echo', async (p) => p);
    // The work queue takes one run, then refuses (a server-side limit: not an outage, no retry).
    const jsm = await jetstreamManager(front.connection);
    const work = (await jsm.streams.info(`${prefix}_work`)).config;
    await jsm.streams.update(`${prefix}_work`, { ...work, max_msgs: 1, discard: DiscardPolicy.New });
    await create(front, 'queued', 'echo', {}, 60_000);
    await expect(create(front, 'refused', 'echo', {}, 60_000)).rejects.toThrow(/maximum messages/i);
    // Never stored (its run comes first): not readable, not listed, its index entry dropped.
    await vi.waitFor(async () => {
      await expect(front.get('refused', owner)).rejects.toThrow(/not found/i);
      expect((await front.list(owner)).tasks.map((t) => t.taskId)).toEqual(['queued']);
      const left = await streamMessages(front, prefix);
      expect(left[`KV_${prefix}_snapshots`]).toBe(1);
      expect(left[`${prefix}_index`]).toBe(1);
    }, { timeout: 5_000, interval: 50 });
  });
});
