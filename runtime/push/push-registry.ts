/**
 * Where the webhooks requesters registered are kept: per task, or per requester (every later
 * task of it). The notifier asks on every change of every task, so an answer comes from memory:
 * the memory backend's map, or the NATS backend's local mirror of a shared bucket.
 *
 * @module
 */
import type { PushTarget } from './push.types.js';

/** How many requester-wide webhooks one requester may keep (a new one for the same URL replaces the old). */
export const MAX_REQUESTER_TARGETS = 8;

/**
 * The webhooks of requesters, as a backend keeps them.
 *
 * @example
 * ```ts
 * await registry.register(ownerKey, taskId, target);
 * for (const t of registry.targets(ownerKey, taskId)) enqueue(t);
 * ```
 */
export interface PushRegistry {
  /** Keeps `target` for task `taskId` of the requester, or (`taskId` null) for all its later tasks. */
  register(ownerKey: string, taskId: string | null, target: PushTarget): Promise<void>;
  /** The webhooks a change of task `taskId` of the requester goes to: the task's own, then the requester's. */
  targets(ownerKey: string, taskId: string): readonly PushTarget[];
  /** The task ended and its last event was queued: its own webhook is no longer needed. */
  forget(ownerKey: string, taskId: string): void;
  dispose(): Promise<void>;
}

/**
 * A requester's webhooks with `target` added: one per URL (the newest wins), at most
 * {@link MAX_REQUESTER_TARGETS}, the oldest dropped first.
 *
 * @example
 * ```ts
 * const next = withTarget(current, target);
 * ```
 */
export function withTarget(current: readonly PushTarget[], target: PushTarget): PushTarget[] {
  return [...current.filter((t) => t.url !== target.url), target].slice(-MAX_REQUESTER_TARGETS);
}

/**
 * The memory backend's registry: two maps. A task's own entry goes when it ended.
 *
 * @example
 * ```ts
 * const registry = new MemoryPushRegistry();
 * ```
 */
export class MemoryPushRegistry implements PushRegistry {
  readonly #tasks = new Map<string, PushTarget>();
  readonly #requesters = new Map<string, PushTarget[]>();

  async register(ownerKey: string, taskId: string | null, target: PushTarget): Promise<void> {
    if (taskId === null) this.#requesters.set(ownerKey, withTarget(this.#requesters.get(ownerKey) ?? [], target));
    else this.#tasks.set(`${ownerKey}\u0000${taskId}`, target);
  }

  targets(ownerKey: string, taskId: string): readonly PushTarget[] {
    const own = this.#tasks.get(`${ownerKey}\u0000${taskId}`);
    const wide = this.#requesters.get(ownerKey);
    if (own === undefined) return wide ?? [];
    return wide === undefined ? [own] : [own, ...wide.filter((t) => t.url !== own.url)];
  }

  forget(ownerKey: string, taskId: string): void {
    this.#tasks.delete(`${ownerKey}\u0000${taskId}`);
  }

  async dispose(): Promise<void> {
    this.#tasks.clear();
    this.#requesters.clear();
  }
}
