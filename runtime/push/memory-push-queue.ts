/**
 * The in-process push deliverer of the memory backend: attempts run in this process, retries
 * wait on timers, and attempt records are kept in memory. Nothing survives the process, like
 * every other task of that backend.
 *
 * The clock and the timer are injectable, so tests drive backoff and expiry without sleeping.
 *
 * @module
 */
import { RuntimeDisposedError } from '../errors.js';
import { resolvePushOptions, type PushOptions, type ResolvedPushOptions } from './backoff.js';
import { PushAllowList } from './push-allow.js';
import { attemptPush } from './push-attempt.js';
import { checkPushJob, deliveryKey } from './push-job.js';
import type { DeliveryAttempt, PushJob, PushQueue } from './push.types.js';
import type { TaskMetrics } from '../telemetry/metrics.js';

/**
 * Runs `run` after `ms`; returns what cancels it.
 *
 * @example
 * ```ts
 * const setTimer: SetTimer = (run, ms) => { const t = setTimeout(run, ms); return () => clearTimeout(t); };
 * ```
 */
export type SetTimer = (run: () => void, ms: number) => () => void;

/**
 * Options of {@link MemoryPushQueue}.
 *
 * @example
 * ```ts
 * new MemoryPushQueue({ allow, now: () => clock, setTimer: (run, ms) => fake.schedule(run, ms) });
 * ```
 */
export interface MemoryPushQueueOptions extends PushOptions {
  /** URLs that may be called. @default an empty list: nothing is called */
  readonly allow?: PushAllowList;
  /** Clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Timer of the retries. @default an unref'd `setTimeout` (a pending retry keeps no process alive) */
  readonly setTimer?: SetTimer;
  /** Jitter source, in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** The runtime's task metrics (delivery attempts by outcome). @default null */
  readonly metrics?: TaskMetrics | null;
}

const realTimer: SetTimer = (run, ms) => {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Delivers push jobs from this process, at least once, with backoff.
 *
 * @example
 * ```ts
 * const queue = new MemoryPushQueue({ allow: new PushAllowList(['https://hooks.example.com/']) });
 * queue.onAttempt((a) => console.log(a.eventId, a.attempt, a.status, a.final));
 * await queue.enqueue({ target, event, until: null, attempt: 0 });
 * ```
 */
export class MemoryPushQueue implements PushQueue {
  readonly #allow: PushAllowList;
  readonly #options: ResolvedPushOptions;
  readonly #now: () => number;
  readonly #setTimer: SetTimer;
  readonly #random: () => number;
  readonly #metrics: TaskMetrics | null;
  readonly #stop = new AbortController();
  /** Event ids with an attempt running or a retry waiting, and what cancels the wait. */
  readonly #inFlight = new Map<string, () => void>();
  /** Event ids by the time they were queued, oldest first, for the dedup window. */
  readonly #seen = new Map<string, number>();
  readonly #records: DeliveryAttempt[] = [];
  readonly #listeners = new Set<(attempt: DeliveryAttempt) => void>();
  readonly #running = new Set<Promise<void>>();
  #idle: (() => void)[] = [];

  /**
   * @param options - allow-list, delivery settings, clock, timer
   * @throws {@link InvalidArgumentError} when a delivery setting is out of range
   */
  constructor(options: MemoryPushQueueOptions = {}) {
    this.#allow = options.allow ?? new PushAllowList();
    this.#options = resolvePushOptions(options);
    this.#now = options.now ?? Date.now;
    this.#setTimer = options.setTimer ?? realTimer;
    this.#random = options.random ?? Math.random;
    this.#metrics = options.metrics ?? null;
  }

  /**
   * Queues `job` and starts its first attempt at once. A job whose event id is still being
   * delivered, or was queued within `duplicateWindowMs`, is dropped.
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
    const id = deliveryKey(job);
    const now = this.#now();
    for (const [seen, at] of this.#seen) {
      if (now - at < this.#options.duplicateWindowMs) break;
      this.#seen.delete(seen);
    }
    if (this.#inFlight.has(id) || this.#seen.has(id)) return;
    this.#seen.set(id, now);
    this.#inFlight.set(id, () => undefined);
    this.#run(job, job.attempt + 1);
  }

  /**
   * Attempts recorded within `attemptsTtlMs`, oldest first.
   *
   * @param taskId - only this task's
   * @example
   * ```ts
   * const failed = (await queue.attempts('task-1')).filter((a) => !a.delivered);
   * ```
   */
  async attempts(taskId?: string): Promise<DeliveryAttempt[]> {
    this.#forgetOldRecords();
    return this.#records.filter((a) => taskId === undefined || a.taskId === taskId);
  }

  /**
   * Calls `listener` after every attempt (a throwing listener is ignored).
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
   * Resolves once no attempt is running and no retry is waiting.
   *
   * @example
   * ```ts
   * await queue.enqueue(job); await queue.idle(); // every job delivered or given up
   * ```
   */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Cancels waiting retries and running requests (unrecorded: the process is going away, and
   * with it the memory backend's tasks); resolves once every attempt has stopped.
   *
   * @example
   * ```ts
   * await queue.dispose();
   * ```
   */
  async dispose(): Promise<void> {
    this.#stop.abort();
    for (const cancel of this.#inFlight.values()) cancel();
    this.#inFlight.clear();
    await Promise.allSettled([...this.#running]);
    this.#wakeIdle();
  }

  #run(job: PushJob, attempt: number): void {
    const running: Promise<void> = this.#attempt(job, attempt).finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  async #attempt(job: PushJob, attempt: number): Promise<void> {
    const context = { allow: this.#allow, options: this.#options, now: this.#now, signal: this.#stop.signal, random: this.#random, metrics: this.#metrics };
    const result = await attemptPush(job, attempt, context);
    if (result === null || this.#stop.signal.aborted) return;
    this.#record(result.record);
    const id = deliveryKey(job);
    if (result.retryInMs === null) {
      this.#inFlight.delete(id);
      if (this.#inFlight.size === 0) this.#wakeIdle();
      return;
    }
    this.#inFlight.set(id, this.#setTimer(() => this.#run(job, attempt + 1), result.retryInMs));
  }

  #record(attempt: DeliveryAttempt): void {
    this.#records.push(attempt);
    this.#forgetOldRecords();
    for (const listener of [...this.#listeners]) {
      try {
        listener(attempt);
      } catch {
        // an observer's failure must not stop deliveries
      }
    }
  }

  #forgetOldRecords(): void {
    const oldest = this.#now() - this.#options.attemptsTtlMs;
    let drop = 0;
    while (drop < this.#records.length && this.#records[drop]!.at < oldest) drop++;
    if (drop > 0) this.#records.splice(0, drop);
  }

  #wakeIdle(): void {
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }
}
