/**
 * The durable push deliverer of the NATS backend. Jobs go to a JetStream work queue (see
 * `work-queue.ts`: stream `<prefix>_push_work`, subject `<prefix>.push.work`, one durable pull
 * consumer `<prefix>_push_workers` shared by every node), so a delivery outlives the node that
 * queued it:
 *
 * - Dedup: a job is published with the hash of its URL and event id as `Nats-Msg-Id`, so every node may
 *   queue the same change; the stream stores it once (within the duplicate window).
 * - Retries: a failed attempt is `nak`'d with the backoff delay; the server redelivers it then,
 *   to whichever node pulls (nak with a delay works on nats-server 2.9). The attempt number is
 *   the delivery count, so it survives node changes. `max_deliver` is `maxAttempts + 1`: one
 *   spare delivery to record "gave up" when the last attempt was cut short.
 * - Crashes: a node holds a job only while it heartbeats (`working()`); killed mid-request, its
 *   job is redelivered to another node after `ackWaitMs` (stopped with `dispose()`, it hands the
 *   job back at once). A delivery is never lost, and may be made twice (at least once: receivers
 *   dedupe on the signed body's `eventId`). An attempt cut short leaves no record.
 * - Records: each attempt is written to the KV bucket `<prefix>_push_attempts` (one key per event
 *   and attempt, history 1, kept `attemptsTtlMs`) before the job is acked, so any node (the
 *   inspector) lists and watches every node's attempts.
 *
 * @module
 */
import { KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { resolvePushOptions, type PushOptions, type ResolvedPushOptions } from '../../push/backoff.js';
import { PushAllowList } from '../../push/push-allow.js';
import { attemptPush } from '../../push/push-attempt.js';
import { checkPushJob, deliveryKey } from '../../push/push-job.js';
import type { DeliveryAttempt, PushJob, PushQueue } from '../../push/push.types.js';
import type { TaskMetrics } from '../../telemetry/metrics.js';
import { RuntimeDisposedError } from '../../errors.js';
import { hashToken, nameFromPrefix } from './keys.js';
import { WorkQueue, type WorkContext } from './work-queue.js';

/**
 * Options of {@link NatsPushQueue.open}.
 *
 * @example
 * ```ts
 * await NatsPushQueue.open(nc, { prefix: 'tasks', allow, ackWaitMs: 30_000, concurrency: 16 });
 * ```
 */
export interface NatsPushQueueOptions extends PushOptions {
  /** Prefix of the stream, subject and bucket names (as the rest of the backend's). @default 'tasks' */
  readonly prefix?: string;
  /** URLs that may be called. @default an empty list: nothing is called */
  readonly allow?: PushAllowList;
  /** How long a node may hold a job without a heartbeat before another node gets it, in ms. @default 30000 */
  readonly ackWaitMs?: number;
  /** Replicas of the stream and the bucket. @default 1 */
  readonly replicas?: number;
  /** Storage of the stream and the bucket. @default 'file' */
  readonly storage?: 'file' | 'memory';
  /** Pull and send jobs on this node; false for a node that only queues and inspects. @default true */
  readonly consume?: boolean;
  /** Requests this node makes at the same time, at most. @default 8 */
  readonly concurrency?: number;
  /** Clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Jitter source, in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** The node's task metrics (the attempts this node makes, by outcome). @default null */
  readonly metrics?: TaskMetrics | null;
}

/** What the work queue carries: the job, under the id the stream dedupes on. */
interface PushItem {
  readonly id: string;
  readonly job: PushJob;
}

/**
 * Delivers push jobs from every node of a NATS deployment, at least once, with backoff.
 *
 * @example
 * ```ts
 * const queue = await NatsPushQueue.open(nc, { prefix: 'tasks', allow: new PushAllowList(['https://hooks.example.com/']) });
 * await queue.enqueue({ target, event, until: task.expiresAt, attempt: 0 });
 * const off = queue.onAttempt((a) => console.log(a.eventId, a.attempt, a.status));
 * await queue.dispose();
 * ```
 */
export class NatsPushQueue implements PushQueue {
  readonly #work: WorkQueue<PushItem>;
  readonly #kv: KV;
  readonly #allow: PushAllowList;
  readonly #options: ResolvedPushOptions;
  readonly #now: () => number;
  readonly #random: () => number;
  #metrics: TaskMetrics | null = null;
  readonly #stop = new AbortController();
  readonly #listeners = new Set<(attempt: DeliveryAttempt) => void>();
  #watcher: Awaited<ReturnType<KV['watch']>> | null = null;
  #loops: Promise<void>[] = [];

  private constructor(work: WorkQueue<PushItem>, kv: KV, allow: PushAllowList, options: ResolvedPushOptions, now: () => number, random: () => number) {
    this.#work = work;
    this.#kv = kv;
    this.#allow = allow;
    this.#options = options;
    this.#now = now;
    this.#random = random;
  }

  /** Name of the JetStream stream that holds the jobs. */
  get stream(): string {
    return this.#work.stream;
  }

  /**
   * Creates the stream, consumer and bucket if missing, starts watching attempts and, unless
   * `consume` is false, starts pulling jobs.
   *
   * @param nc - a connection from `connectNats` (closed by the caller, after `dispose()`)
   * @param options - names, allow-list, delivery settings, ack wait, concurrency
   * @throws {@link InvalidArgumentError} when a setting is out of range
   * @example
   * ```ts
   * const queue = await NatsPushQueue.open(nc, { allow, ackWaitMs: 30_000 });
   * ```
   */
  static async open(nc: NatsConnection, options: NatsPushQueueOptions = {}): Promise<NatsPushQueue> {
    const resolved = resolvePushOptions(options);
    const prefix = options.prefix ?? 'tasks';
    const replicas = options.replicas ?? 1;
    const storage = options.storage ?? 'file';
    const work = await WorkQueue.open<PushItem>(nc, {
      prefix: `${prefix}.push`,
      replicas,
      storage,
      ackWaitMs: options.ackWaitMs ?? 30_000,
      maxDeliver: resolved.maxAttempts + 1,
      duplicateWindowMs: resolved.duplicateWindowMs,
      // A job waiting for its retry is a delivered, unacked message: a cap would stall new jobs
      // behind a receiver that is down.
      maxAckPending: -1,
    });
    const kv = await ensureBucket(nc, `${nameFromPrefix(prefix)}_push_attempts`, { history: 1, ttl: resolved.attemptsTtlMs, replicas, storage });
    const queue = new NatsPushQueue(work, kv, options.allow ?? new PushAllowList(), resolved, options.now ?? Date.now, options.random ?? Math.random);
    queue.#metrics = options.metrics ?? null;
    await queue.#watch();
    if (options.consume ?? true) {
      const signal = queue.#stop.signal;
      // consume() retries failed pulls itself; it rejects only when the consumer is gone.
      queue.#loops.push(work.consume((item, context) => queue.#deliver(item, context), { signal, concurrency: options.concurrency ?? 8 }).catch(() => undefined));
    }
    return queue;
  }

  /**
   * Queues `job` on the stream; resolves once the server stored it (or found it a duplicate).
   *
   * @throws {@link InvalidArgumentError} when the job is malformed
   * @throws {@link RuntimeDisposedError} after `dispose()`
   * @example
   * ```ts
   * await queue.enqueue({ target, event, until: task.expiresAt, attempt: 0 });
   * ```
   */
  async enqueue(job: PushJob): Promise<void> {
    if (this.#stop.signal.aborted) throw new RuntimeDisposedError();
    checkPushJob(job);
    // Hashed: an event id is built from a requester's task id, which may hold anything, and a
    // header value may not.
    await this.#work.enqueue({ id: hashToken(deliveryKey(job)), job });
  }

  /**
   * Attempts recorded by any node within `attemptsTtlMs`, oldest first.
   *
   * @param taskId - only this task's
   * @example
   * ```ts
   * const shown = await queue.attempts('task-1');
   * ```
   */
  async attempts(taskId?: string): Promise<DeliveryAttempt[]> {
    const keys: string[] = [];
    for await (const key of await this.#kv.keys(taskId === undefined ? '>' : `${hashToken(taskId)}.>`)) keys.push(key);
    const entries = await Promise.all(keys.map((key) => this.#kv.get(key)));
    const out = entries.flatMap((entry) => parseAttempt(entry) ?? []).filter((a) => taskId === undefined || a.taskId === taskId);
    return out.sort((a, b) => a.at - b.at || a.attempt - b.attempt);
  }

  /**
   * Calls `listener` after every attempt recorded by any node from now on.
   *
   * @returns unsubscribes
   * @example
   * ```ts
   * const off = queue.onAttempt((a) => inspector.push(a));
   * ```
   */
  onAttempt(listener: (attempt: DeliveryAttempt) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * Stops pulling and watching. A request in flight is cancelled and its job handed back at once
   * (another node takes it); the connection stays open.
   *
   * @example
   * ```ts
   * await queue.dispose(); await nc.drain();
   * ```
   */
  async dispose(): Promise<void> {
    this.#stop.abort();
    this.#watcher?.stop();
    await Promise.allSettled(this.#loops);
  }

  async #deliver(item: PushItem, context: WorkContext): Promise<void | { readonly retryInMs: number }> {
    try {
      checkPushJob(item.job);
    } catch {
      return; // not a job (published by something else): acked, since no retry can fix it
    }
    const attempt = item.job.attempt + context.deliveryCount;
    const result = await attemptPush(item.job, attempt, { allow: this.#allow, options: this.#options, now: this.#now, signal: context.signal, random: this.#random, metrics: this.#metrics });
    // Stopped midway: hand the job back now (a plain nak) rather than after the ack wait.
    if (result === null) return { retryInMs: 0 };
    try {
      await this.#kv.put(attemptKey(result.record), JSON.stringify(result.record));
    } catch {
      // A lost record must not cost a delivery: the outcome still decides ack or retry.
    }
    // At least 1 ms: a zero delay is sent as a plain nak, which nats-server 2.9 does not count
    // as a delivery, and the delivery count is the attempt number.
    return result.retryInMs === null ? undefined : { retryInMs: Math.max(1, result.retryInMs) };
  }

  async #watch(): Promise<void> {
    const watcher = await this.#kv.watch({ include: KvWatchInclude.UpdatesOnly });
    this.#watcher = watcher;
    this.#loops.push(
      (async () => {
        for await (const entry of watcher) {
          const attempt = parseAttempt(entry);
          if (attempt !== null) for (const listener of [...this.#listeners]) notify(listener, attempt);
        }
      })().catch(() => undefined), // the connection closed: nothing left to watch
    );
  }
}

/** `<hash(taskId)>.<hash(url, eventId)>.<attempt>`: a task's records are one `keys()` filter away. */
function attemptKey(a: DeliveryAttempt): string {
  return `${hashToken(a.taskId)}.${hashToken(`${a.url}\u0000${a.eventId}`)}.${a.attempt}`;
}

function parseAttempt(entry: KvEntry | null): DeliveryAttempt | null {
  if (entry === null || entry.operation !== 'PUT') return null;
  try {
    const value = entry.json<DeliveryAttempt | null>();
    return value !== null && typeof value.eventId === 'string' && typeof value.attempt === 'number' ? value : null;
  } catch {
    return null;
  }
}

function notify(listener: (attempt: DeliveryAttempt) => void, attempt: DeliveryAttempt): void {
  try {
    listener(attempt);
  } catch {
    // an observer's failure must not stop the watch
  }
}
