/**
 * A runtime's graceful close, once for every backend: from the moment it starts, new tasks are
 * refused with a retryable error (subtasks of running tasks are not, so that running work can
 * finish) while every other call answers as before; the node stops taking work from elsewhere;
 * its runs get the drain time to end; what still runs then is ended or handed over by the
 * backend (see `TaskStore.endRuns`); then the runtime is disposed.
 *
 * @module
 */
import type { CloseOptions } from '../drain.types.js';
import { InvalidArgumentError, RuntimeDrainingError } from '../errors.js';
import type { CreateTaskOptions, TaskRuntime } from '../task-runtime.types.js';
import type { TaskState, TaskStore } from './task-store.js';

/** `CloseOptions.drainMs` by default: `serve --drain-timeout`'s default too. */
export const DEFAULT_DRAIN_MS = 30_000;

/** `CloseOptions.retryAfterMs` by default. */
export const DEFAULT_DRAIN_RETRY_AFTER_MS = 1_000;

/** How often a drain looks whether the node's runs have ended. */
const RUNS_POLL_MS = 25;

/**
 * How much later than the interval it was suggested a poller may come back, and still find the
 * node answering (`CloseOptions.lingerMs`): timers, a slow network, a requester's own jitter.
 */
export const LINGER_MARGIN_MS = 1_000;

/** The reason a draining node gives for not being ready. */
export const DRAINING_REASON = 'draining: the node is shutting down and takes no new task';

/**
 * The drain half of `close`, under a key every wrapper of a runtime carries along (object spread
 * copies it): a wrapper with a `dispose` of its own closes as `closeOf(() => itself)`.
 */
export const DRAIN: unique symbol = Symbol('mcp-task-actors.drain');

/** Where a runtime keeps {@link openCallOf}, under a key its wrappers carry along as they do {@link DRAIN}. */
export const OPEN_CALL: unique symbol = Symbol('mcp-task-actors.open-call');

/**
 * A requester's call held open until a task ends (a blocked 2025-11-25 `tasks/result`, a
 * SEP-1686 call): a drain waits for it within its time, and at its deadline ends it.
 */
export interface OpenCall {
  /**
   * Aborted at the drain's deadline (at once for a call opened after it), its reason a
   * {@link RuntimeDrainingError} saying whether another node holds the task or the shutdown ends it.
   */
  readonly signal: AbortSignal;
  /** The call is over (answered or given up); idempotent. */
  close(): void;
}

/** A runtime with its drain half. */
export interface Drainable extends TaskRuntime {
  readonly [DRAIN]: (options: CloseOptions) => Promise<void>;
  readonly [OPEN_CALL]: () => OpenCall;
}

const NEVER_ENDED: OpenCall = { signal: new AbortController().signal, close: () => undefined };

/**
 * Counts a requester's call held open on `runtime` until `close` (see {@link OpenCall}). A
 * runtime not made by this project ends no call.
 *
 * @example
 * ```ts
 * const call = openCallOf(runtime);
 * try {
 *   return await runtime.waitForOutcome(taskId, owner, { signal: AbortSignal.any([request.signal, call.signal]), countsAsPoll: false });
 * } finally {
 *   call.close();
 * }
 * ```
 */
export function openCallOf(runtime: TaskRuntime): OpenCall {
  return (runtime as Partial<Drainable>)[OPEN_CALL]?.() ?? NEVER_ENDED;
}

/**
 * `close` of `self`: its drain, then its own `dispose` (whatever wraps the core disposes what it
 * added too).
 *
 * @example
 * ```ts
 * const wrapped = { ...runtime, dispose: async () => { stop(); await runtime.dispose(); }, close: closeOf(() => wrapped) };
 * ```
 */
export function closeOf(self: () => TaskRuntime): TaskRuntime['close'] {
  return async (options = {}) => {
    const runtime = self() as Partial<Drainable> & TaskRuntime;
    await runtime[DRAIN]?.(options);
    await runtime.dispose();
  };
}

/**
 * The drain half of `runtime.close` alone, for a host that closes what it serves between the
 * drain and the disposal (`mcp-tasks serve`: requests in flight are answered by a live runtime).
 * A runtime without one (not made by this project) drains nothing.
 *
 * @example
 * ```ts
 * await drainOf(runtime)({ drainMs: 30_000 });
 * await endpoint.close();
 * await runtime.dispose();
 * ```
 */
export function drainOf(runtime: TaskRuntime): (options: CloseOptions) => Promise<void> {
  const drain = (runtime as Partial<Drainable>)[DRAIN];
  return drain ?? (() => Promise.resolve());
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`${name} must be a non-negative number of ms, got ${value}`);
  return value;
}

/**
 * One runtime's drain state.
 *
 * @example
 * ```ts
 * const drain = new Drain(store);
 * drain.admit(createOptions); // throws RuntimeDrainingError once draining
 * await drain.run({ drainMs: 30_000 });
 * ```
 */
export class Drain<S extends TaskState> {
  readonly #store: TaskStore<S>;
  #retryAfterMs: number | null = null;
  #running: Promise<void> | null = null;
  /** Creates admitted and not yet settled. */
  #creating = 0;
  /** Requesters' calls held open (see {@link OpenCall}). */
  #openCalls = 0;
  readonly #hangUp = new AbortController();
  /** When the last requester expected to poll again does so (epoch ms, wall clock), by the intervals it was suggested. */
  #nextPollBy = -Infinity;

