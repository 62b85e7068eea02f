import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { RevisionMismatchError } from '../../runtime/backends/nats/errors.js';
import { SnapshotStore } from '../../runtime/backends/nats/snapshot-store.js';
import { DuplicateTaskIdError, isTaskRuntimeError } from '../../runtime/errors.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

interface Snap {
  status: string;
  n: number;
}

describe('SnapshotStore (real nats-server)', () => {
  let server: NatsServer;
  let nc: NatsConnection;
  let store: SnapshotStore<Snap>;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    nc = await connectNats({ servers: server.url });
    store = await SnapshotStore.open<Snap>(nc, { bucketPrefix: 'test.tasks' });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('should name the bucket from the prefix', () => {
    expect(store.bucket).toBe('test_tasks_snapshots');
  });

  it('should create, read, update and delete a snapshot', async () => {
    const ref = { ownerKey: 'owner.a', taskId: 'task 1' };
    expect(await store.get(ref)).toBeNull();
    const r1 = await store.create(ref, { status: 'working', n: 1 });
    expect(await store.get(ref)).toEqual({ value: { status: 'working', n: 1 }, revision: r1 });
    const r2 = await store.update(ref, { status: 'completed', n: 2 }, r1);
    expect(r2).toBeGreaterThan(r1);
    expect(await store.get(ref)).toEqual({ value: { status: 'completed', n: 2 }, revision: r2 });
    await store.delete(ref);
    expect(await store.get(ref)).toBeNull();
  });

  it('should refuse a second create with DuplicateTaskIdError', async () => {
    const ref = { ownerKey: 'owner.a', taskId: 'dup' };
    await store.create(ref, { status: 'working', n: 1 });
    const error = await store.create(ref, { status: 'working', n: 99 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateTaskIdError);
    expect((error as DuplicateTaskIdError).taskId).toBe('dup');
    expect((await store.get(ref))?.value.n).toBe(1);
  });

  it('should keep the same task id of another owner apart', async () => {
    await store.create({ ownerKey: 'owner.x', taskId: 'shared-id' }, { status: 'working', n: 1 });
    await store.create({ ownerKey: 'owner.y', taskId: 'shared-id' }, { status: 'working', n: 2 });
    expect((await store.get({ ownerKey: 'owner.x', taskId: 'shared-id' }))?.value.n).toBe(1);
    expect((await store.get({ ownerKey: 'owner.y', taskId: 'shared-id' }))?.value.n).toBe(2);
  });

  it('should let only one of two writers with the same revision win (CAS)', async () => {
    const ref = { ownerKey: 'owner.a', taskId: 'cas' };
    const r1 = await store.create(ref, { status: 'working', n: 1 });
    const results = await Promise.allSettled([
      store.update(ref, { status: 'completed', n: 2 }, r1),
      store.update(ref, { status: 'failed', n: 3 }, r1),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(RevisionMismatchError);
    expect((lost[0]!.reason as RevisionMismatchError).expectedRevision).toBe(r1);
    expect(isTaskRuntimeError(lost[0]!.reason)).toBe(true);
    // a stale revision keeps failing; the winner's revision works
    await expect(store.update(ref, { status: 'x', n: 4 }, r1)).rejects.toBeInstanceOf(RevisionMismatchError);
    const current = await store.get(ref);
    await store.update(ref, { status: 'cancelled', n: 5 }, current!.revision);
  });

  it('should fail an update of a deleted snapshot and allow re-creating it', async () => {
    const ref = { ownerKey: 'owner.a', taskId: 'gone' };
    const r1 = await store.create(ref, { status: 'working', n: 1 });
    await store.delete(ref);
    await expect(store.update(ref, { status: 'working', n: 2 }, r1)).rejects.toBeInstanceOf(RevisionMismatchError);
    await store.create(ref, { status: 'working', n: 3 });
    expect((await store.get(ref))?.value.n).toBe(3);
  });

  it('should guard delete with an expected revision', async () => {
    const ref = { ownerKey: 'owner.a', taskId: 'del-cas' };
    const r1 = await store.create(ref, { status: 'working', n: 1 });
    const r2 = await store.update(ref, { status: 'working', n: 2 }, r1);
    await expect(store.delete(ref, r1)).rejects.toBeInstanceOf(RevisionMismatchError);
    await store.delete(ref, r2);
    expect(await store.get(ref)).toBeNull();
  });
});
