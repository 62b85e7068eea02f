/**
 * The task core: the whole `TaskRuntime` API, once, over a {@link TaskStore}. Every rule a
 * requester can observe lives here (id and option checks, rate limits, what a task in which state
 * accepts, retention, the shape of an outcome, how a wait ends), so the memory and NATS backends
 * cannot disagree on them; the running task itself is a {@link TaskRun}, also of the core.
 *
 * @module
 */
import { isTerminalStatus, taskEvents, type TaskInput, type TaskOwner } from '../../machines/index.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { InvalidArgumentError, RuntimeDisposedError, TaskLimitError, TaskExpiredError, TaskNotCompletedError, TaskNotFoundError, TaskTerminalError, TaskTimeoutError } from '../errors.js';
import { eventsForUpdate } from '../external-update.js';
import type { RequesterLimiter } from '../limits.js';
import type { ResolvedTaskRuntimeOptions } from '../options.js';
import { checkRequest, checkResult, checkTaskId, effectiveKeepAlive, ownerKeyOf, requesterKeyOf } from '../task-identity.js';
import type { CreateTaskOptions, HandlerOptions, TaskHandler, TaskOutcome, TaskView, WaitOptions } from '../task-runtime.types.js';
import { PollPacing, suggestedPollInterval } from './poll-pacing.js';
import type { KeptNow, TaskState, TaskStore, TaskWatch } from './task-store.js';
import type { RunExtras } from './task-run.types.js';
import { coreFamilyRules } from './core-family.js';
import type { PushRegistry } from '../push/push-registry.js';
import type { PushQueue } from '../push/push.types.js';
import { viewOf } from './view.js';
import type { TaskMetrics } from '../telemetry/metrics.js';
import { closeOf, Drain, DRAIN, OPEN_CALL, type Drainable } from './drain.js';
import { carrierOf, storableTrace } from '../telemetry/tracing.js';
import { reportingOutages, StoreOutage, type CoreLog } from './store-outage.js';
import { keptInputCapabilities } from './input-capabilities.js';
import { shownTaskId } from '../secrets.js';

/** A handler as registered, with how it may be retried. */
export interface RegisteredHandler {
  readonly handler: TaskHandler;
  readonly options: HandlerOptions;
  /** What its runs get from the runtime (subtasks, bounds of partial results); the core fills it. */
  readonly runOptions?: RunExtras;
}

/** What a backend gives the core besides its store. */
export interface CoreParts<S extends TaskState> {
  /** The requester rate limits (the NATS backend's share usage across nodes). */
  readonly limiter: RequesterLimiter;
  /** Registered handlers, by name (the NATS worker reads the same map). */
  readonly handlers: Map<string, RegisteredHandler>;
  /** Whether a stored task runs a handler (else it is driven from outside through `update`). */
  readonly hasWork: (state: S) => boolean;
  /** Where webhooks are kept and delivered from, when push notifications are on. */
  readonly push?: { readonly registry: PushRegistry; readonly queue: PushQueue } | undefined;
  /** The node's task metrics; `null` when none are taken. */
  readonly metrics?: TaskMetrics | null;
  /** Where the core logs (a wait that starts riding a store outage out); silent without. */
  readonly log?: CoreLog | undefined;
}

/** How a look-up reads: past the task's retention (a waiter that saw it end), by a caller that already watches it. */
interface FindOptions {
  readonly pastRetention?: boolean;
  readonly watched?: boolean;
}

/** Whether a task's retention has ended at `at`: it is gone for every reader, removed or not yet. */
function isPastRetention(state: TaskState, at: number): boolean {
  return state.expiresAt !== null && state.expiresAt <= at;
}

/** The machine input of a new task: the one place a task's identity and settings are fixed. */
function machineInput(o: CreateTaskOptions, keepAlive: number | null, pollFrequency: number, createdAt: number, depth: number): TaskInput {
  const input: TaskInput = {
    taskId: o.taskId,
    owner: { session: o.owner.session, principal: o.owner.principal },
    dialect: o.dialect,
    method: o.method,
    label: o.label ?? null,
    keepAlive,
    pollFrequency: o.pollFrequency ?? pollFrequency,
    createdAt,
  };
  return o.parentId === undefined ? input : { ...input, parentId: o.parentId, depth };
}

