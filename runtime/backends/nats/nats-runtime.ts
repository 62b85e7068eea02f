/**
 * The task runtime on NATS JetStream: the same `TaskRuntime` API as the memory backend, for
 * several nodes sharing one task space. Reads are one KV get on any node; changes are the
 * lifecycle machine's transitions written by compare-and-swap and published on the task's
 * subject; work goes through a shared work queue to worker nodes, which hold a lease per running
 * task; any node notices a lost worker and resolves its tasks; retention timers are durable.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { NatsConnection } from '@nats-io/transport-node';
import { isTerminalStatus, taskEvents, type TaskOwner } from '../../../machines/index.js';
import { decodeCursor, encodeCursor } from '../../cursor.js';
import {
  DuplicateTaskIdError,
  InvalidArgumentError,
  RuntimeDisposedError,
  TaskExpiredError,
  TaskNotCompletedError,
  TaskNotFoundError,
  TaskTerminalError,
  TaskTimeoutError,
} from '../../errors.js';
import { eventsForUpdate } from '../../external-update.js';
import { resolveTaskRuntimeOptions, type TaskRuntimeOptions } from '../../options.js';
import type { TaskOutcome, TaskRuntime, TaskView } from '../../task-runtime.types.js';
import { connectNats, type NatsConnectionOptions } from './connection.js';
import { EventFeed, type FeedWatch } from './event-feed.js';
import { runExpiry } from './expiry.js';
import { FailoverMonitor } from './failover.js';
import { taskKey } from './keys.js';
import { LeaseManager } from './leases.js';
import { NatsObserver } from './nats-observer.js';
import { openNodeBucket, startHeartbeat } from './node-registry.js';
import { RecordStore, type FeedEvent } from './record-store.js';
import { newRecord, pendingInputsOf, viewOf, type TaskRecord } from './task-record.js';
import { applyToTask, persistently, type ExpiryItem, type NodeLog, type RegisteredHandler, type RunItem, type TaskSpace } from './task-space.js';
import { TaskWorker } from './task-worker.js';
import { WorkQueue } from './work-queue.js';
import { checkResult, checkTaskId, effectiveKeepAlive, ownerKeyOf } from '../../task-identity.js';
import { RequesterLimiter } from '../../limits.js';
import { auditRuntime, disabledSecurityReport, openAudit } from '../../audit/index.js';
import { RunningTasks } from './running-tasks.js';
import { SharedRates } from './shared-rates.js';

/** Options of {@link createNatsTaskRuntime}: the runtime's own, plus where and how to join the cluster. */
export interface NatsTaskRuntimeOptions extends TaskRuntimeOptions {
  /** How to connect (servers, credentials, TLS). Ignored when `connection` is given. */
  readonly nats?: NatsConnectionOptions;
  /** An open connection to use instead (the runtime does not close it). */
  readonly connection?: NatsConnection;
  /** Subject prefix and name stem of the streams and buckets. @default 'tasks' */
  readonly prefix?: string;
  /** Replicas of every stream and bucket (3 on a 3-server cluster). @default 1 */
  readonly replicas?: number;
  /** `'file'` survives a server restart. @default 'file' */
  readonly storage?: 'file' | 'memory';
  /** `front` serves requests only, `worker` runs handlers only, `both` does both. @default 'both' */
  readonly role?: 'front' | 'worker' | 'both';
  /** This node's id, shown in status and in lost-worker errors. @default host-pid-random */
  readonly nodeId?: string;
  /** A running task's lease lasts this long without renewal: the bound on noticing a lost worker. @default 10_000 */
  readonly leaseTtlMs?: number;
  /** Runs of a handler marked safe to re-run, at most (first run included). @default 3 */
  readonly maxAttempts?: number;
  /** Tasks one worker runs at once (tasks waiting for input do not count). @default 64 */
  readonly workerConcurrency?: number;
  /** Where the node logs (task runs, lost workers, expiries). @default silent */
  readonly log?: NodeLog;
}

/** A runtime on NATS, with what only a cluster has. */
export interface NatsTaskRuntime extends TaskRuntime {
  readonly nodeId: string;
  readonly role: 'front' | 'worker' | 'both';
  /** The connection in use (for `status` and tests). */
  readonly connection: NatsConnection;
}



