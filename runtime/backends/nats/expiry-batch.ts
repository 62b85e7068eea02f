/**
 * Retention timers in batches. Every task that ends needs a durable timer (a message on the
 * timers queue, `nak`ed until due: nats-server 2.9 has no per-message TTL), and one message per
 * task cost a publish, a nak and at expiry a pull and an ack each. Tasks ending on one node
 * within a few milliseconds, due within the same tenth of a second, share one timer message
 * instead; the expiry loop removes them together (see `runExpiry`).
 *
 * A batch is only in memory until it is sent, so a worker lets a task's lease go only once the
 * task's timer is queued ({@link ExpiryBatch.queued}): if the node dies before, the lease
 * expires and the node that takes it over queues the timer again (`recoverTask`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

/** One task of a timer: remove the task under `key` (incarnation `order`). */
export interface ExpiryTask {
  readonly key: string;
  readonly order: number;
}

/** How long a batch collects tasks before it is sent. */
const COLLECT_MS = 20;
/** A batch is sent at once when it holds this many tasks (its message stays small). */
const MAX_TASKS = 200;
/** Dues within this slot share a batch; it is due at the slot's end (at most this much late). */
const DUE_SLOT_MS = 100;

interface Open {
  readonly due: number;
  readonly tasks: ExpiryTask[];
}

/**
 * Collects retention timers and sends them in batches.
 *
 * @example
 * ```ts
 * const batch = new ExpiryBatch((due, tasks) => queue.enqueue({ id: randomUUID(), due, tasks }).then(() => undefined));
 * batch.add({ key, order }, record.expiresAt!);
 * await batch.queued(); // every timer added so far is on the queue (or failed, logged by send)
 * ```
 */
export class ExpiryBatch {
  readonly #send: (id: string, due: number, tasks: readonly ExpiryTask[]) => Promise<void>;
  readonly #open = new Map<number, Open>();
  #timer: NodeJS.Timeout | null = null;
  #inFlight = new Set<Promise<void>>();
  /** Told by the next flush: one promise for every caller of `queued` meanwhile, not a timer each. */
  #flushed: { readonly promise: Promise<void>; readonly resolve: () => void } | null = null;

  /**
   * @param send - queues one batch durably (retrying through an outage); its failure is its own
   *   to log: a batch is sent once
   */
  constructor(send: (id: string, due: number, tasks: readonly ExpiryTask[]) => Promise<void>) {
    this.#send = send;
  }

  /**
   * Adds the timer of a task that ended: removed at `due` (up to a tenth of a second later).
   *
   * @example
   * ```ts
   * batch.add({ key, order: record.order }, record.expiresAt!);
   * ```
   */
  add(task: ExpiryTask, due: number): void {
    const slot = Math.ceil(due / DUE_SLOT_MS);
    let open = this.#open.get(slot);
    if (!open) {
      open = { due: slot * DUE_SLOT_MS, tasks: [] };
      this.#open.set(slot, open);
    }
    open.tasks.push(task);
    if (open.tasks.length >= MAX_TASKS) {
      this.#open.delete(slot);
      this.#dispatch(open);
    } else {
      this.#timer ??= setTimeout(() => this.flush(), COLLECT_MS);
    }
  }

  /**
   * Sends every open batch now.
   *
   * @example
   * ```ts
   * batch.flush();
   * ```
   */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const open = [...this.#open.values()];
    this.#open.clear();
    for (const o of open) this.#dispatch(o);
    const waiting = this.#flushed;
    this.#flushed = null;
    waiting?.resolve();
  }

  /**
   * Resolves once every timer added so far has been sent (queued, or given up on).
   *
   * @example
   * ```ts
   * await batch.queued();
   * leases.letGo(lease);
   * ```
   */
  async queued(): Promise<void> {
    // An open batch always has the collection timer running (see `add`): its flush is awaited.
    if (this.#open.size > 0) {
      if (!this.#flushed) {
        let resolve: () => void = () => undefined;
        const promise = new Promise<void>((r) => (resolve = r));
        this.#flushed = { promise, resolve };
      }
      await this.#flushed.promise;
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  #dispatch(open: Open): void {
    const sending: Promise<void> = this.#send(`expire:${randomUUID()}`, open.due, open.tasks)
      .catch(() => undefined)
      .finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
  }
}
