import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { WorkQueue, type WorkContext } from '../../runtime/backends/nats/work-queue.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

interface Job {
  id: string;
  n: number;
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(20);
  }
}

/**
 * Waits until `count` ack waits have passed on the server's own clock: a message on a consumer of
 * its own with the same ack wait, pulled and never acked, is redelivered once per ack wait. An item
 * delivered before this starts and not kept alive would have been redelivered by the time it returns.
 */
async function ackWaitsPass(nc: NatsConnection, name: string, ackWaitMs: number, count: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name, subjects: [`${name}.tick`], storage: StorageType.Memory });
  await jsm.consumers.add(name, { durable_name: name, ack_policy: AckPolicy.Explicit, ack_wait: nanos(ackWaitMs) });
  const js = jetstream(nc);
  await js.publish(`${name}.tick`, '');
  const consumer = await js.consumers.get(name, name);
  const timeoutMs = ackWaitMs * (count + 1) + 10_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = await consumer.next({ expires: 1_000 });
    if (m !== null && m.info.deliveryCount > count) return;
  }
  throw new Error(`${count} ack waits of ${ackWaitMs} ms did not pass within ${timeoutMs} ms`);
}

/**
 * Waits until the queue holds nothing and its consumer has nothing delivered and unacked: every
 * item was acked (a work-queue stream drops an item once acked), so no delivery of any of them can
 * still come. Returns the consumer's info, whose delivered count includes redeliveries.
 */
async function allAcked(nc: NatsConnection, queue: WorkQueue<Job>, timeoutMs: number) {
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [stream, consumer] = [await jsm.streams.info(queue.stream), await jsm.consumers.info(queue.stream, queue.durable)];
    if (stream.state.messages === 0 && consumer.num_pending === 0 && consumer.num_ack_pending === 0) return { stream, consumer };
    if (Date.now() > deadline) {
      throw new Error(`items left after ${timeoutMs} ms: ${stream.state.messages} stored, ${consumer.num_pending} pending, ${consumer.num_ack_pending} unacked`);
    }
    await delay(20);
  }
}