/**
 * The runtime over a backend's store.
 *
 * @param opts - resolved runtime options
 * @param store - the backend
 * @param parts - limits, handlers, and how to tell a task with work
 * @example
 * ```ts
 * const runtime = createCoreRuntime(opts, store, { limiter, handlers, hasWork: (s) => s.work !== null });
 * await runtime.create({ taskId: 't1', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'tools/call:sleep', params: {} });
 * ```
 */
export function createCoreRuntime<S extends TaskState>(opts: ResolvedTaskRuntimeOptions, store: TaskStore<S>, parts: CoreParts<S>): Drainable {
  const { now } = opts;
  const { limiter, handlers } = parts;
  // Pacing only decides which polls are charged: without a poll rate there is nothing to decide.
  const pacing = opts.limits.pollsPerSecond === null ? null : new PollPacing();
  let disposed = false;
  const drain = new Drain(store);
  // What the backend says passes (NATS: timeouts, a lost connection) is an outage; nothing else is.
  const outage = new StoreOutage((error) => store.isTransient(error), parts.log);

  function keyOf(taskId: string, owner: TaskOwner): string {
    return store.keyOf(ownerKeyOf(owner), taskId);
  }

  /** The stored task, or the error a requester gets for it. */
  async function find(taskId: string, owner: TaskOwner, o: FindOptions = {}): Promise<{ key: string; state: S }> {
    if (disposed) throw new RuntimeDisposedError();
    checkTaskId(taskId, opts.limits.maxTaskIdLength);
    const key = keyOf(taskId, owner);
    const read = store.read(key, o);
    const state = read instanceof Promise ? await read : read;
    if (state === null) throw new TaskNotFoundError(taskId);
    if (state === 'expired') throw new TaskExpiredError(taskId);
    // Past its retention but not removed yet (its timer may run on another node): gone already.
    // A waiter that saw the task end still gets its outcome while it is stored (keepAlive 0 included).
    if (!o.pastRetention && isPastRetention(state, now())) throw new TaskExpiredError(taskId);
    return { key, state };
  }

  /**
   * A requester's poll (`get`, `result`, `outcome`, `waitForOutcome`): the stored task, charged
   * against `pollsPerSecond` unless it kept to the pace the task suggested at its previous
   * answered poll (see {@link PollPacing}). A first poll, a faster one and one of an unknown id
   * are charged, before the look-up, as every poll used to be.
   */
  async function polled(taskId: string, owner: TaskOwner, o: { countsAsPoll?: boolean } = {}, f: FindOptions = {}): Promise<{ key: string; state: S }> {
    // The server's own reads are neither charged nor a requester's pace.
    if (o.countsAsPoll === false) return find(taskId, owner, f);
    if (pacing === null) {
      const found = await find(taskId, owner, f);
      drain.noteRead(found.state.context.pollFrequency);
      return found;
    }
    const key = store.keyOf(ownerKeyOf(owner), taskId);
    const at = now();
    // Charged to the requester, not to the task's owner key: one budget however its tasks are owned.
    limiter.admit(requesterKeyOf(owner), 'pollsPerSecond', pacing.kept(key, at));
    try {
      const found = await find(taskId, owner, f);
      const { status, context } = found.state;
      // Taken after the read, as close as can be to the moment the answer is rendered.
      pacing.answered(key, at, suggestedPollInterval({ status, pollFrequency: context.pollFrequency, createdAt: context.createdAt }, now()), status);
      // A drain that lingers answers this requester when it comes back (see Drain.noteRead).
      drain.noteRead(context.pollFrequency);
      return found;
    } catch (error) {
      pacing.forget(key);
      throw error;
    }
  }

  /**
   * Refuses a new task past the retention limits: the requester keeps too many tasks or more than
   * its share of bytes, or the node holds too many bytes of kept results. Nothing kept is evicted for it: what was promised stays.
   */
  function checkKept(ownerKey: string): Promise<void> | undefined {
    const { maxRetainedTasks, maxRetainedBytes, maxRetainedBytesPerRequester } = opts.limits;
    if (maxRetainedTasks === null && maxRetainedBytes === null && maxRetainedBytesPerRequester === null) return undefined;
    const kept = store.kept(ownerKey, { tasks: maxRetainedTasks !== null, bytes: maxRetainedBytes !== null });
    if (kept instanceof Promise) return kept.then(judgeKept);
    judgeKept(kept);
    return undefined;
  }

  function judgeKept(kept: KeptNow): void {
    const { maxRetainedTasks, maxRetainedBytes, maxRetainedBytesPerRequester } = opts.limits;
    if (maxRetainedTasks !== null && kept.tasks >= maxRetainedTasks) {
      throw new TaskLimitError('maxRetainedTasks', `${maxRetainedTasks} kept tasks per requester`, null, { when: 'retry once one of your tasks has expired, or delete one you no longer need' });
    }
    // Before the node's budget: a requester over its own share is told so, and the others, under
    // theirs, are refused only once the node's budget is full.
    if (maxRetainedBytesPerRequester !== null && kept.ownerBytes >= maxRetainedBytesPerRequester) {
      throw new TaskLimitError('maxRetainedBytesPerRequester', `${maxRetainedBytesPerRequester} bytes of kept results and messages per requester`, null, { when: 'retry once one of your ended tasks has expired, or delete one you no longer need' });
    }
    if (maxRetainedBytes !== null && kept.bytes >= maxRetainedBytes) {
      throw new TaskLimitError('maxRetainedBytes', `${maxRetainedBytes} bytes of kept results and messages on this server`, null, { when: 'retry once kept tasks have expired' });
    }
  }

  async function outcomeOf(key: string, state: S): Promise<TaskOutcome> {
    const kept = state.hasResult ? await store.result(key, state) : null;
    return { task: viewOf(state), result: kept?.value, hasResult: kept !== null, failure: state.failure ?? undefined };
  }

  /**
   * Runs a read of a wait again while the store does not answer (see {@link StoreOutage.rideOut}):
   * an answer about the task (not found, expired…) is final; so is the wait's own abort.
   */
  function throughOutage<T>(read: () => Promise<T>, taskId: string, owner: TaskOwner, signal: AbortSignal | undefined, deadline = Infinity): Promise<T> {
    // The log names the task as every log line does: a bearer handle shortened (runtime/secrets.ts).
    return outage.rideOut(read, { signal, deadline, now, stopped: () => disposed, taskId: shownTaskId(taskId, owner) });
  }

  /** Resolves once the task ends (or is gone), re-reading it on every change the store reports. */
  async function waitForOutcome(taskId: string, owner: TaskOwner, o: WaitOptions = {}): Promise<TaskOutcome> {
    if (disposed) throw new RuntimeDisposedError();
    checkTaskId(taskId, opts.limits.maxTaskIdLength);
    // Ended already (the usual case for short work): no watch to set up and take down. The
    // server's own wait (the original request's answer) gets the outcome while it is stored, even
    // past a keepAlive of 0; a requester's wait sees what `get` would.
    let wake: () => void = () => undefined;
    let lastEnd: TaskView | null = null;
    /** The terminal state as the watch delivered it, when it carried it whole: no read needed. */
    let endState: S | null = null;
    const onChange = (ended: TaskView | null, state?: S): void => {
      if (ended) lastEnd = ended;
      if (state) endState = state;
      wake();
    };
    // A store that delivers changes by sequence is watched before the first read, which then
    // places the watch's cursor: no second read to close the gap between the read and the watch.
    let watch: TaskWatch<S> | null = store.watchesBySequence ? store.watch(keyOf(taskId, owner), onChange) : null;
    try {
      // The server's own wait (the original request's answer) rides out a store that is briefly
      // away; a requester's poll answers at once, and the requester polls again.
      // Watched already: the store may answer from what it knows without a round trip (NATS, a task it just created).
      const read = (): Promise<{ key: string; state: S }> => polled(taskId, owner, o, { pastRetention: o.countsAsPoll === false, watched: watch !== null });
      const first = await (o.countsAsPoll === false ? throughOutage(read, taskId, owner, o.signal) : read());
      const key = first.key;
      if (isTerminalStatus(first.state.status)) return await throughOutage(() => outcomeOf(key, first.state), taskId, owner, o.signal);
      const deadline = o.timeout === undefined ? Infinity : now() + o.timeout;
      let fresh: S | null = watch === null ? null : first.state;
      // The first state may be what the store knew without a read (a task this node just
      // created): a wait never answers "not ended yet" on that alone, it reads first.
      let unconfirmed = watch !== null;
      watch ??= store.watch(key, onChange);
      for (;;) {
        let found: { key: string; state: S };
        try {
          fresh ??= endState;
          // The read that stands in for the first one (which the store answered without a read)
          // rides out an outage as the first one would have, deadline or not.
          const until = unconfirmed && o.countsAsPoll === false ? Infinity : deadline;
          if (fresh === null) unconfirmed = false;
          found = fresh === null ? await throughOutage(() => find(taskId, owner, { pastRetention: true }), taskId, owner, o.signal, until) : { key, state: fresh };
          fresh = null;
        } catch (error) {
          // Deleted right after it ended: the outcome is what the end said (no result survives a
          // delete). Only then: a store that did not answer is not a deleted task.
          if (lastEnd !== null && !disposed && (error instanceof TaskNotFoundError || error instanceof TaskExpiredError)) return { task: lastEnd, result: undefined, hasResult: false, failure: undefined };
          throw error;
        }
        watch.seen(found.state);
        if (isTerminalStatus(found.state.status)) return await throughOutage(() => outcomeOf(key, found.state), taskId, owner, o.signal);
        if (o.signal?.aborted) throw abortError(o.signal);
        const left = deadline - now();
        if (left <= 0 && unconfirmed) continue;
        if (left <= 0) throw new TaskTimeoutError(o.timeout!, { task: viewOf(found.state) });
        await new Promise<void>((resolve) => {
          // A store that may miss a change (NATS) is read again in time even for a task kept
          // briefly: a waiter that missed its end must not find it expired instead.
          const keepAlive = first.state.context.keepAlive;
          const reread = store.rereadMs === null ? Infinity : keepAlive === null ? store.rereadMs : Math.min(store.rereadMs, Math.max(50, keepAlive / 3));
          const ms = Math.min(reread, left);
          const timer = ms === Infinity ? null : setTimeout(done, ms);
          o.signal?.addEventListener('abort', done, { once: true });
          function done(): void {
            if (timer) clearTimeout(timer);
            o.signal?.removeEventListener('abort', done);
            wake = () => undefined;
            resolve();
          }
          wake = done;
        });
        // Aborted while waiting (a drain's deadline, the request cancelled): no further read; one
        // now could find the end the abort's cause is about to write (the drain ending the task).
        if (o.signal?.aborted) throw abortError(o.signal);
      }
    } finally {
      watch?.stop();
    }
  }

  const family = coreFamilyRules<S>({ opts, store, find, keyOf, now, waitForOutcome, push: parts.push, runtime: () => runtime });
  const { depthUnder, cancelChildren, registerPush } = family;
  const subtasks = family.subtaskPort;
  const runOptions: RunExtras = { subtasks, partials: { maxCount: opts.maxPartials, maxBytes: opts.maxPartialBytes } };

  /** A create the drain admitted: checks, then the task is stored and its run queued. */
  async function createAdmitted(o: CreateTaskOptions): Promise<TaskView> {
    checkTaskId(o.taskId, opts.limits.maxTaskIdLength);
    const registered = o.handler === undefined ? undefined : handlers.get(o.handler);
    if (o.handler !== undefined && !registered) throw new InvalidArgumentError(`No handler registered under '${o.handler}'`);
    checkRequest(o.params, opts.limits.maxRequestBytes, 'params');
    const asks = keptInputCapabilities(o.requesterCapabilities);
    const keepAlive = effectiveKeepAlive(opts, o.keepAlive);
    const ownerKey = ownerKeyOf(o.owner);
    const depth = o.parentId === undefined ? 0 : await depthUnder(o.parentId, o.owner);
    limiter.admit(requesterKeyOf(o.owner), 'createsPerSecond');
    // No await when nothing needs reading (memory always, NATS within a second of its last
    // reading): a task exists as soon as create runs, so a poll right behind it finds it.
    const checking = checkKept(ownerKey);
    if (checking) await checking;
    const input = machineInput(o, keepAlive, opts.pollFrequency, now(), depth);
    // The request creating it (the active span, or the one it names) is where its run's span joins.
    const trace = registered ? (o.traceContext === undefined ? carrierOf() : storableTrace(o.traceContext as Readonly<Record<string, unknown>>)) : undefined;
    const work = registered
      ? { name: o.handler!, handler: registered.handler, options: registered.options, params: o.params ?? null, runOptions, ...(trace && { trace }), ...(asks && { requesterCapabilities: asks }) }
      : null;
    const key = store.keyOf(ownerKey, o.taskId);
    // Kept before the task exists: its first change may come before `create` returns.
    if (o.push !== undefined) await registerPush(key, ownerKey, o);
    let created: TaskView;
    try {
      created = await store.create({ key, ownerKey, input, work });
    } catch (error) {
      // Nothing was created: nothing is kept for it either.
      if (o.push !== undefined) parts.push?.registry.forget(ownerKey, o.taskId);
      throw error;
    }
    parts.metrics?.created(o.method, o.dialect);
    // The parent records its child at once: a reader of the parent sees it from now on.
    if (o.parentId !== undefined) await store.apply(keyOf(o.parentId, o.owner), taskEvents.child(o.taskId, created.status, now()));
    // The creation's answer suggests an interval too: a first poll that waits for it is kept to pace.
    pacing?.answered(key, input.createdAt, suggestedPollInterval({ status: created.status, pollFrequency: created.pollFrequency, createdAt: created.createdAt }, now()), created.status);
    return created;
  }

  const core: Drainable = {
    options: opts,

    registerHandler(name, handler, handlerOptions = {}) {
      handlers.set(name, { handler, options: handlerOptions, runOptions });
    },

    async create(o) {
      if (disposed) throw new RuntimeDisposedError();
      // Counted until it settles: a drain that begins meanwhile waits for it (see Drain.admit).
      const settled = drain.admit(o);
      try {
        return await createAdmitted(o);
      } finally {
        settled();
      }
    },

    async get(taskId, owner, o) {
      return viewOf((await polled(taskId, owner, o)).state);
    },

    async list(owner, o = {}) {
      if (disposed) throw new RuntimeDisposedError();
      limiter.admit(requesterKeyOf(owner), 'listsPerSecond');
      const after = o.cursor === undefined ? 0 : decodeCursor(o.cursor, store.maxPosition);
      const limit = Math.max(1, Math.min(o.limit ?? opts.pageSize, opts.pageSize));
      const page = await store.page(ownerKeyOf(owner), after, limit);
      // A task past its retention whose timer has not run yet (NATS: timers are batched and may
      // run on another node) is gone for `get`, and so for the listing too.
      const at = now();
      const tasks = page.states.filter((state) => !isPastRetention(state, at)).map(viewOf);
      return page.more ? { tasks, nextCursor: encodeCursor(page.last) } : { tasks };
    },

    async result(taskId, owner, o) {
      const { key, state } = await polled(taskId, owner, o);
      if (state.status !== 'completed') throw new TaskNotCompletedError(taskId, state.status);
      const kept = state.hasResult ? await store.result(key, state) : null;
      return { task: viewOf(state), result: kept?.value };
    },

    async outcome(taskId, owner, o) {
      const { key, state } = await polled(taskId, owner, o);
      if (!isTerminalStatus(state.status)) throw new TaskNotCompletedError(taskId, state.status);
      return outcomeOf(key, state);
    },

    async peek(taskId, owner, o) {
      // The server's own look (the original request's answer) rides out a brief outage, as its wait does.
      const own = o?.countsAsPoll === false;
      const read = (): Promise<{ key: string; state: S }> => polled(taskId, owner, o, { pastRetention: own });
      const { key, state } = await (own ? throughOutage(read, taskId, owner, undefined) : read());
      if (!isTerminalStatus(state.status)) return { running: viewOf(state) };
      return { ended: await throughOutage(() => outcomeOf(key, state), taskId, owner, undefined) };
    },

    waitForOutcome,

    async waitForTerminal(taskId, owner, o) {
      return (await waitForOutcome(taskId, owner, o)).task;
    },

    async update(taskId, owner, change) {
      const { key, state } = await find(taskId, owner);
      if (isTerminalStatus(state.status)) throw new TaskTerminalError(taskId, state.status);
      if (parts.hasWork(state)) throw new InvalidArgumentError(`Task ${taskId} runs a handler; only tasks without one are updated from outside`);
      const withResult = change.status === 'completed' || (change.status === 'failed' && 'result' in change);
      if (withResult) {
        // The same rule as a handler's result: refused (the task unchanged) when not JSON or too large.
        checkResult(change.result, opts.limits.maxResultBytes);
        await store.putResult(key, change.result);
      }
      let current: S = state;
      for (const event of eventsForUpdate(state.status, change, key, now())) {
        const out = await store.apply(key, event, { withResult });
        if (out === null) throw new TaskNotFoundError(taskId);
        current = out.state;
      }
      return viewOf(current);
    },

    async cancel(taskId, owner, reason = null) {
      const { key, state } = await find(taskId, owner);
      if (isTerminalStatus(state.status)) throw new TaskTerminalError(taskId, state.status);
      const out = await store.apply(key, taskEvents.cancel(reason, now()));
      if (out === null) throw new TaskNotFoundError(taskId);
      if (!out.changed) throw new TaskTerminalError(taskId, out.state.status);
      await cancelChildren(state, out.state, owner);
      return viewOf(out.state);
    },

    async delete(taskId, owner) {
      const { key, state } = await find(taskId, owner);
      let last = state;
      // A live task is cancelled first: its work sees the cancel and stops.
      if (!isTerminalStatus(state.status)) {
        last = (await store.apply(key, taskEvents.cancel('Deleted by the requester', now())))?.state ?? state;
        await cancelChildren(state, last, owner);
      }
      await store.remove(key, last);
      pacing?.forget(key);
    },

    async pendingInputRequests(taskId, owner) {
      const { key, state } = await find(taskId, owner);
      return store.pending(key, state);
    },

    onInputRequest(listener, only) {
      return store.onInputRequest(listener, only && keyOf(only.taskId, only.owner));
    },

    async answerInput(taskId, owner, inputId, answer) {
      const { key } = await find(taskId, owner);
      // A reply's error message is the requester's as much as a result is.
      checkRequest('result' in answer ? answer.result : answer.error.message, opts.limits.maxRequestBytes, 'input answer');
      const out = await store.answer(key, inputId, answer);
      if (out === null || !out.changed) {
        throw new InvalidArgumentError(`Input request ${inputId} of task ${taskId} is not pending (answered already, or the task ended)`);
      }
      return viewOf(out.state);
    },

    subscribe(listener, only) {
      return store.subscribe(listener, only && keyOf(only.taskId, only.owner));
    },

    pushDeliveries: async (taskId) => (parts.push === undefined ? [] : parts.push.queue.attempts(taskId)),

    stats: () => store.stats(),

    security: () => store.security(),

    observe() {
      if (disposed) throw new RuntimeDisposedError();
      return store.observe();
    },

    async readiness() {
      const reasons = disposed ? ['closed: the runtime was disposed'] : [...drain.reasons(), ...(await store.unready())];
      return { ready: reasons.length === 0, reasons };
    },

    [DRAIN]: (o) => (disposed ? Promise.resolve() : drain.run(o)),
    [OPEN_CALL]: () => drain.open(),

    close: closeOf(() => runtime),

    async dispose() {
      if (disposed) return;
      disposed = true;
      await store.dispose();
    },
  };
  // A requester whose call the store cannot serve now is told so, and to retry.
  const runtime = reportingOutages(core, outage);
  return runtime;
}

/** What an aborted wait throws: the abort's reason (a drain's RuntimeDrainingError, the caller's own). */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('Aborted');
}
