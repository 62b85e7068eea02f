import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { taskEvents } from '../../machines/index.js';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { EventStream } from '../../runtime/backends/nats/event-stream.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { RecordStore } from '../../runtime/backends/nats/record-store.js';
import { applyEvent, newRecord } from '../../runtime/backends/nats/task-record.js';
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

  it('should keep task records, results, events and queued work, and let the same client go on', async () => {
    const ref = { ownerKey: 'owner', taskId: 'survivor' };
    const key = taskKey(ref);
    // The task records the runtime writes (file storage, as `serve --nats` opens them).
    const store = await RecordStore.open(nc, { prefix: 'restart', replicas: 1, storage: 'file' }, 'n1');
    const input = { taskId: 'survivor', owner: { session: 'owner', principal: null }, dialect: 'sep-1686', method: 'tools/call', label: null, keepAlive: 60_000, pollFrequency: 1_000, createdAt: 1 };
    const events = await EventStream.open<{ type: string }>(nc);
    const queue = await WorkQueue.open<{ id: string }>(nc, { ackWaitMs: 2_000 });
    await store.create(key, 'owner', newRecord(input, null));
    const started = await store.mutate(key, (r) => applyEvent(r, taskEvents.start(2)));
    expect(started?.record.status).toBe('working');
    await store.putResult(key, { content: [{ type: 'text', text: 'kept' }] });
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
    const read = await eventually(() => store.read(key));
    expect(read !== null && 'found' in read ? read.found.record.status : read).toBe('working');
    expect(await eventually(() => store.getResult(key))).toEqual({ result: { content: [{ type: 'text', text: 'kept' }] } });
    expect((await eventually(() => events.read(key))).map((e) => e.event.type)).toEqual(['task.start', 'task.input']);
    // The CAS chain continues from the revision this node got back before the restart.
    const completed = await eventually(async () => store.mutate(key, (r) => applyEvent(r, taskEvents.complete(key, 3))));
    expect(completed).toMatchObject({ changed: true, record: { status: 'completed' } });
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
