/**
 * The protocol floor of a NATS task lifecycle: the JetStream messages one lifecycle sends, sent by
 * nats.js with no runtime around them (no actor, no feed, no waits), so the bench can show how
 * much of a lifecycle's cost is the protocol and how much is the runtime.
 *
 * @module
 */
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers, type NatsConnection } from '@nats-io/transport-node';

/** A record of about the size the runtime writes (600 B of JSON). */
const RECORD = JSON.stringify({ v: 1, status: 'working', context: { taskId: 't', owner: { session: 's', principal: null }, pad: 'x'.repeat(440) }, seq: 1, order: 1 });

/** Which messages: `full`, the runtime's 11 today (6 awaited); `lean`, the 6 the design's rules cannot do without. */
export type FloorShape = 'full' | 'lean';

/**
 * Lifecycles/s of bare messages, `lanes` in flight, and the CPU this process spent per lifecycle.
 * - full: index publish, run enqueue, record create, created post, lease create, start CAS,
 *   start post, complete CAS, complete post, work ack, lease delete (awaited: the first three,
 *   lease create, both CAS);
 * - lean: index publish, run enqueue, record create, start CAS, complete CAS (all awaited), work ack.
 *
 * @example
 * ```ts
 * const { rate, cpuUs } = await protocolFloor(nc, 'floor1', 'full', 2_000, 50);
 * ```
 */
export async function protocolFloor(nc: NatsConnection, prefix: string, shape: FloorShape, n: number, lanes: number): Promise<{ rate: number; cpuUs: number }> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  for (const [name, subject] of [['index', 'index.>'], ['work', 'work'], ['events', 'events.>']] as const) {
    await jsm.streams.add({ name: `${prefix}_${name}`, subjects: [`${prefix}.${subject}`], storage: StorageType.File });
  }
  const kvm = new Kvm(nc);
  const records = await kvm.create(`${prefix}_records`, { history: 1 });
  const leases = await kvm.create(`${prefix}_leases`, { history: 1 });
  const post = (key: string, seq: number): void => {
    const h = headers();
    h.set('Nats-Msg-Id', `${key}:${seq}`);
    nc.publish(`${prefix}.events.${key}`, RECORD, { headers: h });
  };
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) {
        const key = `k${next++}`;
        await js.publish(`${prefix}.index.o`, JSON.stringify({ key }));
        await js.publish(`${prefix}.work`, JSON.stringify({ key, order: 1 }));
        let revision = await records.create(key, RECORD);
        if (shape === 'full') post(key, 1);
        const lease = shape === 'full' ? await leases.create(key, JSON.stringify({ nodeId: 'n', expiresAt: 0 })) : 0;
        revision = await records.update(key, RECORD, revision);
        if (shape === 'full') post(key, 2);
        await records.update(key, RECORD, revision);
        if (shape === 'full') post(key, 3);
        // Stands in for the work ack (a core publish the server answers nothing to).
        nc.publish(`${prefix}.acks`, '');
        if (shape === 'full') {
          const h = headers();
          h.set('KV-Operation', 'DEL');
          h.set('Nats-Expected-Last-Subject-Sequence', String(lease));
          nc.publish(`$KV.${prefix}_leases.${key}`, undefined, { headers: h });
        }
      }
    }),
  );
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { rate: (n * 1_000) / elapsed, cpuUs: (used.user + used.system) / n };
}
