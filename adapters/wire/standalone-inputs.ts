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
import { applyAnswer, deliverInputs, GiveBack, type InputChannel } from './input-delivery.js';

/** Sends one request to the peer unattached to any request of its own (SDK-specific). */
export type UnattachedSender = (request: { readonly method: string; readonly params: Record<string, unknown> }, signal: AbortSignal) => Promise<unknown>;

/** How long an input request waits for a `tasks/result` to carry it before it goes out alone. */
export const STANDALONE_INPUT_GRACE_MS = 300;

/**
 * How long an unattached request waits for its answer before its question is sent again at the
 * requester's next `tasks/get` (a transport drops an unattached message when no standalone stream
 * is open, and says nothing). The first copy stays out: a person may still be answering it, and
 * whichever answer comes first counts; the others are withdrawn.
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
  /** Copies kept out past their give-back, by task. */
  readonly #outstanding = new Map<string, Set<AbortController>>();
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
    for (const copies of this.#outstanding.values()) for (const copy of copies) copy.abort();
    this.#outstanding.clear();
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
      // A connection whose requester cannot take it leaves it pending for one that can.
      if (!this.channel.peerSupports(input.method)) throw new GiveBack(`this connection's requester did not declare what ${input.method} needs`);
      // This copy's own life: withdrawn with the deliverer, unless it is kept past a give-back.
      const copy = new AbortController();
      const withdraw = (): void => copy.abort();
      signal.addEventListener('abort', withdraw, { once: true });
      const answer = this.sendUnattached({ method: input.method, params: withRelatedMetaFor(task, input.params) }, copy.signal);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.answerMs)));
      try {
        const first = await Promise.race([answer, late]);
        // Answered: nothing of this copy is left to withdraw.
        if (first !== 'late') return (signal.removeEventListener('abort', withdraw), first);
      } catch (error) {
        signal.removeEventListener('abort', withdraw);
        throw error;
      } finally {
        clearTimeout(timer);
      }
      // No answer yet: the message may have been dropped (no standalone stream open), or a person
      // is still answering it. The copy stays out (an answer to it still counts) and the deliverer
      // stops: the requester's next tasks/get sends the question again.
      signal.removeEventListener('abort', withdraw);
      this.#keep(key, copy);
      const settled = (): void => void this.#outstanding.get(key)?.delete(copy);
      answer.then(
        (result) => (settled(), applyAnswer(this.runtime, task.taskId, owner, input.inputId, { result })),
        settled,
      ).catch(() => undefined);
      queueMicrotask(() => this.#stopDelivering(key));
      throw new GiveBack(`no answer to ${input.method} on the standalone stream within ${this.answerMs} ms`);
    };
    // What the requester cannot take is left pending by `send` (not refused here, as a call the
    // requester made would be): another of its connections may take it.
    const stopInputs = deliverInputs(this.runtime, task.taskId, owner, send, { ...this.channel, peerSupports: () => true });
    // Ended: forgotten. Answered (here or through another connection of the requester): what is
    // still out on this one is withdrawn; a new question starts another deliverer.
    const stopStatus = this.runtime.subscribe(
      ({ task: now }) => (isTerminalStatus(now.status) ? this.#forget(key) : now.status !== 'input_required' && this.#withdraw(key)),
      { taskId: task.taskId, owner },
    );
    this.#delivering.set(key, () => {
      stopInputs();
      stopStatus();
    });
  }

  /** A copy kept out past its give-back, withdrawn once the question is settled. */
  #keep(key: string, copy: AbortController): void {
    let copies = this.#outstanding.get(key);
    if (!copies) this.#outstanding.set(key, (copies = new Set()));
    copies.add(copy);
  }

  /** Answered (here or elsewhere): every copy still out on this connection is withdrawn. */
  #withdraw(key: string): void {
    this.#stopDelivering(key);
    for (const copy of this.#outstanding.get(key) ?? []) copy.abort();
    this.#outstanding.delete(key);
  }

  #stopDelivering(key: string): void {
    this.#delivering.get(key)?.();
    this.#delivering.delete(key);
  }

  #forget(key: string): void {
    this.#withdraw(key);
    this.#watched.delete(key);
  }
}
