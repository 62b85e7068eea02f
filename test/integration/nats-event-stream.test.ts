import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { applyInOrder, EventStream } from '../../runtime/backends/nats/event-stream.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { InvalidArgumentError } from '../../runtime/errors.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

interface Ev {
  type: string;
}

describe('EventStream (real nats-server)', () => {
  let server: NatsServer;
  let nc: NatsConnection;
  let events: EventStream<Ev>;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    nc = await connectNats({ servers: server.url });
    events = await EventStream.open<Ev>(nc, { prefix: 'test.tasks' });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  const key = (id: string) => taskKey({ ownerKey: 'o', taskId: id });

  it('should publish to a per-task subject under <prefix>.events', () => {
    expect(events.stream).toBe('test_tasks_events');
    expect(events.subject(key('a'))).toBe(`test.tasks.events.${key('a')}`);
  });

  it('should store a re-published event once (dedup by taskKey:seq)', async () => {
    const k = key('dedup');
    const first = await events.append(k, 1, { type: 'task.start' });
    const retry = await events.append(k, 1, { type: 'task.start' });
    expect(first.duplicate).toBe(false);
    expect(retry.duplicate).toBe(true);
    expect(retry.streamSeq).toBe(first.streamSeq);
    await events.append(k, 2, { type: 'task.complete' });
    await events.append(k, 2, { type: 'task.complete' });
    expect((await events.read(k)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('should store a posted event (no acknowledgement asked) once, in order with the acknowledged ones', async () => {
    const k = key('posted');
    // A post is a plain publish with no reply subject: a subscriber to the subject sees none.
    const replies: (string | undefined)[] = [];
    const sub = nc.subscribe(events.subject(k), { callback: (_e, m) => void replies.push(m.reply) });
    await events.append(k, 1, { type: 'task.created' });
    events.post(k, 2, { type: 'task.start' });
    events.post(k, 2, { type: 'task.start' });
    events.post(k, 3, { type: 'task.complete' }, undefined);
    await nc.flush();
    // Stored by the stream's own loop a moment after the server took it.
    await vi.waitFor(async () => expect((await events.read(k)).map((e) => [e.seq, e.event.type])).toEqual([[1, 'task.created'], [2, 'task.start'], [3, 'task.complete']]), { timeout: 2_000, interval: 20 });
    sub.unsubscribe();
    expect(replies.slice(1).every((r) => r === undefined || r === '')).toBe(true);
    expect(replies[0]).toBeTruthy();
    expect(() => events.post(k, 0, { type: 'x' })).toThrow(InvalidArgumentError);
  });

  it('should read one task’s events in order, from a given sequence, without other tasks’ events', async () => {
    const a = key('ordered-a');
    const b = key('ordered-b');
    for (let seq = 1; seq <= 5; seq++) {
      await events.append(a, seq, { type: `a${seq}` });
      await events.append(b, seq, { type: `b${seq}` });
    }
    const all = await events.read(a);
    expect(all.map((e) => e.event.type)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(all.map((e) => e.streamSeq)).toEqual([...all.map((e) => e.streamSeq)].sort((x, y) => x - y));
    expect((await events.read(a, 4)).map((e) => e.seq)).toEqual([4, 5]);
    expect((await events.read(b, 5)).map((e) => e.event.type)).toEqual(['b5']);
    expect(await events.read(a, 6)).toEqual([]);
  });

  it('should return nothing for a task without events', async () => {
    expect(await events.read(key('never'))).toEqual([]);
  });

  it('should let applyInOrder find a gap in stored events and fill it on a re-read', async () => {
    const k = key('gap');
    await events.append(k, 1, { type: 'e1' });
    await events.append(k, 3, { type: 'e3' }); // event 2 is late (e.g. a failover)
    const first = applyInOrder(0, await events.read(k));
    expect(first.apply.map((e) => e.seq)).toEqual([1]);
    expect(first.gap).toEqual({ from: 2, to: 2 });
    await events.append(k, 2, { type: 'e2' });
    const second = applyInOrder(first.lastSeq, await events.read(k, first.gap!.from));
    expect(second.apply.map((e) => e.event.type)).toEqual(['e2', 'e3']);
    expect(second.gap).toBeNull();
  });

  it('should reject keys that are not task keys and bad sequences', async () => {
    await expect(events.append('x.>', 1, { type: 'bad' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(events.append(key('a'), 0, { type: 'bad' })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
