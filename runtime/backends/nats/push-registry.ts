/**
 * The NATS backend's webhook registry: one KV bucket shared by every node, mirrored in memory on
 * each (the notifier asks on every change of every task, which must not cost a round trip). A
 * registration is written before its task is created, so the node that created the task has it
 * in its mirror when the task's first change comes; the others' mirrors follow the bucket. Entries
 * are kept `ttlMs` (a day by default), then the bucket drops them: a task's own webhook is needed
 * only while it runs, and a requester-wide one is registered again with its next task.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { KV } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import type { PushRegistry } from '../../push/push-registry.js';
import { withTarget } from '../../push/push-registry.js';
import type { PushTarget } from '../../push/push.types.js';
import { hashToken, nameFromPrefix } from './keys.js';

/** A bucket key: hashed, as owner keys and task ids may hold anything a key may not. */
function keyOf(kind: 't' | 'r', text: string): string {
  return `${kind}_${hashToken(text)}`;
}

const taskKey = (ownerKey: string, taskId: string): string => keyOf('t', `${ownerKey}\u0000${taskId}`);
const requesterKey = (ownerKey: string): string => keyOf('r', ownerKey);

/**
 * Webhooks kept in a KV bucket, read from this node's mirror of it.
 *
 * @example
 * ```ts
 * const registry = await NatsPushRegistry.open(nc, { prefix: 'tasks' });
 * await registry.register(ownerKey, taskId, target);
 * ```
 */
export class NatsPushRegistry implements PushRegistry {
  readonly #kv: KV;
  readonly #mirror = new Map<string, readonly PushTarget[]>();
  readonly #stop = new AbortController();

  private constructor(kv: KV) {
    this.#kv = kv;
  }

  /**
   * Opens (or creates) the bucket and starts mirroring it; resolves once the mirror holds what
   * the bucket held.
   *
   * @example
   * ```ts
   * const registry = await NatsPushRegistry.open(nc, { prefix: 'tasks', replicas: 3 });
   * ```
   */
  static async open(nc: NatsConnection, o: { prefix?: string; replicas?: number; storage?: 'file' | 'memory'; ttlMs?: number } = {}): Promise<NatsPushRegistry> {
    const kv = await ensureBucket(nc, `${nameFromPrefix(o.prefix ?? 'tasks')}_push_targets`, {
      history: 1,
      ttl: o.ttlMs ?? 86_400_000,
      replicas: o.replicas ?? 1,
      storage: o.storage ?? 'file',
    });
    const registry = new NatsPushRegistry(kv);
    await registry.#follow();
    return registry;
  }

  async register(ownerKey: string, taskId: string | null, target: PushTarget): Promise<void> {
    const key = taskId === null ? requesterKey(ownerKey) : taskKey(ownerKey, taskId);
    const targets = taskId === null ? withTarget(await this.#read(key), target) : [target];
    await this.#kv.put(key, JSON.stringify(targets));
    // This node sees it at once: the task it is about to create may change before the watch says so.
    this.#mirror.set(key, targets);
  }

  targets(ownerKey: string, taskId: string): readonly PushTarget[] {
    const own = this.#mirror.get(taskKey(ownerKey, taskId));
    const wide = this.#mirror.get(requesterKey(ownerKey));
    if (own === undefined) return wide ?? [];
    return wide === undefined ? own : [...own, ...wide.filter((t) => !own.some((o) => o.url === t.url))];
  }

  /** Left to the bucket's TTL: every node would race to delete it, and nothing reads it after the end. */
  forget(ownerKey: string, taskId: string): void {
    this.#mirror.delete(taskKey(ownerKey, taskId));
  }

  async dispose(): Promise<void> {
    this.#stop.abort();
    this.#mirror.clear();
  }

  async #read(key: string): Promise<readonly PushTarget[]> {
    const entry = await this.#kv.get(key);
    return entry === null || entry.operation !== 'PUT' ? [] : parseTargets(entry.string());
  }

  /** Mirrors the bucket: its current entries first (awaited), then every change, until disposed. */
  async #follow(): Promise<void> {
    const watcher = await this.#kv.watch();
    let ready!: () => void;
    const initial = new Promise<void>((resolve) => (ready = resolve));
    this.#stop.signal.addEventListener('abort', () => void watcher.stop(), { once: true });
    void (async () => {
      // An empty bucket has no initial entries to wait for.
      if (watcher.getPending() === 0) ready();
      for await (const entry of watcher) {
        if (entry.operation === 'PUT') this.#mirror.set(entry.key, parseTargets(entry.string()));
        else this.#mirror.delete(entry.key);
        if (watcher.getPending() === 0) ready();
      }
    })().catch(() => undefined);
    await initial;
  }
}

/** What a bucket entry holds; anything else (a value not written by this code) counts as none. */
function parseTargets(text: string): readonly PushTarget[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter((t: unknown): t is PushTarget => {
      if (typeof t !== 'object' || t === null) return false;
      const { url, secret, events } = t as Record<string, unknown>;
      return typeof url === 'string' && typeof secret === 'string' && (events === 'terminal' || events === 'all');
    });
  } catch {
    return [];
  }
}
