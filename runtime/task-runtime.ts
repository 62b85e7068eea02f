/**
 * The task runtime with the in-memory backend: hosts one XState actor per running task, answers
 * get/list/result/delete/cancel, keeps terminal tasks as compact records and expires them.
 *
 * @module
 */
import { createActor, fromPromise, type Actor, type SnapshotFrom } from 'xstate';
import {
  isTerminalStatus,
  taskEvents,
  taskMachine,
  type TaskContext,
  type TaskHandlerInput,
  type TaskHandlerOutput,
  type TaskOwner,
  type TaskStatus,
} from '../machines/index.js';
import { OwnerIndex } from './backends/memory/owner-index.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  DuplicateTaskIdError,
  InvalidArgumentError,
  RuntimeDisposedError,
  TaskExpiredError,
  TaskFailure,
  TaskNotCompletedError,
  TaskNotFoundError,
  TaskTerminalError,
} from './errors.js';
import { resolveTaskRuntimeOptions, type TaskRuntimeOptions } from './options.js';
import { eventsForUpdate } from './external-update.js';
import { Listeners } from './listeners.js';
import { DeadlineScheduler } from './scheduler.js';
import { waitFor } from './wait.js';
import type { InputRequest, TaskChange, TaskHandler, TaskOutcome, TaskRuntime, TaskView } from './task-runtime.types.js';
import { checkResult, checkTaskId, effectiveKeepAlive, ownerKeyOf } from './task-identity.js';
import { RequesterLimiter } from './limits.js';
import { auditRuntime, disabledSecurityReport, openAudit } from './audit/index.js';
import { MemoryObservation } from './backends/memory/memory-observer.js';

type TaskActor = Actor<typeof taskMachine>;

interface Entry {
  readonly key: string;
  readonly seq: number;
  readonly ownerKey: string;
  status: TaskStatus;
  context: TaskContext;
  actor: TaskActor | null;
  work: { readonly handler: TaskHandler; readonly params: unknown } | null;
  result: unknown;
  hasResult: boolean;
  failure: unknown;
  inputs: Map<string, PendingInput> | null;
  inputSeq: number;
  expiresAt: number | null;
  waiters: Set<() => void> | null;
}

