import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { LeaseLostError } from '../../runtime/backends/nats/errors.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { isExpired, LeaseManager } from '../../runtime/backends/nats/leases.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

describe('LeaseManager (real nats-server)', () => {
  let server: NatsServer;
  let ncA: NatsConnection;
  let ncB: NatsConnection;
  let nodeA: LeaseManager;
  let nodeB: LeaseManager;
  // Expiry is decided on the caller's clock: these two share one, moved by hand, so a test can
  // stand one millisecond before a lease's expiry and then on it.
  let now = 1_000_000;
  let clockedA: LeaseManager;
  let clockedB: LeaseManager;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    ncA = await connectNats({ servers: server.url });
    ncB = await connectNats({ servers: server.url });
    nodeA = await LeaseManager.open(ncA);
    nodeB = await LeaseManager.open(ncB);
    clockedA = await LeaseManager.open(ncA, { bucketPrefix: 'clocked', now: () => now });
    clockedB = await LeaseManager.open(ncB, { bucketPrefix: 'clocked', now: () => now });
  });
  afterAll(async () => {
    await ncA?.close();
    await ncB?.close();
    await server?.stop();
  });

  const key = (id: string) => taskKey({ ownerKey: 'o', taskId: id });

  it('should give a free lease to exactly one of two racing nodes', async () => {
    const k = key('race');
    const [a, b] = await Promise.all([nodeA.acquire(k, 'A', 5_000), nodeB.acquire(k, 'B', 5_000)]);
    expect([a, b].filter((l) => l !== null)).toHaveLength(1);
    const holder = await nodeA.holder(k);
    expect(holder?.nodeId).toBe((a ?? b)!.nodeId);
  });

  it('should refuse a live lease and renew it for its holder', async () => {
    const k = key('live');
    const lease = await nodeA.acquire(k, 'A', 2_000);
    expect(lease).not.toBeNull();
    expect(await nodeB.acquire(k, 'B', 2_000)).toBeNull();
    const renewed = await nodeA.renew(lease!);
    expect(renewed.revision).toBeGreaterThan(lease!.revision);
    expect(renewed.expiresAt).toBeGreaterThanOrEqual(lease!.expiresAt);
    expect(await nodeB.acquire(k, 'B', 2_000)).toBeNull();
  });

  it('should let another node take over an expired lease, and the old holder lose it', async () => {
    const k = key('takeover');
    const old = await clockedA.acquire(k, 'A', 150);
    expect(old?.expiresAt).toBe(now + 150);
    now += 149;
    expect(isExpired(await clockedB.holder(k), now)).toBe(false);
    expect(await clockedB.acquire(k, 'B', 5_000)).toBeNull();
    now += 1;
    expect(isExpired(await clockedB.holder(k), now)).toBe(true);
    const taken = await clockedB.acquire(k, 'B', 5_000);
    expect(taken?.nodeId).toBe('B');
    const error = await clockedA.renew(old!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(await clockedA.release(old!)).toBe(false);
    expect((await clockedA.holder(k))?.nodeId).toBe('B');
  });

  it('should let only one of two nodes take over the same expired lease', async () => {
    const k = key('double-takeover');
    expect(await clockedA.acquire(k, 'A', 100)).not.toBeNull();
    now += 100;
    const [b, c] = await Promise.all([clockedB.acquire(k, 'B', 5_000), clockedA.acquire(k, 'C', 5_000)]);
    expect([b, c].filter((l) => l !== null)).toHaveLength(1);
  });

  it('should free a released lease for the next node', async () => {
    const k = key('release');
    const lease = await nodeA.acquire(k, 'A', 5_000);
    expect(await nodeA.release(lease!)).toBe(true);
    expect(await nodeA.holder(k)).toBeNull();
    const next = await nodeB.acquire(k, 'B', 5_000);
    expect(next?.nodeId).toBe('B');
    await expect(nodeA.renew(lease!)).rejects.toBeInstanceOf(LeaseLostError);
  });
});