function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got ${value}`);
  return value;
}

/** How often a waiter re-reads the record in case an event was lost with a connection. */
const WAIT_POLL_MS = 2_000;

/**
 * Joins (or starts) a task space on NATS JetStream and returns its runtime.
 *
 * @param options - connection, layout, role and the runtime's options
 * @throws NatsUnavailableError naming the URLs when no server answers
 * @example
 * ```ts
 * const runtime = await createNatsTaskRuntime({ nats: { servers: 'nats://127.0.0.1:4222' }, role: 'both' });
 * runtime.registerHandler('tools/call:sleep', sleep, { retry: 'restart' });
 * ```
 */
export async function createNatsTaskRuntime(options: NatsTaskRuntimeOptions = {}): Promise<NatsTaskRuntime> {
  const opts = resolveTaskRuntimeOptions(options);
  const { now } = opts;
  const role = options.role ?? 'both';
  if (!['front', 'worker', 'both'].includes(role)) throw new InvalidArgumentError(`role must be front, worker or both, got '${role}'`);
  const leaseTtlMs = positive('leaseTtlMs', options.leaseTtlMs ?? 10_000);
  const maxAttempts = positive('maxAttempts', options.maxAttempts ?? 3);
  const concurrency = positive('workerConcurrency', options.workerConcurrency ?? 64);
  const nodeId = options.nodeId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const layout = { prefix: options.prefix ?? 'tasks', replicas: options.replicas ?? 1, storage: options.storage ?? 'file' } as const;
  const log: NodeLog = options.log ?? (() => undefined);

  const nc = options.connection ?? (await connectNats({ name: `mcp-tasks ${nodeId}`, ...options.nats }));
  // Creating streams and buckets may time out while a cluster elects its leaders: keep trying.
  const opening = <T>(open: () => Promise<T>): Promise<T> => persistently(open, { giveUpMs: 30_000 });
  const store = await opening(() => RecordStore.open(nc, layout, nodeId));
  const audit = openAudit(options.audit, nodeId, now);
  // Status changes are audited where they are written, so once in the cluster (not per node watching).
  if (audit) store.onWrite = (task, previous) => audit.changed(task, previous);
  const space: TaskSpace = {
    nc,
    nodeId,
    store,
    feed: new EventFeed(nc, store, layout.prefix),
    leases: await opening(() => LeaseManager.open(nc, { bucketPrefix: layout.prefix, replicas: layout.replicas, storage: layout.storage, now })),
    runs: await opening(() =>
      WorkQueue.open<RunItem>(nc, { prefix: layout.prefix, replicas: layout.replicas, storage: layout.storage, ackWaitMs: Math.max(5_000, leaseTtlMs) }),
    ),
    timers: await opening(() =>
      WorkQueue.open<ExpiryItem>(nc, { prefix: `${layout.prefix}.timers`, replicas: layout.replicas, storage: layout.storage, maxAckPending: -1 }),
    ),
    handlers: new Map<string, RegisteredHandler>(),
    leaseTtlMs,
    maxAttempts,
    now,
    log,
    maxResultBytes: opts.limits.maxResultBytes,
  };
  const nodes = await opening(() => openNodeBucket(nc, layout));
  const stop = new AbortController();
  const worker = role === 'front' ? null : new TaskWorker(space, concurrency);
  const background: Promise<unknown>[] = [
    new FailoverMonitor(space).run(stop.signal),
    runExpiry(space, stop.signal).catch((e: unknown) => log('error', 'expiry loop stopped', { error: String(e) })),
  ];
  if (worker) background.push(worker.run(stop.signal).catch((e: unknown) => log('error', 'worker loop stopped', { error: String(e) })));
  const stopHeartbeat = startHeartbeat(nodes, { nodeId, role }, () => ({ tasksRun: worker?.tasksRun ?? 0, running: worker?.running ?? 0, security: audit?.report() }));
  let disposed = false;
  const observers = new Set<NatsObserver>();
  // Limits hold cluster-wide: rates through usage the nodes share, running tasks through a KV claim.
  const rates = new SharedRates(nc, layout.prefix, nodeId);
  const limiter = new RequesterLimiter(opts.limits, now, rates.admitted);
  const stopSharing = rates.start(limiter);
  const running = opts.limits.maxConcurrentTasks === null ? null : await opening(() => RunningTasks.open(nc, layout, store, now));
  if (running) {
    space.onTaskEnded = (key, record) =>
      void running.release(ownerKeyOf(record.context.owner), key).catch((e: unknown) => log('warn', 'could not release a running-task slot', { key, error: String(e) }));
  }

  const keyOf = (taskId: string, owner: TaskOwner): string => taskKey({ ownerKey: ownerKeyOf(owner), taskId });

  /** The live record of a task, or the runtime's not-found/expired error. */
  async function find(taskId: string, owner: TaskOwner): Promise<{ key: string; record: TaskRecord }> {
    if (disposed) throw new RuntimeDisposedError();
    checkTaskId(taskId, opts.limits.maxTaskIdLength);
    const key = keyOf(taskId, owner);
    const read = await store.read(key);
    if (read === null) throw new TaskNotFoundError(taskId);
    if (!('found' in read)) throw new TaskExpiredError(taskId);
    const { record } = read.found;
    // Past its retention but not removed yet (the timer runs on whichever node is up): gone already.
    if (record.expiresAt !== null && record.expiresAt <= now()) throw new TaskExpiredError(taskId);
    return { key, record };
  }

  async function outcomeOf(key: string, record: TaskRecord): Promise<TaskOutcome> {
    const stored = record.hasResult ? await store.getResult(key) : null;
    return { task: viewOf(record), result: stored?.result, hasResult: stored !== null, failure: record.failure ?? undefined };
  }


  /** Watches one task; `from` is set once the caller read the record. */
  function watchTask(key: string, onEvent: (event: FeedEvent) => void): FeedWatch {
    return space.feed.watch(key, onEvent);
  }

  /** Starts a watch and points it at the record's current sequence (read after watching). */
  function follow(key: string, onEvent: (event: FeedEvent) => void): () => void {
    const watch = watchTask(key, onEvent);
    void store.read(key).then(
      (read) => watch.from(read && 'found' in read ? read.found.record.seq : 0),
      () => watch.from(0),
    );
    return () => watch.stop();
  }

  const runtime: NatsTaskRuntime = {
    options: opts,
    nodeId,
    role,
    connection: nc,

    registerHandler(name, handler, handlerOptions = {}) {
      space.handlers.set(name, { handler, options: handlerOptions });
    },

    async create(o) {
      if (disposed) throw new RuntimeDisposedError();
      checkTaskId(o.taskId, opts.limits.maxTaskIdLength);
      limiter.admit(ownerKeyOf(o.owner), 'createsPerSecond');
      const registered = o.handler === undefined ? undefined : space.handlers.get(o.handler);
      if (o.handler !== undefined && !registered) throw new InvalidArgumentError(`No handler registered under '${o.handler}'`);
      const ownerKey = ownerKeyOf(o.owner);
      const key = taskKey({ ownerKey, taskId: o.taskId });
      const keepAlive = effectiveKeepAlive(opts, o.keepAlive);
      if (running) await running.claim(ownerKey, key, opts.limits.maxConcurrentTasks!);
      const input = {
        taskId: o.taskId,
        owner: { session: o.owner.session, principal: o.owner.principal },
        dialect: o.dialect,
        method: o.method,
        label: o.label ?? null,
        keepAlive,
        pollFrequency: o.pollFrequency ?? opts.pollFrequency,
        createdAt: now(),
      };
      const work = registered
        ? { handler: o.handler!, params: o.params ?? null, retry: registered.options.retry ?? 'never', maxAttempts: registered.options.maxAttempts ?? maxAttempts }
        : null;
      // The run is queued before the record exists (a worker waits a moment for a record it cannot
      // find yet), so a front node that dies in between leaves no task that nothing will run.
      const queueRun = work ? (order: number) => persistently(() => space.runs.enqueue({ id: `run:${key}:${order}:1`, key, attempt: 1, order, handler: work.handler }).then(() => undefined), { giveUpMs: 15_000 }) : undefined;
      let created;
      try {
        created = await store.create(key, ownerKey, newRecord(input, work), queueRun);
      } catch (error) {
        // Not created: its running-task slot is free again (a duplicate id's slot is its live task's).
        if (running && !(error instanceof DuplicateTaskIdError)) void running.release(ownerKey, key).catch(() => undefined);
        // The id's previous task is past its retention but its timer has not run yet: it is gone
        // for every reader already, so remove it now and take the id.
        const read = error instanceof DuplicateTaskIdError ? await store.read(key) : null;
        if (!read || !('found' in read) || read.found.record.expiresAt === null || read.found.record.expiresAt > now()) throw error;
        await store.remove(key, read.found.record, { expired: true, revision: read.found.revision }).catch(() => undefined);
        created = await store.create(key, ownerKey, newRecord(input, work), queueRun);
      }
      void store.publish(key, created.record, { kind: 'task.created', view: viewOf(created.record), previous: null, node: nodeId });
      // Driven from outside (as through the SDK's TaskStore): it is working from the start.
      if (!work) return viewOf((await applyToTask(space, key, taskEvents.start(now())))?.record ?? created.record);
      return viewOf(created.record);
    },

    async get(taskId, owner, o = {}) {
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      return viewOf((await find(taskId, owner)).record);
    },

    async list(owner, o = {}) {
      if (disposed) throw new RuntimeDisposedError();
      limiter.admit(ownerKeyOf(owner), 'listsPerSecond');
      const after = o.cursor === undefined ? 0 : decodeCursor(o.cursor, Number.MAX_SAFE_INTEGER);
      const limit = Math.max(1, Math.min(o.limit ?? opts.pageSize, opts.pageSize));
      const page = await store.page(ownerKeyOf(owner), after, limit);
      const tasks = page.records.map(viewOf);
      return page.more ? { tasks, nextCursor: encodeCursor(page.lastOrder) } : { tasks };
    },

    async result(taskId, owner, o = {}) {
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      const { key, record } = await find(taskId, owner);
      if (record.status !== 'completed') throw new TaskNotCompletedError(taskId, record.status);
      return { task: viewOf(record), result: (await store.getResult(key))?.result };
    },

    async outcome(taskId, owner, o = {}) {
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      const { key, record } = await find(taskId, owner);
      if (!isTerminalStatus(record.status)) throw new TaskNotCompletedError(taskId, record.status);
      return outcomeOf(key, record);
    },

    async waitForOutcome(taskId, owner, o = {}) {
      if (disposed) throw new RuntimeDisposedError();
      checkTaskId(taskId, opts.limits.maxTaskIdLength);
      if (o.countsAsPoll !== false) limiter.admit(ownerKeyOf(owner), 'pollsPerSecond');
      const key = keyOf(taskId, owner);
      const deadline = o.timeout === undefined ? Infinity : now() + o.timeout;
      let wake: () => void = () => undefined;
      let lastEnd: TaskView | null = null;
      const watch = watchTask(key, (event) => {
        if (isTerminalStatus(event.view.status)) lastEnd = event.view;
        if (lastEnd !== null || event.kind === 'task.deleted') wake();
      });
      try {
        for (;;) {
          let found: { key: string; record: TaskRecord };
          try {
            found = await find(taskId, owner);
          } catch (error) {
            // Deleted right after it ended: the outcome is what the end said (no result survives a delete).
            if (lastEnd !== null) return { task: lastEnd, result: undefined, hasResult: false, failure: undefined };
            throw error;
          }
          watch.from(found.record.seq);
          if (isTerminalStatus(found.record.status)) return await outcomeOf(key, found.record);
          if (o.signal?.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new Error('Aborted');
          const left = deadline - now();
          if (left <= 0) throw new TaskTimeoutError(o.timeout!);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, Math.min(WAIT_POLL_MS, left));
            o.signal?.addEventListener('abort', done, { once: true });
            function done(): void {
              clearTimeout(timer);
              o.signal?.removeEventListener('abort', done);
              resolve();
            }
            wake = done;
          });
          if (disposed) throw new RuntimeDisposedError();
        }
      } finally {
        watch.stop();
      }
    },

    async waitForTerminal(taskId, owner, o = {}) {
      return (await runtime.waitForOutcome(taskId, owner, o)).task;
    },

    async update(taskId, owner, change) {
      const { key, record } = await find(taskId, owner);
      if (isTerminalStatus(record.status)) throw new TaskTerminalError(taskId, record.status);
      if (record.work) throw new InvalidArgumentError(`Task ${taskId} runs a handler; only tasks without one are updated from outside`);
      const withResult = change.status === 'completed' || (change.status === 'failed' && 'result' in change);
      // The same rule as a handler's result: refused (the task unchanged) when not JSON or too large.
      if (withResult) checkResult(change.result, opts.limits.maxResultBytes);
      if (withResult) await store.putResult(key, change.result);
      let current = record;
      for (const event of eventsForUpdate(record.status, change, key, now())) {
        const out = await applyToTask(space, key, event, withResult ? { extra: () => ({ hasResult: true }) } : {});
        if (out === null) throw new TaskNotFoundError(taskId);
        current = out.record;
      }
      return viewOf(current);
    },

    async cancel(taskId, owner, reason = null) {
      const { key, record } = await find(taskId, owner);
      if (isTerminalStatus(record.status)) throw new TaskTerminalError(taskId, record.status);
      const out = await applyToTask(space, key, taskEvents.cancel(reason, now()));
      if (out === null) throw new TaskNotFoundError(taskId);
      if (!out.changed) throw new TaskTerminalError(taskId, out.record.status);
      return viewOf(out.record);
    },

    async delete(taskId, owner) {
      const { key, record } = await find(taskId, owner);
      let last = record;
      // A running task is cancelled first: its worker sees the cancel and aborts the handler.
      if (!isTerminalStatus(record.status)) last = (await applyToTask(space, key, taskEvents.cancel('Deleted by the requester', now())))?.record ?? record;
      await store.publish(key, { order: last.order, seq: last.seq + 1 }, { kind: 'task.deleted', view: viewOf(last), previous: last.status, node: nodeId });
      // Removing also purges the task's events, so an id used again starts a clean history.
      await store.remove(key, last, { expired: false });
    },

    async pendingInputRequests(taskId, owner) {
      return pendingInputsOf((await find(taskId, owner)).record);
    },

    onInputRequest(listener, only) {
      if (only) {
        return follow(keyOf(only.taskId, only.owner), (event) => {
          if (event.kind === 'task.input.request' && event.input) listener(event.input);
        });
      }
      return space.feed.watchAll((_key, event) => {
        if (event.kind === 'task.input.request' && event.input) listener(event.input);
      });
    },

    async answerInput(taskId, owner, inputId, answer) {
      const { key } = await find(taskId, owner);
      const stored = 'error' in answer ? { error: answer.error.message } : { result: answer.result };
      let pending = false;
      const out = await applyToTask(
        space,
        key,
        taskEvents.inputResponse(inputId, now()),
        {
          extra: (r) => {
            pending = r.context.pendingInputs.includes(inputId) && r.inputs.some((i) => i.inputId === inputId && i.answer === undefined);
            return { inputs: r.inputs.map((i) => (i.inputId === inputId ? { ...i, answer: stored } : i)) };
          },
        },
      );
      if (out === null || !out.changed || !pending) {
        throw new InvalidArgumentError(`Input request ${inputId} of task ${taskId} is not pending (answered already, or the task ended)`);
      }
      return viewOf(out.record);
    },

    subscribe(listener, only) {
      const emit = (event: FeedEvent): void => {
        if (event.kind === 'task.deleted') return;
        if (event.kind === 'task.created' || event.previous !== event.view.status || event.kind === 'task.message') {
          listener({ task: event.view, previous: event.kind === 'task.created' ? null : event.previous });
        }
      };
      if (only) return follow(keyOf(only.taskId, only.owner), emit);
      return space.feed.watchAll((_key, event) => emit(event));
    },

    stats() {
      return { live: worker?.running ?? 0, retained: 0 };
    },

    security() {
      return audit?.report() ?? disabledSecurityReport(nodeId);
    },

    observe() {
      if (disposed) throw new RuntimeDisposedError();
      const observer = new NatsObserver(store, space.feed);
      observers.add(observer);
      observer.onClose = () => observers.delete(observer);
      return observer;
    },

    async dispose() {
      if (disposed) return;
      disposed = true;
      stop.abort();
      stopSharing();
      // A clean stop hands running tasks over at once instead of letting their leases expire.
      await worker?.handOver();
      await stopHeartbeat();
      // Observers hold a watch on the records: stopped here, or it would outlive a shared connection.
      await Promise.all([...observers].map((o) => o.close()));
      space.feed.close();
      await Promise.race([Promise.allSettled(background), new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);
      if (!options.connection) await nc.drain().catch(() => nc.close());
    },
  };
  return audit ? auditRuntime(runtime, audit) : runtime;
}
