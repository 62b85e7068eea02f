/**
 * Input requests of 2025-11-25 tasks for requesters that never keep a `tasks/result` open while a
 * task waits (the official `@modelcontextprotocol/ext-tasks` requester polls `tasks/get`, and
 * calls `tasks/result` only once the task has ended). After a grace period with no `tasks/result`
 * open for the task, the request goes out unattached to any request, which a Streamable HTTP
 * session carries on its standalone GET stream (and stdio on the pipe). A `tasks/result` opened
 * later takes the request over: the spec's own channel always wins.
 *
 * A task is watched from its requester's first `tasks/get` (which is how such a requester follows
 * it) until an answer shows it ended. Cheap for the tasks that never ask: watching is an entry in
 * a map; one listener per connection hears input requests, and only a task that asks gets a
 * deliverer (and a status subscription that ends it with the task).
 *
 * @module
 */
import { isTerminalStatus, type TaskOwner } from '../../machines/index.js';
import type { InputRequest, TaskRuntime, TaskView } from '../../runtime/index.js';
import { withRelatedMetaFor } from '../dialects/index.js';
import { deliverInputs, GiveBack, type InputChannel } from './input-delivery.js';

/** Sends one request to the peer unattached to any request of its own (SDK-specific). */
export type UnattachedSender = (request: { readonly method: string; readonly params: Record<string, unknown> }, signal: AbortSignal) => Promise<unknown>;

/** How long an input request waits for a `tasks/result` to carry it before it goes out alone. */
export const STANDALONE_INPUT_GRACE_MS = 300;

/**
 * How long an unattached request waits for its answer before it is given back (withdrawn, left
 * pending, sent again at the requester's next `tasks/get`): a transport drops an unattached
 * message when no standalone stream is open, and says nothing.
 */
export const UNATTACHED_ANSWER_MS = 30_000;

/**
 * When input requests go out unattached: `afterMs` with no `tasks/result` open (`false`: never),
 * and given back after `giveBackAfterMs` with no answer.
 */
export interface StandaloneInputOptions {
  /** @default 300 ({@link STANDALONE_INPUT_GRACE_MS}) */
  readonly afterMs?: number | false;
  /** @default 30_000 ({@link UNATTACHED_ANSWER_MS}) */
  readonly giveBackAfterMs?: number;
}

/** Tasks watched per connection at most (the oldest forgotten first). */
const WATCHED = 10_000;

/** Waits `ms`, or rejects when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted', { cause: signal.reason }))), { once: true });
  });
}

const keyOf = (owner: TaskOwner, taskId: string): string => `${owner.principal ?? ''}\u0001${owner.session ?? ''}\u0000${taskId}`;

/**
 * One connection's standalone input delivery.
 *
 * @example
 * ```ts
 * const standalone = new StandaloneInputs(runtime, channel, (request, signal) => server.request(request, { signal }));
 * standalone.watch(task, owner); // on each tasks/get of a 2025-11-25 task
 * const resume = standalone.stepAside(task, owner); // a tasks/result carries the input now
 * resume(false); // it ended without the outcome (the requester left): back to the standalone stream
 * ```
 */
export class StandaloneInputs {
  readonly #watched = new Map<string, { readonly task: TaskView; readonly owner: TaskOwner }>();
  readonly #delivering = new Map<string, () => void>();
  /** Tasks a `tasks/result` is carrying input for right now. */
  readonly #aside = new Map<string, number>();
  #stopListening: (() => void) | undefined;
  #closed = false;

  /** @param answerMs - see {@link UNATTACHED_ANSWER_MS} */
  constructor(
    private readonly runtime: TaskRuntime,
    private readonly channel: InputChannel,
    private readonly sendUnattached: UnattachedSender,
    private readonly graceMs = STANDALONE_INPUT_GRACE_MS,
    private readonly answerMs = UNATTACHED_ANSWER_MS,
  ) {}

