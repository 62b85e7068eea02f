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
import { auditRuntime, openAudit } from '../../audit/index.js';
import { createCoreRuntime } from '../../core/core-runtime.js';
import { InvalidArgumentError } from '../../errors.js';
import { ownerKeyOf } from '../../task-identity.js';
import { RequesterLimiter } from '../../limits.js';
import { resolveTaskRuntimeOptions, type TaskRuntimeOptions } from '../../options.js';
import type { TaskRuntime } from '../../task-runtime.types.js';
import { connectNats, type NatsConnectionOptions } from './connection.js';
import { logConnection } from './connection-log.js';
import { EventFeed } from './event-feed.js';
import { runExpiry } from './expiry.js';
import { FailoverMonitor } from './failover.js';
import { NatsPushQueue } from './push-queue.js';
import { NatsPushRegistry } from './push-registry.js';
import { withPush } from '../../push/push-notifier.js';
import { LeaseManager } from './leases.js';
import { MachineGraphs } from './machine-graphs.js';
import { NatsStore } from './nats-store.js';
import { NatsReadiness } from './nats-readiness.js';
import { closeOf } from '../../core/drain.js';
import { isTerminalStatus } from '../../../machines/index.js';
import { openNodeBucket, startHeartbeat } from './node-registry.js';
import { RecordStore } from './record-store.js';
import { RunningTasks } from './running-tasks.js';
import { SharedRates } from './shared-rates.js';
import { ExpiryBatch } from './expiry-batch.js';
import { persistently } from './persistently.js';
import { nodeLog } from '../../logger.js';
import { type ExpiryItem, type RunItem, type TaskSpace } from './task-space.js';
import { TaskWorker } from './task-worker.js';
import { DEFAULT_UNSERVED_TIMEOUT_MS, UnservedTasks, type UnservedCheck } from './unserved-tasks.js';
import { WorkerAnnouncements } from './worker-announcements.js';
import { WorkQueue } from './work-queue.js';
import { openTaskMetrics } from '../../telemetry/metrics.js';
import { meterRefusals } from '../../telemetry/metered-runtime.js';

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
  /**
   * On a front node, how long a task waits for a live worker that serves its handler, in ms: a
   * task created while no live worker announces its handler is accepted (a worker that starts
   * within this bound takes it), then ends `failed` with a status message naming the tool if still
   * none does and it was never started. `null`: it waits for a worker as long as it takes.
   * @default 30_000
   */
  readonly unservedTimeoutMs?: number | null;
}

/** A runtime on NATS, with what only a cluster has. */
export interface NatsTaskRuntime extends TaskRuntime {
  readonly nodeId: string;
  readonly role: 'front' | 'worker' | 'both';
  /** The connection in use (for `status` and tests). */
  readonly connection: NatsConnection;
}



/** The most `maxPartialBytes` may be on NATS (see {@link createNatsTaskRuntime}). */
const MAX_PARTIAL_BYTES = 256 * 1024;