interface PendingInput {
  readonly request: InputRequest;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** A task's key: tasks are scoped to their owner, so two owners may use the same id. */
function keyOf(owner: TaskOwner, taskId: string): string {
  return `${ownerKeyOf(owner)}\u0000${taskId}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}


/**
 * Creates a task runtime on the in-memory backend (one process, no services).
 *
 * @param options - retention, polling and paging settings; see {@link TaskRuntimeOptions}
 * @throws InvalidArgumentError when an option is out of range
 * @example
 * ```ts
 * const runtime = createTaskRuntime({ maxKeepAlive: 600_000 });
 * runtime.registerHandler('tools/call:sleep', async (params) => ({ content: [] }));
 * const owner = { session: 's1', principal: null };
 * await runtime.create({ taskId: 't1', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'tools/call:sleep', params: {} });
 * const done = await runtime.waitForTerminal('t1', owner);
 * ```
 */
export function createTaskRuntime(options: TaskRuntimeOptions = {}): TaskRuntime {
  const opts = resolveTaskRuntimeOptions(options);
  const { now } = opts;
  const handlers = new Map<string, TaskHandler>();
  const entries = new Map<string, Entry>();
  const expired = new Map<string, true>();
  const index = new OwnerIndex();
  const listeners = new Listeners<TaskChange>();
  const inputListeners = new Listeners<InputRequest>();
  const limiter = new RequesterLimiter(opts.limits, now);
  const audit = openAudit(options.audit, 'local', now);
  const observation = new MemoryObservation(options.audit?.node ?? 'local', entries);
  let seq = 0;
  let disposed = false;

  const scheduler = new DeadlineScheduler((key) => {
    const entry = entries.get(key);
    // A running task is never evicted, whatever an old deadline says.
    if (!entry || !isTerminalStatus(entry.status)) return;
    remove(entry);
    expired.set(key, true);
    if (expired.size > opts.expiredMemory) expired.delete(expired.keys().next().value!);
  }, now);

  const machine = taskMachine.provide({
    actors: {
      handler: fromPromise<TaskHandlerOutput, TaskHandlerInput>(async ({ input, signal }) => {
        const entry = entries.get(keyOf(input.owner, input.taskId));
        // A task without work is driven from outside (update); its handler never settles.
        if (!entry?.work) return new Promise<never>(() => undefined);
        const { handler, params } = entry.work;
        // The work starts as soon as `create` has taken the task's first view (a task begins
        // `working`, SEP-1686 `submitted`): one microtask, not a turn of the event loop, so work
        // that ends quickly has ended by the requester's first look. Putting the announcement on
        // the wire ahead of what the work causes (status notifications, input requests) is the
        // adapter's job.
        await Promise.resolve();
        if (signal.aborted) return { outcome: 'failed', error: 'Ended before its work started', at: now() };
        try {
          const result = await handler(params, {
            taskId: input.taskId,
            owner: input.owner,
            dialect: entry.context.dialect,
            signal,
            setStatusMessage: (message) => entry.actor?.send(taskEvents.message(message, now())),
            requestInput: (method, params) => requestInput(entry, method, params),
          });
          // A task that ended meanwhile (cancelled, lost) stays as it ended: its late outcome is dropped.
          if (signal.aborted || !entry.actor) return { outcome: 'completed', resultRef: entry.key, at: now() };
          // Not JSON, or too large to keep: the task fails saying why, instead of holding it.
          checkResult(result, opts.limits.maxResultBytes);
          entry.result = result;
          entry.hasResult = true;
          return { outcome: 'completed', resultRef: entry.key, at: now() };
        } catch (error) {
          if (signal.aborted || !entry.actor) return { outcome: 'failed', error: messageOf(error), at: now() };
          if (error instanceof TaskFailure) {
            // A failure's result counts against the size limit too; too large, it is not kept.
            try {
              if (error.hasResult) checkResult(error.result, opts.limits.maxResultBytes);
              checkResult(error.detail, null, 'failure detail');
            } catch (unkept) {
              return { outcome: 'failed', error: messageOf(unkept), at: now() };
            }
            entry.failure = error.detail;
            if (error.hasResult) {
              entry.result = error.result;
              entry.hasResult = true;
            }
          }
          return { outcome: 'failed', error: messageOf(error), at: now() };
        }
      }),
    },
  });

  function outcomeOf(entry: Entry): TaskOutcome {
    return { task: view(entry), result: entry.result, hasResult: entry.hasResult, failure: entry.failure };
  }

  function view(entry: Entry): TaskView {
    const c = entry.context;
    // Written out field by field: one fixed object shape is several times cheaper to build than a
    // spread of the machine's context, and `list` builds one per task of every page.
    return {
      taskId: c.taskId,
      owner: c.owner,
      dialect: c.dialect,
      method: c.method,
      label: c.label,
      keepAlive: c.keepAlive,
      pollFrequency: c.pollFrequency,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      statusMessage: c.statusMessage,
      error: c.error,
      pendingInputs: c.pendingInputs,
      resultRef: c.resultRef,
      status: entry.status,
      expiresAt: entry.expiresAt,
    };
  }

  function emit(entry: Entry, previous: TaskStatus | null): void {
    if (listeners.isEmpty(entry.key)) return;
    listeners.emit({ task: view(entry), previous }, entry.key);
  }

  function onSnapshot(entry: Entry, snapshot: SnapshotFrom<typeof taskMachine>): void {
    const previous = entry.status;
    const before = entry.context;
    const status = snapshot.value;
    const messageChanged = snapshot.context.statusMessage !== before.statusMessage;
    entry.context = snapshot.context;
    entry.status = status;
    if (isTerminalStatus(status) && entry.actor) settle(entry);
    if (previous !== status || messageChanged) emit(entry, previous);
    if (previous !== status || before !== snapshot.context) observation.changed(entry, previous, before);
  }

  /** A terminal task drops its actor and work and keeps only its record (and result if completed). */
  function settle(entry: Entry): void {
    limiter.endTask(entry.ownerKey);
    entry.actor = null;
    entry.work = null;
    // Only completed tasks, and failed ones whose handler kept a result, have a result to return.
    if (entry.status !== 'completed' && entry.status !== 'failed') {
      entry.result = undefined;
      entry.hasResult = false;
    }
    const { keepAlive, updatedAt } = entry.context;
    if (keepAlive !== null) {
      entry.expiresAt = updatedAt + keepAlive;
      scheduler.schedule(entry.key, entry.expiresAt);
    }
    // Answers that arrive after the task ended are discarded (§4.8.5); the work waiting on them stops.
    const inputs = entry.inputs;
    entry.inputs = null;
    if (inputs) for (const input of inputs.values()) input.reject(new TaskTerminalError(entry.context.taskId, entry.status));
    const waiters = entry.waiters;
    entry.waiters = null;
    if (waiters) for (const wake of waiters) wake();
  }

  function requestInput(entry: Entry, method: string, params: unknown): Promise<unknown> {
    const actor = entry.actor;
    if (!actor) return Promise.reject(new TaskTerminalError(entry.context.taskId, entry.status));
    const inputId = `input-${++entry.inputSeq}`;
    const request: InputRequest = {
      taskId: entry.context.taskId,
      owner: entry.context.owner,
      dialect: entry.context.dialect,
      inputId,
      method,
      params,
    };
    const answered = new Promise<unknown>((resolve, reject) => {
      (entry.inputs ??= new Map()).set(inputId, { request, resolve, reject });
    });
    actor.send(taskEvents.inputRequest(inputId, now()));
    inputListeners.emit(request, entry.key);
    return answered;
  }

  function remove(entry: Entry): void {
    entries.delete(entry.key);
    observation.removed(entry);
    index.remove(entry.ownerKey, entry.seq);
    scheduler.cancel(entry.key);
  }

  function find(taskId: string, owner: TaskOwner): Entry {
    if (disposed) throw new RuntimeDisposedError();
    checkTaskId(taskId, opts.limits.maxTaskIdLength);
    const key = keyOf(owner, taskId);
    const entry = entries.get(key);
    if (entry) return entry;
    if (expired.has(key)) throw new TaskExpiredError(taskId);
    throw new TaskNotFoundError(taskId);
  }


  const runtime: TaskRuntime = {
    options: opts,

    registerHandler(name, handler) {
      handlers.set(name, handler);
    },

    async create(o) {
      if (disposed) throw new RuntimeDisposedError();
      checkTaskId(o.taskId, opts.limits.maxTaskIdLength);
      const handler = o.handler === undefined ? undefined : handlers.get(o.handler);
      if (o.handler !== undefined && !handler) throw new InvalidArgumentError(`No handler registered under '${o.handler}'`);
      const ownerKey = ownerKeyOf(o.owner);
      const key = keyOf(o.owner, o.taskId);
      if (entries.has(key)) throw new DuplicateTaskIdError(o.taskId);
      const keepAlive = effectiveKeepAlive(opts, o.keepAlive);
      limiter.admit(ownerKey, 'createsPerSecond');
      // Counted from here until the task settles (see settle).
      limiter.startTask(ownerKey);
      expired.delete(key);
      const createdAt = now();
      const actor = createActor(machine, {
        input: {
          taskId: o.taskId,
          owner: { session: o.owner.session, principal: o.owner.principal },
          dialect: o.dialect,
          method: o.method,
          label: o.label ?? null,
          keepAlive,
          pollFrequency: o.pollFrequency ?? opts.pollFrequency,
          createdAt,
        },
      });
      const initial = actor.getSnapshot();
      const entry: Entry = {
        key,
        seq: ++seq,
        ownerKey,
        status: initial.value,
        context: initial.context,
        actor,
        work: handler ? { handler, params: o.params } : null,
        result: undefined,
        hasResult: false,
        failure: undefined,
        inputs: null,
        inputSeq: 0,
        expiresAt: null,
        waiters: null,
      };
      entries.set(key, entry);
      index.add(ownerKey, entry.seq, key);
      emit(entry, null);
      observation.created(entry);
      actor.subscribe({
        next: (snapshot) => onSnapshot(entry, snapshot),
        // A crash inside the machine itself is the one case where the outcome is not known.
        error: (error) => {
          const previous = entry.status;
          const before = entry.context;
          entry.status = 'unknown';
          entry.context = { ...before, error: messageOf(error), statusMessage: messageOf(error), updatedAt: now() };
          if (entry.actor) settle(entry);
          emit(entry, previous);
          observation.changed(entry, previous, before);
        },
      });
      actor.start();
      actor.send(taskEvents.start(now()));
      return view(entry);
    },

    async get(taskId, owner, o = {}) {
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      return view(find(taskId, owner));
    },

    async list(owner, o = {}) {
      if (disposed) throw new RuntimeDisposedError();
      limiter.admit(ownerKeyOf(owner), 'listsPerSecond');
      const afterSeq = o.cursor === undefined ? 0 : decodeCursor(o.cursor, seq);
      const limit = Math.max(1, Math.min(o.limit ?? opts.pageSize, opts.pageSize));
      const page = index.page(ownerKeyOf(owner), afterSeq, limit);
      const tasks = page.keys.map((key) => view(entries.get(key)!));
      return page.more ? { tasks, nextCursor: encodeCursor(page.lastSeq) } : { tasks };
    },

    async result(taskId, owner, o = {}) {
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      const entry = find(taskId, owner);
      if (entry.status !== 'completed') throw new TaskNotCompletedError(taskId, entry.status);
      return { task: view(entry), result: entry.result };
    },

    async outcome(taskId, owner, o = {}) {
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      const entry = find(taskId, owner);
      if (!isTerminalStatus(entry.status)) throw new TaskNotCompletedError(taskId, entry.status);
      return outcomeOf(entry);
    },

    waitForOutcome(taskId, owner, o = {}) {
      let entry: Entry;
      try {
        if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
        entry = find(taskId, owner);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      if (isTerminalStatus(entry.status)) return Promise.resolve(outcomeOf(entry));
      // The outcome is read as the task settles, before a delete can remove it.
      return waitFor(
        (wake) => {
          const waiters = (entry.waiters ??= new Set());
          waiters.add(wake);
          return () => waiters.delete(wake);
        },
        () => {
          if (disposed && !isTerminalStatus(entry.status)) throw new RuntimeDisposedError();
          return outcomeOf(entry);
        },
        o,
      );
    },

    async update(taskId, owner, change) {
      const entry = find(taskId, owner);
      const actor = entry.actor;
      if (!actor || isTerminalStatus(entry.status)) throw new TaskTerminalError(taskId, entry.status);
      if (entry.work) throw new InvalidArgumentError(`Task ${taskId} runs a handler; only tasks without one are updated from outside`);
      if (change.status === 'completed' || (change.status === 'failed' && 'result' in change)) {
        // The same rule as a handler's result: refused (the task unchanged) when not JSON or too large.
        checkResult(change.result, opts.limits.maxResultBytes);
        entry.result = change.result;
        entry.hasResult = true;
      }
      for (const event of eventsForUpdate(entry.status, change, entry.key, now())) actor.send(event);
      return view(entry);
    },

    async waitForTerminal(taskId, owner, o = {}) {
      return (await runtime.waitForOutcome(taskId, owner, o)).task;
    },

    async cancel(taskId, owner, reason = null) {
      const entry = find(taskId, owner);
      if (isTerminalStatus(entry.status) || !entry.actor) throw new TaskTerminalError(taskId, entry.status);
      entry.actor.send(taskEvents.cancel(reason, now()));
      return view(entry);
    },

    async delete(taskId, owner) {
      const entry = find(taskId, owner);
      if (entry.actor) entry.actor.send(taskEvents.cancel('Deleted by the requester', now()));
      remove(entry);
    },

    async pendingInputRequests(taskId, owner) {
      const entry = find(taskId, owner);
      return entry.inputs ? [...entry.inputs.values()].map((i) => i.request) : [];
    },

    onInputRequest(listener, only) {
      return inputListeners.add(listener, only && keyOf(only.owner, only.taskId));
    },

    async answerInput(taskId, owner, inputId, answer) {
      const entry = find(taskId, owner);
      const pending = entry.inputs?.get(inputId);
      if (!pending || !entry.actor) {
        throw new InvalidArgumentError(`Input request ${inputId} of task ${taskId} is not pending (answered already, or the task ended)`);
      }
      entry.inputs!.delete(inputId);
      entry.actor.send(taskEvents.inputResponse(inputId, now()));
      if ('error' in answer) pending.reject(answer.error);
      else pending.resolve(answer.result);
      return view(entry);
    },

    subscribe(listener, only) {
      return listeners.add(listener, only && keyOf(only.owner, only.taskId));
    },

    stats() {
      let live = 0;
      for (const entry of entries.values()) if (entry.actor) live++;
      return { live, retained: entries.size - live };
    },

    security() {
      return audit?.report() ?? disabledSecurityReport('local');
    },

    observe() {
      if (disposed) throw new RuntimeDisposedError();
      return observation.open();
    },

    async dispose() {
      if (disposed) return;
      disposed = true;
      scheduler.dispose();
      for (const entry of entries.values()) {
        entry.actor?.stop();
        const waiters = entry.waiters;
        entry.waiters = null;
        if (waiters) for (const wake of waiters) wake();
      }
      entries.clear();
      listeners.clear();
      inputListeners.clear();
      observation.clear();
    },
  };
  if (!audit) return runtime;
  // One process: every change is seen once, here.
  runtime.subscribe((change) => audit.changed(change.task, change.previous));
  return auditRuntime(runtime, audit);
}