  constructor(store: TaskStore<S>) {
    this.#store = store;
  }

  /** Counts a requester's call held open until its `close` (see {@link OpenCall}). */
  open(): OpenCall {
    this.#openCalls++;
    let open = true;
    return {
      signal: this.#hangUp.signal,
      close: () => {
        if (open) this.#openCalls--;
        open = false;
      },
    };
  }

  /**
   * A requester read a task that suggests polling every `intervalMs`: it may come back that much
   * later (and a margin), and a drain that lingers answers it then.
   */
  noteRead(intervalMs: number): void {
    const by = Date.now() + intervalMs + LINGER_MARGIN_MS;
    if (by > this.#nextPollBy) this.#nextPollBy = by;
  }

  /** Whether the runtime drains (or drained). */
  get draining(): boolean {
    return this.#retryAfterMs !== null;
  }

  /**
   * Refuses a new task while draining; a subtask of a running task passes (its parent's work
   * must be able to finish). An admitted create is counted until the returned function is called
   * (once it settled): one admitted just before a drain began may still be reading or registering
   * before it stores its task, and the drain waits for it rather than dispose under it.
   *
   * @throws RuntimeDrainingError
   */
  admit(o: CreateTaskOptions): () => void {
    if (this.#retryAfterMs !== null && o.parentId === undefined) throw new RuntimeDrainingError(this.#retryAfterMs);
    this.#creating++;
    let counted = true;
    return () => {
      if (counted) this.#creating--;
      counted = false;
    };
  }

  /** Why the runtime is not ready on its drain's account. */
  reasons(): string[] {
    return this.#retryAfterMs === null ? [] : [DRAINING_REASON];
  }

  /**
   * Drains: refuses new tasks from now, stops taking work from elsewhere, waits up to `drainMs`
   * (wall time: a test's frozen clock must not make it endless) for this node's runs to end, then
   * has the store end or hand over the rest. A second call joins the first.
   *
   * @throws InvalidArgumentError for a negative or non-finite duration
   */
  run(options: CloseOptions): Promise<void> {
    const drainMs = nonNegative('drainMs', options.drainMs ?? DEFAULT_DRAIN_MS);
    const retryAfterMs = nonNegative('retryAfterMs', options.retryAfterMs ?? DEFAULT_DRAIN_RETRY_AFTER_MS);
    const lingerMs = nonNegative('lingerMs', options.lingerMs ?? 0);
    this.#running ??= this.#drain(drainMs, retryAfterMs, lingerMs);
    return this.#running;
  }

  async #drain(drainMs: number, retryAfterMs: number, lingerMs: number): Promise<void> {
    this.#retryAfterMs = retryAfterMs;
    const store = this.#store;
    const deadline = Date.now() + drainMs;
    // Within the drain time: what it was taking when told counts as its runs from then on.
    await Promise.race([store.stopTaking(), new Promise((resolve) => setTimeout(resolve, drainMs).unref())]);
    // Creates admitted before the drain began first: each may yet start a run on this node.
    const running = (): boolean => this.#creating > 0 || store.stats().live > 0;
    // A call held open waits for a task that may end within the drain time, here or (NATS) on the node that runs it.
    for (let left = drainMs; (running() || this.#openCalls > 0) && left > 0; left = deadline - Date.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(RUNS_POLL_MS, left)));
    }
    // Before the runs end: each call still open is told why it gets no outcome here, never cut
    // with its socket; one opened from now on is told at once. Its requester, retrying, reads
    // the task's end (or, NATS, its progress on another node).
    const hungUp = this.#openCalls;
    this.#hangUp.abort(new RuntimeDrainingError(retryAfterMs, { message: hangUpMessage(store.handsOver, retryAfterMs) }));
    if (hungUp > 0) {
      this.noteRead(retryAfterMs);
      // Their answers go out before anything closes under them (stdio has no count of its own).
      await new Promise((resolve) => setTimeout(resolve, RUNS_POLL_MS));
    }
    if (running()) {
      await store.endRuns();
      // Waiters that saw those ends (a subtask's parent, an embedder's wait) read them in the
      // next turns: they answer before the runtime is disposed under them.
      await new Promise((resolve) => setTimeout(resolve, RUNS_POLL_MS));
    }
    // Pollers are between two polls: the node answers them until the last one expected is
    // back (within lingerMs), so each learns how its task ended instead of finding no listener.
    const linger = Math.min(lingerMs, this.#nextPollBy - Date.now());
    if (linger > 0) await new Promise((resolve) => setTimeout(resolve, linger));
  }
}

/** What a call still open at the drain's deadline is told. */
function hangUpMessage(handsOver: boolean, retryAfterMs: number): string {
  return handsOver
    ? `The server is shutting down; the task goes on on another node: retry after ${retryAfterMs} ms (through the same address another node answers)`
    : `The server is shutting down and ends the task ("shut down before the task finished"): retry after ${retryAfterMs} ms to read its end`;
}
