/**
 * Turns task changes into push deliveries: every change of a task that has a webhook (its own,
 * or its requester's) and asked for that kind of change becomes a job on the backend's queue.
 *
 * On NATS every node runs one and sees every change: each builds the same event id, and the
 * queue delivers an id once. A job is durable once queued, so a node that dies after queueing
 * loses nothing; one that dies before has peers that queued the same event.
 *
 * @module
 */
import { closeOf } from '../core/drain.js';
import { isTerminalStatus } from '../../machines/index.js';
import { ownerKeyOf, taskIncarnation } from '../task-identity.js';
import type { ResolvedTaskRuntimeOptions } from '../options.js';
import type { TaskChange, TaskRuntime, TaskView } from '../task-runtime.types.js';
import { wantsPush } from './push-job.js';
import type { PushRegistry } from './push-registry.js';
import type { PushEvent, PushQueue } from './push.types.js';
import { shownTaskId } from '../secrets.js';

/** The `type` of every event body. */
export const PUSH_EVENT_TYPE = 'io.github.mcp-task-actors/task-status';

/** What the notifier needs to know besides its parts. */
export interface PushNotifierOptions {
  /** How long a job of a task still running is retried at most, ms (a terminal task's: until it expires). */
  readonly liveRetryMs: number;
  readonly now: () => number;
  /** Told when a job could not be queued, with the task id as a log line may show it (a bearer handle shortened). */
  readonly onError?: (error: unknown, event: PushEvent, shownTaskId: string) => void;
}

/**
 * The event of one change: the same on every node that sees it (its id names the task's
 * incarnation, the change's time, status and partial count).
 *
 * @example
 * ```ts
 * const event = pushEventOf(change.task);
 * ```
 */
export function pushEventOf(task: TaskView): PushEvent {
  const incarnation = taskIncarnation(task);
  const partials = task.partials?.length ?? 0;
  const id = `${incarnation}:${task.updatedAt}:${task.status}:${partials}`;
  return {
    id,
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    at: task.updatedAt,
    body: {
      type: PUSH_EVENT_TYPE,
      eventId: id,
      taskId: task.taskId,
      status: task.status,
      statusMessage: task.statusMessage,
      dialect: task.dialect,
      method: task.method,
      label: task.label,
      createdAt: new Date(task.createdAt).toISOString(),
      lastUpdatedAt: new Date(task.updatedAt).toISOString(),
      ...(task.parentId != null && { parentTaskId: task.parentId }),
      ...(partials > 0 && { partials }),
    },
  };
}

/**
 * Queues a delivery for each change a webhook asked for, until stopped.
 *
 * @example
 * ```ts
 * const stop = startPushNotifier(runtime, registry, queue, { liveRetryMs: 3_600_000, now: Date.now });
 * ```
 */
export function startPushNotifier(runtime: Pick<TaskRuntime, 'subscribe'>, registry: PushRegistry, queue: PushQueue, o: PushNotifierOptions): () => void {
  return runtime.subscribe((change: TaskChange) => {
    const { task, previous } = change;
    const ownerKey = ownerKeyOf(task.owner);
    const targets = registry.targets(ownerKey, task.taskId);
    if (targets.length === 0) return;
    const statusChanged = previous !== task.status;
    const ended = isTerminalStatus(task.status);
    let event: PushEvent | null = null;
    for (const target of targets) {
      // 'terminal': input_required and each end, once (a message or partial in input_required is not news).
      if (target.events === 'terminal' ? !statusChanged || !wantsPush(target.events, task.status) : previous === null) continue;
      event ??= pushEventOf(task);
      const until = task.expiresAt ?? o.now() + o.liveRetryMs;
      const job = { target, event, until, attempt: 0 };
      queue.enqueue(job).catch((error: unknown) => o.onError?.(error, job.event, shownTaskId(task.taskId, task.owner)));
    }
    if (ended) registry.forget(ownerKey, task.taskId);
  });
}

/**
 * A runtime that delivers its webhooks: its changes go to the queue, and `dispose` stops the
 * notifier, the queue and the registry, then the runtime (`close` drains first).
 *
 * @example
 * ```ts
 * const runtime = withPush(core, { registry, queue }, opts);
 * ```
 */
export function withPush<R extends TaskRuntime>(runtime: R, push: { readonly registry: PushRegistry; readonly queue: PushQueue }, opts: Pick<ResolvedTaskRuntimeOptions, 'now' | 'maxKeepAlive'>, onError?: PushNotifierOptions['onError']): R {
  const stop = startPushNotifier(runtime, push.registry, push.queue, { liveRetryMs: opts.maxKeepAlive ?? 3_600_000, now: opts.now, ...(onError && { onError }) });
  const wrapped: R = {
    ...runtime,
    async dispose() {
      stop();
      // The queue first: it hands the jobs it holds back while the connection is still open (NATS).
      await push.queue.dispose();
      await push.registry.dispose();
      await runtime.dispose();
    },
    // Drained with the notifier still on (the ends of a drain are delivered), then disposed as above.
    close: closeOf(() => wrapped),
  };
  return wrapped;
}
