/**
 * Tasks no live worker serves. A front node accepts every task (a worker that starts a moment
 * later takes it from the work queue), but when, at create, no live worker announces the task's
 * handler (see `worker-announcements.ts`), it queues a durable check due `unservedTimeoutMs`
 * later. Whichever front node gets the due check ends the task `failed`, with a status message
 * naming the tool, if by then still no live worker announces the handler and the task was never
 * started; the front logs a warning at create and when it ends the task.
 *
 * The end is a compare-and-swap conditioned on the task being unstarted (`submitted`, no attempt)
 * in the same incarnation: a worker's start is conditioned on the record in the same way, so
 * exactly one of the two writes wins. A task a worker took is never ended here; a task this ends
 * is never started (its queued run is dropped by the worker that pulls it). A task whose handler
 * a live worker announces costs one lookup in memory at create, nothing more.
 *
 * @module
 */
import { taskEvents } from '../../../machines/index.js';
import type { TaskRecord } from './task-record.js';
import { persistently } from './persistently.js';
import { applyToTask, type TaskSpace } from './task-space.js';
import type { WorkerAnnouncements } from './worker-announcements.js';
import type { WorkQueue } from './work-queue.js';
import { shownTaskId } from '../../secrets.js';

/** A durable check: at `due` (epoch ms), end the task under `key` (incarnation `order`) if `handler` is still not served. */
export interface UnservedCheck {
  readonly id: string;
  readonly key: string;
  readonly order: number;
  readonly handler: string;
  readonly due: number;
}

/** Default of `unservedTimeoutMs`: how long a task waits for a worker that serves its handler. */
export const DEFAULT_UNSERVED_TIMEOUT_MS = 30_000;

/**
 * What a handler name stands for, for people: `tool "sleep"` for `tools/call:sleep`.
 *
 * @example
 * ```ts
 * describeHandler('prompts/get:greet'); // 'prompt "greet"'
 * ```
 */
export function describeHandler(handler: string): string {
  // A second definition under a name taken gets a suffix (see `work-registry.ts`): not part of the name.
  const name = handler.split('\u0001')[0]!;
  const kinds: readonly (readonly [string, string])[] = [
    ['tools/call:', 'tool'],
    ['prompts/get:', 'prompt'],
    ['resources/read:', 'resource'],
  ];
  for (const [prefix, kind] of kinds) if (name.startsWith(prefix)) return `${kind} ${JSON.stringify(name.slice(prefix.length))}`;
  return `handler ${JSON.stringify(name)}`;
}

/** `30 s`, `1.5 s`, `200 ms`. */
function duration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/**
 * The status message of a task ended because no live worker serves its handler.
 *
 * @example
 * ```ts
 * unservedMessage('tools/call:x', 30_000);
 * // 'No live worker serves tool "x" (waited 30 s, unservedTimeoutMs / --unserved-timeout; start a worker that registers it)'
 * ```
 */
export function unservedMessage(handler: string, timeoutMs: number): string {
  return `No live worker serves ${describeHandler(handler)} (waited ${duration(timeoutMs)}, unservedTimeoutMs / --unserved-timeout; start a worker that registers it)`;
}

/**
 * Watches a front node's new tasks for handlers no live worker serves.
 *
 * @example
 * ```ts
 * const unserved = new UnservedTasks(space, announcements, queue, 30_000);
 * void unserved.run(stop.signal);
 * unserved.created(key, record); // after each create
 * ```
 */
export class UnservedTasks {
  readonly #space: TaskSpace;
  readonly #announcements: WorkerAnnouncements;
  readonly #queue: WorkQueue<UnservedCheck>;
  readonly #timeoutMs: number;
  /** Handler → when this node last warned that no live worker serves it (one warning per bound). */
  readonly #warned = new Map<string, number>();

  constructor(space: TaskSpace, announcements: WorkerAnnouncements, queue: WorkQueue<UnservedCheck>, timeoutMs: number) {
    this.#space = space;
    this.#announcements = announcements;
    this.#queue = queue;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Told of every task this node created: one lookup in memory; a check is queued (in the
   * background) only when no live worker announces its handler.
   *
   * @param key - the task key
   * @param record - the record as created
   * @example
   * ```ts
   * unserved.created(key, created.record);
   * ```
   */
  created(key: string, record: TaskRecord): void {
    const handler = record.work?.handler;
    if (handler === undefined || this.#announcements.served(handler)) return;
    const space = this.#space;
    const now = space.now();
    const last = this.#warned.get(handler);
    if (last === undefined || now - last >= this.#timeoutMs) {
      this.#warned.set(handler, now);
      space.log('warn', `no live worker serves ${describeHandler(handler)}; its tasks wait for one up to ${duration(this.#timeoutMs)} (unservedTimeoutMs / --unserved-timeout), then fail`, {
        handler,
        taskId: shownTaskId(record.context.taskId, record.context.owner),
        node: space.nodeId,
      });
    }
    const check: UnservedCheck = { id: `unserved:${key}:${record.order}`, key, order: record.order, handler, due: now + this.#timeoutMs };
    void persistently(() => this.#queue.enqueue(check), { giveUpMs: 30_000 }).catch((error: unknown) =>
      space.log('warn', 'could not queue the check of a task no live worker serves', { key, handler, error: String(error) }),
    );
  }

  /**
   * Runs the due checks until `signal` aborts (every front node pulls; each check goes to one).
   *
   * @example
   * ```ts
   * await unserved.run(stop.signal);
   * ```
   */
  async run(signal: AbortSignal): Promise<void> {
    await this.#queue.consume(
      async (check) => {
        const wait = check.due - this.#space.now();
        if (wait > 0) return { retryInMs: wait };
        await this.#check(check);
        return undefined;
      },
      { signal, concurrency: 16, pollMs: 2_000, retryDelayMs: 1_000 },
    );
  }

  async #check(check: UnservedCheck): Promise<void> {
    const space = this.#space;
    // Served now (a worker started within the bound): the work queue hands it the task.
    if (this.#announcements.served(check.handler) || (await this.#announcements.confirm(check.handler))) return;
    const read = await space.store.read(check.key);
    if (read === null || !('found' in read)) return;
    const unstarted = (r: TaskRecord): boolean => r.order === check.order && r.status === 'submitted' && r.attempts === 0;
    if (!unstarted(read.found.record)) return;
    const message = unservedMessage(check.handler, this.#timeoutMs);
    const out = await applyToTask(space, check.key, taskEvents.fail(message, space.now()), { only: unstarted, base: read.found, writeId: check.id });
    if (!out?.changed) return;
    space.log('warn', 'task failed: no live worker serves its handler', {
      taskId: out.record.context.taskId,
      key: check.key,
      handler: check.handler,
      waitedMs: this.#timeoutMs,
      node: space.nodeId,
    });
  }
}
