/**
 * The cluster-wide running-task cap's bookkeeping against a real nats-server: a claim past the cap
 * is refused; a slot comes back when its task ends (release), and also when the node that should
 * have released it died (the claim then finds the task ended or gone).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { RecordStore } from '../../runtime/backends/nats/record-store.js';
import { RunningTasks } from '../../runtime/backends/nats/running-tasks.js';
import { TaskLimitError } from '../../runtime/errors.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

describe('RunningTasks (real nats-server)', () => {
  let server: NatsServer;
  let nc: NatsConnection;
  let running: RunningTasks;
  let clock = 1_000_000;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    nc = await connectNats({ servers: server.url });
    const layout = { prefix: 'test.running', replicas: 1, storage: 'memory' as const };
    const store = await RecordStore.open(nc, layout, 'n1');
    running = await RunningTasks.open(nc, layout, store, () => clock);
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('refuses a claim past the cap, and gives the slot back on release', async () => {
    await running.claim('alice', 'k1', 2);
    await running.claim('alice', 'k1', 2); // the same task twice is one slot
    await running.claim('alice', 'k2', 2);
    await expect(running.claim('bob', 'k3', 2)).resolves.toBeUndefined();
    // k1 and k2 have no records here, as if they were just being created: they count.
    await running.release('alice', 'k1');
    await running.claim('alice', 'k4', 2);
    const refused = await running.claim('alice', 'k5', 2).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TaskLimitError);
    expect((refused as TaskLimitError).limit).toBe('maxConcurrentTasks');
  });

  it('takes back the slots of tasks that are gone when the list is full (their node died before releasing)', async () => {
    // carol's two tasks were never written (their node died while creating them): the claim that
    // finds her full checks them; once they are older than any creation takes, they are dropped.
    await running.claim('carol', 'gone-1', 2);
    await running.claim('carol', 'gone-2', 2);
    await expect(running.claim('carol', 'k6', 2)).rejects.toThrow(TaskLimitError);
    clock += 31_000;
    await expect(running.claim('carol', 'k6', 2)).resolves.toBeUndefined();
  });

  it('writes over the entry it last saw without reading it, and reads when another node wrote since', async () => {
    const layout = { prefix: 'test.running2', replicas: 1, storage: 'memory' as const };
    const store = await RecordStore.open(nc, layout, 'n1');
    const a = await RunningTasks.open(nc, layout, store, () => clock);
    const b = await RunningTasks.open(nc, layout, store, () => clock);
    const reads: string[] = [];
    const writes: string[] = [];
    const subs = [
      nc.subscribe('$JS.API.DIRECT.GET.KV_test_running2_running.>', { callback: (_e, m) => void reads.push(m.subject) }),
      nc.subscribe('$JS.API.DIRECT.GET.KV_test_running2_running', { callback: (_e, m) => void reads.push(m.subject) }),
      nc.subscribe('$JS.API.STREAM.MSG.GET.KV_test_running2_running', { callback: (_e, m) => void reads.push(m.subject) }),
      nc.subscribe('$KV.test_running2_running.>', { callback: (_e, m) => void writes.push(m.subject) }),
    ];
    await nc.flush();
    const settle = async (): Promise<void> => {
      await nc.flush();
      await nc.flush();
    };
    // First sight of dave: one read, then every claim and release on this node is one write.
    await a.claim('dave', 'd1', 2);
    await a.claim('dave', 'd2', 2);
    await a.release('dave', 'd1');
    await a.claim('dave', 'd3', 2);
    await settle();
    expect(reads).toHaveLength(1);
    expect(writes).toHaveLength(4);
    // Node b ends d2 (the node whose write ends a task releases it): it reads, then writes.
    await b.release('dave', 'd2');
    await settle();
    expect(reads).toHaveLength(2);
    expect(writes).toHaveLength(5);
    // Node a's view is stale now: its write fails, it reads, and the cap still holds (d3 plus d4).
    await a.claim('dave', 'd4', 2);
    await expect(a.claim('dave', 'd5', 2)).rejects.toThrow(TaskLimitError);
    await expect(b.claim('dave', 'd5', 2)).rejects.toThrow(TaskLimitError);
    await a.release('dave', 'd3');
    await b.claim('dave', 'd5', 2);
    await expect(a.claim('dave', 'd6', 2)).rejects.toThrow(TaskLimitError);
    for (const sub of subs) sub.unsubscribe();
  });
});
