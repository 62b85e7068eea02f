import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { LeaseLostError } from '../../runtime/backends/nats/errors.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { DROP_MARKER_LINGER_MS, isExpired, LeaseManager } from '../../runtime/backends/nats/leases.js';
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

  it('should let a lease go without an acknowledgement, and leave a lease taken over since alone', async () => {
    const k = key('let-go');
    const lease = await nodeA.acquire(k, 'A', 5_000);
    nodeA.letGo(lease!);
    await vi.waitFor(async () => expect(await nodeA.holder(k)).toBeNull(), { timeout: 2_000, interval: 20 });
    expect((await nodeB.acquire(k, 'B', 5_000))?.nodeId).toBe('B');
    // The same guarded delete as release: a stale holder's letGo does not free another's lease.
    const c = key('let-go-stale');
    now += 10_000;
    const old = await clockedA.acquire(c, 'A', 1_000);
    now += 2_000;
    const taken = await clockedB.acquire(c, 'B', 5_000);
    expect(taken?.nodeId).toBe('B');
    clockedA.letGo(old!);
    await ncA.flush();
    const afterFlush = await clockedB.holder(c);
    expect(afterFlush?.nodeId).toBe('B');
    expect(await clockedB.release(taken!)).toBe(true);
  });

  it('should drop a lease without a trace: watchers see it go, the stream keeps no marker, a taken-over one stays', async () => {
    const dropping = await LeaseManager.open(ncA, { bucketPrefix: 'dropping' });
    const seen: [string, unknown][] = [];
    const stop = new AbortController();
    void dropping.watch((k, value) => void seen.push([k, value]), stop.signal);
    const k = key('drop');
    const lease = await dropping.acquire(k, 'A', 5_000);
    // The watch is in place once it has seen the lease.
    await expect.poll(() => seen.some(([sk, v]) => sk === k && v !== null), { timeout: 2_000, interval: 10 }).toBe(true);
    expect(await dropping.drop(lease!)).toBe(true);
    await expect.poll(() => seen.some(([sk, v]) => sk === k && v === null), { timeout: 2_000, interval: 10 }).toBe(true);
    expect(await dropping.holder(k)).toBeNull();
    // The marker stays for watchers a little behind (one that starts only now still sees the drop), then goes.
    const late: [string, unknown][] = [];
    const stopLate = new AbortController();
    void dropping.watch((lk, value) => void late.push([lk, value]), stopLate.signal);
    await expect.poll(() => late.some(([sk, v]) => sk === k && v === null), { timeout: 2_000, interval: 10 }).toBe(true);
    stopLate.abort();
    const jsm = await jetstreamManager(ncA);
    await expect.poll(async () => (await jsm.streams.info(`KV_${dropping.bucket}`)).state.messages, { timeout: DROP_MARKER_LINGER_MS + 3_000, interval: 100 }).toBe(0);
    // A lease taken over since is not this holder's to drop.
    const first = await dropping.acquire(k, 'A', 5_000);
    await dropping.release(first!);
    const second = await dropping.acquire(k, 'B', 5_000);
    expect(await dropping.drop(first!)).toBe(false);
    expect((await dropping.holder(k))?.nodeId).toBe('B');
    expect(second?.nodeId).toBe('B');
    stop.abort();
  });
});
