/**
 * Dispatching work to worker nodes: a work-queue-retention stream (an item is removed once acked)
 * and one shared durable pull consumer, so each item goes to exactly one of the nodes pulling.
 * A running item is kept from redelivery by `working()` heartbeats; a node that dies without
 * acking has its item redelivered to another node after the ack wait.
 *
 * @module
 */
import {
  AckPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  type Consumer,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { InvalidArgumentError } from '../../errors.js';
import { ensureConsumer, ensureStream } from './ensure-stream.js';
import { nameFromPrefix } from './keys.js';
import { onAbort, pause } from './stop-signal.js';

/** An item of work; its `id` is the message id, so enqueuing the same id twice stores it once. */
export interface WorkItem {
  readonly id: string;
}

/** Options of {@link WorkQueue.open}. */
export interface WorkQueueOptions {
  /**
   * Subject prefix: items go to `<prefix>.work`; the stream is `<prefix>_work` and the durable
   * consumer `<prefix>_workers`.
   * @default 'tasks'
   */
  readonly prefix?: string;
  /** Replicas of the stream. @default 1 */
  readonly replicas?: number;
  /** Storage of the stream. @default 'file' */
  readonly storage?: 'file' | 'memory';
  /**
   * How long an item may go without an ack or a `working()` heartbeat before it is redelivered
   * (so also how long a crashed node's item waits), in ms.
   * @default 30000
   */
  readonly ackWaitMs?: number;
  /**
   * How many times an item is delivered at most; -1 for no limit.
   * @default -1
   */
  readonly maxDeliver?: number;
  /** How long the server remembers item ids for dedup, in ms. @default 120000 */
  readonly duplicateWindowMs?: number;
  /**
   * Items delivered and not yet acked, at most; -1 for no limit (needed for timers, which stay
   * unacked until due).
   * @default 1000
   */
  readonly maxAckPending?: number;
}

/** What a {@link WorkHandler} gets besides the item. */
export interface WorkContext {
  /** True when an earlier delivery was not acked (a retry or a crashed node's item). */
  readonly redelivered: boolean;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  /** When the item was stored, in epoch milliseconds by the server's clock. */
  readonly queuedAt: number;
  /** Aborted when the consumer is asked to stop. */
  readonly signal: AbortSignal;
}

/**
 * Runs one item; resolve to ack it, throw to have it redelivered after the retry delay, or
 * resolve `{ retryInMs }` to have it redelivered after that long (a durable timer: nats-server 2.9
 * has no per-message TTL, so a timer is a message put back until it is due).
 */
export type WorkHandler<T> = (item: T, context: WorkContext) => Promise<void | { readonly retryInMs: number }>;

/** Options of {@link WorkQueue.consume}. */
export interface ConsumeWorkOptions {
  /** Stops pulling; `consume` resolves once running handlers have settled. */
  readonly signal?: AbortSignal;
  /** Handlers running at the same time in this consumer, at most. @default 1 */
  readonly concurrency?: number;
  /** Delay before a failed item is redelivered, in ms. @default 1000 */
  readonly retryDelayMs?: number;
  /** How long one pull stays open for items before pulling again, in ms (>= 1000). @default 5000 */
  readonly pollMs?: number;
  /**
   * Awaited before each pull: how many items this consumer can start now (resolve once at least
   * one; the pull asks for no more than that nor than `concurrency` leaves free). A consumer whose
   * own capacity is full pulls nothing, so items stay available to other consumers instead of
   * waiting in a busy one. Default: only `concurrency` limits.
   */
  readonly room?: () => Promise<number>;
  /**
   * Items one pull asks for at most. A pull the client gives up on (heartbeats missed while its
   * event loop stalled) may still be handed items by the server, which then wait out their ack
   * wait: the bound caps how many. @default concurrency
   */
  readonly maxBatch?: number;
}

/**
 * The work queue.
 *
 * @typeParam T - the JSON shape of an item
 * @example
 * ```ts
 * const queue = await WorkQueue.open<{ id: string; taskKey: string }>(nc);
 * await queue.enqueue({ id: 'run:abc', taskKey: key });
 * const stop = new AbortController();
 * void queue.consume(async (item, { signal }) => runTask(item.taskKey, signal), { signal: stop.signal });
 * ```
 */
export class WorkQueue<T extends WorkItem = WorkItem> {
  readonly stream: string;
  readonly subject: string;
  readonly durable: string;
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #ackWaitMs: number;

  private constructor(nc: NatsConnection, stream: string, subject: string, durable: string, ackWaitMs: number) {
    this.#nc = nc;
    this.#js = jetstream(nc);
    this.stream = stream;
    this.subject = subject;
    this.durable = durable;
    this.#ackWaitMs = ackWaitMs;
  }

  /**
   * Creates the stream and the shared durable consumer if they are missing, and binds to them.
   *
   * @param nc - a connection from `connectNats`
   * @param options - prefix, replicas, storage, ack wait, max deliveries, dedup window
   * @example
   * ```ts
   * const queue = await WorkQueue.open(nc, { prefix: 'tasks', ackWaitMs: 10_000 });
   * ```
   */
  static async open<T extends WorkItem = WorkItem>(nc: NatsConnection, options: WorkQueueOptions = {}): Promise<WorkQueue<T>> {
    const prefix = options.prefix ?? 'tasks';
    const base = nameFromPrefix(prefix);
    const stream = `${base}_work`;
    const subject = `${prefix}.work`;
    const durable = `${base}_workers`;
    const ackWaitMs = options.ackWaitMs ?? 30_000;
    if (!(ackWaitMs >= 100)) throw new InvalidArgumentError(`ackWaitMs must be >= 100, got ${ackWaitMs}`);
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, {
      name: stream,
      subjects: [subject],
      retention: RetentionPolicy.Workqueue,
      storage: options.storage ?? 'file',
      num_replicas: options.replicas ?? 1,
      duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
    });
    await ensureConsumer(jsm, stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(ackWaitMs),
      max_deliver: options.maxDeliver ?? -1,
      max_ack_pending: options.maxAckPending ?? 1000,
    });
    return new WorkQueue<T>(nc, stream, subject, durable, ackWaitMs);
  }

  /**
   * Adds an item. An item whose `id` was enqueued within the dedup window is not stored again.
   *
   * @param item - the item, with a unique `id`
   * @returns whether the item was a duplicate
   * @example
   * ```ts
   * const { duplicate } = await queue.enqueue({ id: `run:${key}:1`, taskKey: key });
   * ```
   */
  async enqueue(item: T): Promise<{ readonly duplicate: boolean; readonly streamSeq: number }> {
    if (typeof item.id !== 'string' || item.id === '') throw new InvalidArgumentError('work item id must be a non-empty string');
    const ack = await this.#js.publish(this.subject, JSON.stringify(item), { msgID: item.id });
    return { duplicate: ack.duplicate, streamSeq: ack.seq };
  }

  /**
   * Pulls items from the shared durable consumer and runs `handler` on each: acked when it
   * resolves, nak'd (redelivered after `retryDelayMs`) when it throws, and kept from redelivery by
   * `working()` heartbeats while it runs. Every consumer on the same queue shares the items.
   *
   * @param handler - runs one item; honour `context.signal`
   * @param options - stop signal, concurrency, retry delay, poll time
   * @returns resolves once stopped (signal aborted or connection closed) and handlers settled
   * @example
   * ```ts
   * const stop = new AbortController();
   * const done = queue.consume(async (item) => { await run(item); }, { signal: stop.signal });
   * stop.abort(); await done;
   * ```
   */
  async consume(handler: WorkHandler<T>, options: ConsumeWorkOptions = {}): Promise<void> {
    const signal = options.signal ?? new AbortController().signal;
    const concurrency = options.concurrency ?? 1;
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new InvalidArgumentError(`concurrency must be a positive integer, got ${concurrency}`);
    const consumer = await this.#js.consumers.get(this.stream, this.durable);
    await this.#pullLoop(consumer, {
      handler,
      signal,
      concurrency,
      retryDelayMs: options.retryDelayMs ?? 1_000,
      pollMs: Math.max(1_000, options.pollMs ?? 5_000),
      room: options.room ?? (() => Promise.resolve(concurrency)),
      maxBatch: Math.max(1, options.maxBatch ?? concurrency),
    });
  }

  /**
   * One pull at a time, for as many items as there is room for: each item delivered starts at
   * once (its room was there when the pull asked), and the pull stays open, delivering items as
   * they arrive, until it has them all or its time is up. Under load that is one pull request per
   * batch instead of one per item; idle, one open pull per `pollMs`. An item is never pulled
   * without room to start it: one buffered behind a long handler would reach its ack wait and be
   * redelivered elsewhere while this node still meant to run it.
   */
  async #pullLoop(
    consumer: Consumer,
    o: { handler: WorkHandler<T>; signal: AbortSignal; concurrency: number; retryDelayMs: number; pollMs: number; room: () => Promise<number>; maxBatch: number },
  ): Promise<void> {
    const running = new Set<Promise<void>>();
    let wake: (() => void) | null = null;
    const settled = (p: Promise<void>): void => {
      running.delete(p);
      wake?.();
    };
    while (!o.signal.aborted && !this.#nc.isClosed()) {
      try {
        while (running.size >= o.concurrency && !o.signal.aborted) {
          await new Promise<void>((resolve) => {
            const off = onAbort(o.signal, () => resolve());
            wake = (): void => {
              wake = null;
              off();
              resolve();
            };
          });
        }
        const room = Math.min(await o.room(), o.concurrency - running.size, o.maxBatch);
        if (o.signal.aborted) break;
        if (room < 1) continue;
        const batch = await consumer.fetch({ max_messages: room, expires: o.pollMs });
        // Also when aborted while the pull was being set up.
        const off = onAbort(o.signal, () => void batch.close());
        try {
          for await (const m of batch) {
            const p: Promise<void> = this.#run(m, o.handler, o.signal, o.retryDelayMs).finally(() => settled(p));
            running.add(p);
          }
        } finally {
          off();
        }
      } catch {
        // A pull failed (reconnecting, server restarting): wait and pull again, unless stopped.
        if (o.signal.aborted || this.#nc.isClosed()) break;
        await pause(o.retryDelayMs, o.signal);
      }
    }
    await Promise.allSettled([...running]);
  }

  async #run(m: JsMsg, handler: WorkHandler<T>, signal: AbortSignal, retryDelayMs: number): Promise<void> {
    let item: T;
    try {
      item = m.json<T>();
    } catch {
      m.term(); // not JSON: redelivering would never help
      return;
    }
    const heartbeat = setInterval(() => quietly(() => m.working()), Math.max(50, Math.floor(this.#ackWaitMs / 3)));
    let ok = false;
    let later: number | null = null;
    try {
      const outcome = await handler(item, { redelivered: m.redelivered, deliveryCount: m.info.deliveryCount, queuedAt: Math.floor(m.info.timestampNanos / 1e6), signal });
      if (outcome && typeof outcome.retryInMs === 'number') later = Math.max(0, outcome.retryInMs);
      ok = true;
    } catch {
      // handled below: the item goes back to the queue
    } finally {
      clearInterval(heartbeat);
    }
    // Acked without waiting for the server's confirmation (nothing here depends on it): if the ack
    // is lost, the item is redelivered after the ack wait (at-least-once) and its handler finds
    // the work done (a terminal task, a removed one).
    if (ok && later !== null) quietly(() => m.nak(later));
    else if (ok) quietly(() => m.ack());
    else quietly(() => m.nak(retryDelayMs));
  }
}

/** Runs a fire-and-forget protocol call; a closed connection must not crash a timer callback. */
function quietly(action: () => void): void {
  try {
    action();
  } catch {
    // connection closed or draining: the server redelivers after the ack wait
  }
}
