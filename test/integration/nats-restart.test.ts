import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { EventStream } from '../../runtime/backends/nats/event-stream.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { SnapshotStore } from '../../runtime/backends/nats/snapshot-store.js';
import { WorkQueue } from '../../runtime/backends/nats/work-queue.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

/** Retries `op` while the client reconnects and JetStream recovers its streams. */
async function eventually<T>(op: () => Promise<T>, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await op();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await delay(100);
    }
  }
}

describe('NATS backend across a nats-server restart (file storage)', () => {
  let server: NatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    nc = await connectNats({ servers: server.url, reconnectTimeWaitMs: 100 });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('should keep snapshots, events and queued work, and let the same client go on', async () => {
    const ref = { ownerKey: 'owner', taskId: 'survivor' };
    const key = taskKey(ref);
    const store = await SnapshotStore.open<{ status: string }>(nc);
    const events = await EventStream.open<{ type: string }>(nc);
    const queue = await WorkQueue.open<{ id: string }>(nc, { ackWaitMs: 2_000 });
    const r1 = await store.create(ref, { status: 'working' });
    const r2 = await store.update(ref, { status: 'input_required' }, r1);
    await events.append(key, 1, { type: 'task.start' });
    await events.append(key, 2, { type: 'task.input' });
    await queue.enqueue({ id: 'queued-before-restart' });
    const pidBefore = server.pid;

    // A request sent before the client notices the old socket is gone is lost and only times out
    // after the JetStream request timeout (5 s), so wait for the reconnect first.
    const reconnected = (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnect') return;
    })();
    await server.restart();
    await reconnected;
    expect(server.pid).not.toBe(pidBefore);

    // Same connection (it reconnected on its own), same objects.
    expect(await eventually(() => store.get(ref))).toEqual({ value: { status: 'input_required' }, revision: r2 });
    expect((await eventually(() => events.read(key))).map((e) => e.event.type)).toEqual(['task.start', 'task.input']);
    // The CAS chain continues from the revision the owner got back before the restart.
    await eventually(() => store.update(ref, { status: 'completed' }, r2));
    // Dedup state survives too: re-publishing event 2 stores nothing.
    expect((await eventually(() => events.append(key, 2, { type: 'task.input' }))).duplicate).toBe(true);
    await events.append(key, 3, { type: 'task.complete' });
    expect((await events.read(key)).map((e) => e.seq)).toEqual([1, 2, 3]);

    const got: string[] = [];
    const stop = new AbortController();
    const done = queue.consume(async (item) => void got.push(item.id), { signal: stop.signal, pollMs: 1_000 });
    const deadline = Date.now() + 5_000;
    while (got.length === 0 && Date.now() < deadline) await delay(20);
    stop.abort();
    await done;
    expect(got).toEqual(['queued-before-restart']);
  });
});