/** How long the end of a handed-over (or lost) task waits for its subtasks' cancels to be written. */
const CASCADE_WAIT_MS = 5_000;

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got ${value}`);
  return value;
}


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
  // Partial results travel in the task's record and in every event of the task (its view): bounded
  // well below what a NATS message carries.
  if (opts.maxPartialBytes > MAX_PARTIAL_BYTES) throw new InvalidArgumentError(`maxPartialBytes must be at most ${MAX_PARTIAL_BYTES} on NATS (partial results travel in every event of their task), got ${opts.maxPartialBytes}`);
  const leaseTtlMs = positive('leaseTtlMs', options.leaseTtlMs ?? 10_000);
  const maxAttempts = positive('maxAttempts', options.maxAttempts ?? 3);
  const concurrency = positive('workerConcurrency', options.workerConcurrency ?? 64);
  const unservedTimeoutMs = options.unservedTimeoutMs === null ? null : positive('unservedTimeoutMs', options.unservedTimeoutMs ?? DEFAULT_UNSERVED_TIMEOUT_MS);
  const nodeId = options.nodeId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const layout = { prefix: options.prefix ?? 'tasks', replicas: options.replicas ?? 1, storage: options.storage ?? 'file' } as const;
  // Now, not at import: a meter taken before the SDK is registered would measure nothing.
  const metrics = openTaskMetrics();
  // Every line says its node, and inside a request or a task's run its trace (see `nodeLog`).
  const log = nodeLog(options.logger, nodeId);

  const nc = options.connection ?? (await connectNats({ name: `mcp-tasks ${nodeId}`, ...options.nats }));
  // A drop and a return of the connection are said in the log, as they happen.
  const stopLoggingConnection = logConnection(nc, log);
  // Creating streams and buckets may time out while a cluster elects its leaders: keep trying.
  const opening = <T>(open: () => Promise<T>): Promise<T> => persistently(open, { giveUpMs: 30_000 });
  const records = await opening(() => RecordStore.open(nc, layout, nodeId, opts.expiredMemory));
  const stopListening = records.removal.listen();
  const audit = openAudit(options.audit, nodeId, now, options.logger);
  // Status changes are audited where they are written, so once in the cluster (not per node watching).
  if (audit) records.onWrite = (task, previous) => audit.changed(task, previous);
  const timers = await opening(() =>
    WorkQueue.open<ExpiryItem>(nc, { prefix: `${layout.prefix}.timers`, replicas: layout.replicas, storage: layout.storage, maxAckPending: -1 }),
  );
  // Kept trying while NATS is away: a task whose timer is never queued would stay stored forever.
  const expiries = new ExpiryBatch((id, due, tasks) =>
    persistently(() => timers.enqueue({ id, due, tasks }), { giveUpMs: 120_000 }).then(
      () => undefined,
      (error: unknown) => log('warn', 'could not queue retention timers', { tasks: tasks.length, error: String(error) }),
    ),
  );
  const space: TaskSpace = {
    nc,
    nodeId,
    store: records,
    feed: new EventFeed(nc, records, layout.prefix),
    graphs: await opening(() => MachineGraphs.open(nc, layout)),
    leases: await opening(() => LeaseManager.open(nc, { bucketPrefix: layout.prefix, replicas: layout.replicas, storage: layout.storage, now })),
    runs: await opening(() =>
      WorkQueue.open<RunItem>(nc, { prefix: layout.prefix, replicas: layout.replicas, storage: layout.storage, ackWaitMs: Math.max(5_000, leaseTtlMs) }),
    ),
    timers,
    expiries,
    handlers: new Map(),
    leaseTtlMs,
    maxAttempts,
    now,
    log,
    maxResultBytes: opts.limits.maxResultBytes,
    metrics,
  };
  const nodes = await opening(() => openNodeBucket(nc, layout));
  const stop = new AbortController();
  const worker = role === 'front' ? null : new TaskWorker(space, concurrency);
  const background: Promise<unknown>[] = [
    new FailoverMonitor(space).run(stop.signal),
    runExpiry(space, stop.signal).catch((e: unknown) => log('error', 'expiry loop stopped', { error: String(e) })),
  ];
  if (worker) background.push(worker.run(stop.signal).catch((e: unknown) => log('error', 'worker loop stopped', { error: String(e) })));
  // A node that runs handlers announces their names with its heartbeat: front nodes tell from them
  // a task no live worker serves. A front's own handlers (registered to accept tasks) are not announced.
  // Set when the drain begins: `status` shows the node as draining from its next beat (at once).
  let draining = false;
  const heartbeat = startHeartbeat(nodes, { nodeId, role }, () => ({
    tasksRun: worker?.tasksRun ?? 0,
    running: worker?.running ?? 0,
    draining,
    security: audit?.report(),
    ...(worker && { handlers: [...space.handlers.keys()] }),
  }));
  // A front node (a `both` node runs every handler it accepts) follows the announcements.
  let unserved: UnservedTasks | null = null;
  if (role === 'front' && unservedTimeoutMs !== null) {
    const announcements = new WorkerAnnouncements(nodes, now, () => nc.isClosed());
    await opening(() => announcements.load());
    const checks = await opening(() =>
      WorkQueue.open<UnservedCheck>(nc, { prefix: `${layout.prefix}.unserved`, replicas: layout.replicas, storage: layout.storage, maxAckPending: -1 }),
    );
    unserved = new UnservedTasks(space, announcements, checks, unservedTimeoutMs);
    background.push(announcements.run(stop.signal));
    background.push(unserved.run(stop.signal).catch((e: unknown) => log('error', 'unserved-task checks stopped', { error: String(e) })));
  }
  let disposed = false;
  // Limits hold cluster-wide: rates through usage the nodes share, running tasks through a KV claim.
  const rates = new SharedRates(nc, layout.prefix, nodeId);
  const limiter = new RequesterLimiter(opts.limits, now, rates.admitted);
  const stopSharing = rates.start(limiter);
  const running = opts.limits.maxConcurrentTasks === null ? null : await opening(() => RunningTasks.open(nc, layout, records, now));
  if (running) {
    space.onTaskEnded = (key, record) =>
      void running.release(ownerKeyOf(record.context.owner), key).catch((e: unknown) => log('warn', 'could not release a running-task slot', { key, error: String(e) }));
  }

  // Once every stream and bucket is open: the ones the probe expects to find.
  const readiness = await opening(() => NatsReadiness.start(nc, layout.prefix));
  const onDrain = (): void => {
    draining = true;
    heartbeat.soon();
  };
  const store = new NatsStore(space, opts, { running, worker, audit, unserved, readiness, onDrain });
  // Webhooks: registrations in a shared bucket, deliveries from a work queue every node serves.
  const push =
    opts.push === null
      ? undefined
      : {
          registry: await opening(() => NatsPushRegistry.open(nc, layout)),
          queue: await opening(() => NatsPushQueue.open(nc, { ...layout, allow: opts.push!.allow, ackWaitMs: opts.push!.ackWaitMs, metrics, ...opts.push!.options })),
        };
  const core = createCoreRuntime(opts, store, { limiter, handlers: space.handlers, hasWork: (record) => record.work !== null, push, metrics, log });
  // A task ended for its lost (or handed-over) run takes its live subtasks with it: the core's
  // cancel, which cascades through theirs.
  // Awaited (bounded) by the hand-over that ended the task: the cancels are written before the
  // node closes its connection.
  space.onRunEnded = async (record) => {
    const live = (record.context.children ?? []).filter((child) => !isTerminalStatus(child.status));
    const cancels = Promise.allSettled(live.map((child) => core.cancel(child.taskId, record.context.owner, 'Its parent task ended')));
    await Promise.race([cancels, new Promise((resolve) => setTimeout(resolve, CASCADE_WAIT_MS).unref())]);
  };
  const base: NatsTaskRuntime = {
    ...core,
    registerHandler(name, handler, handlerOptions) {
      core.registerHandler(name, handler, handlerOptions);
      // Announced at once: a task waiting for a worker that serves it is not kept waiting a period.
      if (worker) heartbeat.soon();
    },
    nodeId,
    role,
    connection: nc,
    close: closeOf(() => base),
    async dispose() {
      if (disposed) return;
      disposed = true;
      stop.abort();
      stopSharing();
      // A clean stop hands running tasks over at once instead of letting their leases expire
      // (before the core goes: a task ended for it takes its subtasks with it, through the core).
      await worker?.handOver();
      await core.dispose();
      // And sends the timers of the tasks that ended last.
      await expiries.queued();
      await heartbeat.stop();
      space.feed.close();
      stopListening();
      await Promise.race([Promise.allSettled(background), new Promise((resolve) => setTimeout(resolve, 3_000).unref())]);
      stopLoggingConnection();
      if (!options.connection) await nc.drain().catch(() => nc.close());
    },
  };
  const runtime = push === undefined ? base : withPush(base, push, opts, (error, _event, taskId) => log('warn', 'could not queue a push delivery', { taskId, error: String(error) }));
  return meterRefusals(audit ? auditRuntime(runtime, audit) : runtime, metrics);
}
