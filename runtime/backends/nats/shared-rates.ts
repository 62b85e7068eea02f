/**
 * Rate limits that hold across the cluster: every node tells the others, a few times a second,
 * how many calls of each requester it admitted, and charges what it hears to its own buckets.
 *
 * Why not one shared counter in KV: a poll would then cost two more JetStream round trips, on the
 * path whose latency matters most. Sharing usage over core NATS costs one small message per node
 * per period, and a requester spreading calls over N nodes gets at most N bursts' worth more
 * within one period (250 ms) before every node holds it back.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { RateKind, RequesterLimiter } from '../../limits.js';

/** How often a node sends what it admitted. */
export const SHARE_PERIOD_MS = 250;

const RATE_KINDS = new Set<RateKind>(['createsPerSecond', 'pollsPerSecond', 'listsPerSecond']);

/** What a node sends: calls admitted since its last message, per rate and requester. */
interface Usage {
  readonly node: string;
  readonly calls: ReadonlyArray<readonly [kind: RateKind, ownerKey: string, calls: number]>;
}

/**
 * Collects what this node admits (pass {@link SharedRates.admitted} to the limiter) and shares it.
 *
 * @example
 * ```ts
 * const shared = new SharedRates(nc, 'tasks', nodeId);
 * const limiter = new RequesterLimiter(limits, Date.now, shared.admitted);
 * const stop = shared.start(limiter);
 * ```
 */
export class SharedRates {
  readonly #nc: NatsConnection;
  readonly #subject: string;
  readonly #nodeId: string;
  #pending = new Map<string, { kind: RateKind; ownerKey: string; calls: number }>();

  constructor(nc: NatsConnection, prefix: string, nodeId: string) {
    this.#nc = nc;
    this.#subject = `${prefix}.limits.usage`;
    this.#nodeId = nodeId;
  }

  /** Counts one admitted call (the limiter's `onAdmit`). */
  readonly admitted = (ownerKey: string, kind: RateKind): void => {
    const key = `${kind}\u0000${ownerKey}`;
    const entry = this.#pending.get(key);
    if (entry) entry.calls++;
    else this.#pending.set(key, { kind, ownerKey, calls: 1 });
  };

  /** Starts sending and receiving usage; returns the stop function. */
  start(limiter: RequesterLimiter): () => void {
    const sub = this.#nc.subscribe(this.#subject, {
      callback: (error, msg) => {
        if (error) return;
        let usage: Usage;
        try {
          usage = msg.json<Usage>();
        } catch {
          return;
        }
        if (usage.node === this.#nodeId || !Array.isArray(usage.calls)) return;
        for (const [kind, ownerKey, calls] of usage.calls as ReadonlyArray<readonly [unknown, unknown, unknown]>) {
          if (typeof ownerKey === 'string' && typeof calls === 'number' && RATE_KINDS.has(kind as RateKind)) {
            limiter.charge(ownerKey, kind as RateKind, calls);
          }
        }
      },
    });
    const timer = setInterval(() => this.#flush(), SHARE_PERIOD_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
      this.#flush();
      sub.unsubscribe();
    };
  }

  #flush(): void {
    if (this.#pending.size === 0 || this.#nc.isClosed()) return;
    const calls = [...this.#pending.values()].map((e) => [e.kind, e.ownerKey, e.calls] as const);
    this.#pending = new Map();
    // Many requesters: several messages, each well under the server's payload limit.
    for (let i = 0; i < calls.length; i += 2_000) {
      this.#nc.publish(this.#subject, JSON.stringify({ node: this.#nodeId, calls: calls.slice(i, i + 2_000) } satisfies Usage));
    }
  }
}