  /** Watches a task of this connection's requester, as an answer just showed it (forgets it once it has ended). */
  watch(task: TaskView, owner: TaskOwner): void {
    if (this.#closed) return;
    const key = keyOf(owner, task.taskId);
    if (isTerminalStatus(task.status)) return this.#forget(key);
    if (!this.#watched.has(key)) {
      if (this.#watched.size >= WATCHED) this.#forget(this.#watched.keys().next().value!);
      this.#watched.set(key, { task, owner });
    }
    this.#stopListening ??= this.runtime.onInputRequest((request: InputRequest) => this.#deliver(keyOf(request.owner, request.taskId)));
    // Asking already (a task recovered on this connection): what it asks goes out now.
    if (task.status === 'input_required') this.#deliver(key);
  }

  /**
   * A `tasks/result` for the task is about to carry its input: this deliverer steps aside (what it
   * was sending is handed over). Call the result when the call ends, saying whether the task ended.
   */
  stepAside(task: TaskView, owner: TaskOwner): (ended: boolean) => void {
    const key = keyOf(owner, task.taskId);
    this.#aside.set(key, (this.#aside.get(key) ?? 0) + 1);
    this.#stopDelivering(key);
    return (ended) => {
      const left = (this.#aside.get(key) ?? 1) - 1;
      if (left > 0) this.#aside.set(key, left);
      else this.#aside.delete(key);
      if (ended || this.#closed) return this.#forget(key);
      // The requester left before the task ended: whatever the task asks goes out alone again.
      void this.runtime.get(task.taskId, owner, { countsAsPoll: false }).then((now) => this.#watched.has(key) && this.watch(now, owner), () => this.#forget(key));
    };
  }

  /** Stops everything (the connection closed). */
  close(): void {
    this.#closed = true;
    for (const stop of this.#delivering.values()) stop();
    this.#delivering.clear();
    this.#watched.clear();
    this.#aside.clear();
    this.#stopListening?.();
    this.#stopListening = undefined;
  }

  /** Starts delivering a watched task's input alone, unless a `tasks/result` carries it or it is under way. */
  #deliver(key: string): void {
    const watched = this.#watched.get(key);
    if (!watched || this.#closed || this.#aside.has(key) || this.#delivering.has(key)) return;
    const { task, owner } = watched;
    const send = async (input: InputRequest, signal: AbortSignal): Promise<unknown> => {
      await pause(this.graceMs, signal);
      // No answer in time: the message may have been dropped (no standalone stream open). Withdraw
      // it and stop here; the requester's next tasks/get starts a deliverer that sends it again.
      const unanswered = new AbortController();
      const timer = setTimeout(() => unanswered.abort(), this.answerMs);
      const stop = (): void => unanswered.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        return await this.sendUnattached({ method: input.method, params: withRelatedMetaFor(task, input.params) }, unanswered.signal);
      } catch (error) {
        if (!signal.aborted && unanswered.signal.aborted) {
          queueMicrotask(() => this.#stopDelivering(key));
          throw new GiveBack(`no answer to ${input.method} on the standalone stream within ${this.answerMs} ms`);
        }
        throw error;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
      }
    };
    const stopInputs = deliverInputs(this.runtime, task.taskId, owner, send, this.channel);
    // Ended: forgotten. Answered (here or through another connection of the requester): what is
    // still out on this one is withdrawn; a new question starts another deliverer.
    const stopStatus = this.runtime.subscribe(
      ({ task: now }) => (isTerminalStatus(now.status) ? this.#forget(key) : now.status !== 'input_required' && this.#stopDelivering(key)),
      { taskId: task.taskId, owner },
    );
    this.#delivering.set(key, () => {
      stopInputs();
      stopStatus();
    });
  }

  #stopDelivering(key: string): void {
    this.#delivering.get(key)?.();
    this.#delivering.delete(key);
  }

  #forget(key: string): void {
    this.#stopDelivering(key);
    this.#watched.delete(key);
  }
}