describe('WorkQueue (real nats-server)', () => {
  let server: NatsServer;
  const connections: NatsConnection[] = [];
  const connect = async () => {
    const nc = await connectNats({ servers: server.url });
    connections.push(nc);
    return nc;
  };
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });
  afterAll(async () => {
    for (const nc of connections) await nc.close();
    await server?.stop();
  });

  it('should share items between two consumers, each item handled exactly once', async () => {
    const [ncA, ncB] = [await connect(), await connect()];
    const qA = await WorkQueue.open<Job>(ncA, { prefix: 'share', ackWaitMs: 2_000 });
    const qB = await WorkQueue.open<Job>(ncB, { prefix: 'share', ackWaitMs: 2_000 });
    const seen: { by: string; n: number }[] = [];
    const stop = new AbortController();
    const handler = (by: string) => async (job: Job) => {
      seen.push({ by, n: job.n });
      await delay(5);
    };
    const done = Promise.all([
      qA.consume(handler('A'), { signal: stop.signal, pollMs: 1_000 }),
      qB.consume(handler('B'), { signal: stop.signal, pollMs: 1_000 }),
    ]);
    for (let n = 0; n < 40; n++) await qA.enqueue({ id: `job-${n}`, n });
    // a retried enqueue is dropped by message id
    expect((await qA.enqueue({ id: 'job-0', n: 0 })).duplicate).toBe(true);
    await until(() => seen.length >= 40, 8_000);
    // Every item acked (each handler has run by then): nothing is left that could be delivered again.
    const { stream, consumer } = await allAcked(ncA, qA, 8_000);
    stop.abort();
    await done;
    expect(seen.map((s) => s.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(new Set(seen.map((s) => s.by))).toEqual(new Set(['A', 'B']));
    // The server's own count: 40 items stored (the retried enqueue was dropped), 40 deliveries.
    expect(stream.state.last_seq).toBe(40);
    expect(consumer.delivered.consumer_seq).toBe(40);
    // work-queue retention: every acked item is gone from the stream
    expect(stream.state.messages).toBe(0);
  });

  it('should pull in batches no larger than its room, and run no more items at once than its concurrency', async () => {
    const nc = await connect();
    const q = await WorkQueue.open<Job>(nc, { prefix: 'batch', ackWaitMs: 5_000 });
    // Pull requests are messages on the consumer's API subject: a core subscription sees each one.
    const pulls: number[] = [];
    const watcher = (await connect()).subscribe(`$JS.API.CONSUMER.MSG.NEXT.${q.stream}.${q.durable}`, {
      callback: (_e, m) => void pulls.push(m.json<{ batch: number }>().batch),
    });
    for (let n = 0; n < 60; n++) await q.enqueue({ id: `b-${n}`, n });
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const done: number[] = [];
    const stop = new AbortController();
    const consuming = q.consume(
      async (job) => {
        most = Math.max(most, ++inFlight);
        await gate;
        inFlight--;
        done.push(job.n);
      },
      // A room larger than the concurrency: the pull asks for what the concurrency leaves free.
      { signal: stop.signal, pollMs: 1_000, concurrency: 15, room: () => Promise.resolve(100) },
    );
    await until(() => inFlight === 15, 5_000);
    // Opened in batches, 15 at a time, 4 rounds; a pull per item would be 60 pulls.
    for (let round = 0; round < 4; round++) {
      release();
      gate = new Promise<void>((resolve) => (release = resolve));
      await until(() => done.length >= 15 * (round + 1), 5_000);
    }
    release();
    await allAcked(nc, q, 5_000);
    stop.abort();
    await consuming;
    watcher.unsubscribe();
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(most).toBe(15);
    expect(Math.max(...pulls)).toBe(15);
    // 4 batches of 15, plus at most a few pulls that found nothing before their time was up.
    expect(pulls.length).toBeLessThanOrEqual(8);
  });

  it('should ask for no more than maxBatch items in one pull', async () => {
    const nc = await connect();
    const q = await WorkQueue.open<Job>(nc, { prefix: 'maxbatch', ackWaitMs: 5_000 });
    const pulls: number[] = [];
    const watcher = (await connect()).subscribe(`$JS.API.CONSUMER.MSG.NEXT.${q.stream}.${q.durable}`, {
      callback: (_e, m) => void pulls.push(m.json<{ batch: number }>().batch),
    });
    for (let n = 0; n < 12; n++) await q.enqueue({ id: `m-${n}`, n });
    const done: number[] = [];
    const stop = new AbortController();
    const consuming = q.consume(async (job) => void done.push(job.n), { signal: stop.signal, pollMs: 1_000, concurrency: 20, maxBatch: 4 });
    await until(() => done.length === 12, 5_000);
    await allAcked(nc, q, 5_000);
    stop.abort();
    await consuming;
    watcher.unsubscribe();
    expect(Math.max(...pulls)).toBe(4);
    expect(pulls.length).toBeGreaterThanOrEqual(3);
  });

  it('should redeliver a failed item and ack it once it succeeds', async () => {
    const nc = await connect();
    const q = await WorkQueue.open<Job>(nc, { prefix: 'retry', ackWaitMs: 2_000 });
    const attempts: WorkContext[] = [];
    const stop = new AbortController();
    const done = q.consume(
      async (_job, ctx) => {
        attempts.push(ctx);
        if (attempts.length < 3) throw new Error('flaky');
      },
      { signal: stop.signal, retryDelayMs: 50, pollMs: 1_000 },
    );
    await q.enqueue({ id: 'flaky', n: 1 });
    await until(() => attempts.length >= 3, 5_000);
    // Acked on the third attempt: gone from the queue, so no fourth delivery can come.
    const { consumer } = await allAcked(nc, q, 5_000);
    stop.abort();
    await done;
    expect(attempts.map((a) => a.deliveryCount)).toEqual([1, 2, 3]);
    expect(attempts[2]?.redelivered).toBe(true);
    expect(consumer.delivered.consumer_seq).toBe(3);
  });

  it('should keep a long item from redelivery with working() heartbeats', async () => {
    const [ncA, ncB] = [await connect(), await connect()];
    const qA = await WorkQueue.open<Job>(ncA, { prefix: 'long', ackWaitMs: 500 });
    const qB = await WorkQueue.open<Job>(ncB, { prefix: 'long', ackWaitMs: 500 });
    const runs: string[] = [];
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const stop = new AbortController();
    const handler = (by: string) => async (): Promise<void> => {
      runs.push(by);
      await finished;
    };
    const done = Promise.all([
      qA.consume(handler('A'), { signal: stop.signal, pollMs: 1_000 }),
      qB.consume(handler('B'), { signal: stop.signal, pollMs: 1_000 }),
    ]);
    await qA.enqueue({ id: 'long-1', n: 1 });
    await until(() => runs.length >= 1, 3_000);
    // Four ack waits while the item runs; without heartbeats the idle consumer gets it after one.
    await ackWaitsPass(ncA, 'long_clock', 500, 4);
    const info = await (await jetstreamManager(ncA)).consumers.info(qA.stream, qA.durable);
    finish();
    stop.abort();
    await done;
    expect(runs).toHaveLength(1);
    expect(info.delivered.consumer_seq).toBe(1); // delivered once, never redelivered
  });

  it('should redeliver to another consumer an item whose consumer died without acking', async () => {
    const ncDead = await connect();
    const ncLive = await connect();
    const qDead = await WorkQueue.open<Job>(ncDead, { prefix: 'crash', ackWaitMs: 500 });
    const qLive = await WorkQueue.open<Job>(ncLive, { prefix: 'crash', ackWaitMs: 500 });
    let release: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => (release = resolve));
    let deadGot = false;
    void qDead.consume(async () => {
      deadGot = true;
      await hung; // never acks: the node "crashes" below
    }, { pollMs: 1_000 });
    await qDead.enqueue({ id: 'orphan', n: 7 });
    await until(() => deadGot, 3_000);
    await ncDead.close(); // the node is gone; its item is neither acked nor nak'd
    const got: { job: Job; ctx: WorkContext }[] = [];
    const stop = new AbortController();
    const done = qLive.consume(async (job, ctx) => { got.push({ job, ctx }); }, { signal: stop.signal, pollMs: 1_000 });
    await until(() => got.length >= 1, 5_000);
    stop.abort();
    await done;
    release();
    expect(got[0]?.job.n).toBe(7);
    expect(got[0]?.ctx.redelivered).toBe(true);
    expect(got[0]?.ctx.deliveryCount).toBe(2);
  });
});
