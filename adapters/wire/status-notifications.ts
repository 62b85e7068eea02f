/**
 * `notifications/tasks/status` (2025-11-25) for the tasks one connection creates: the spec lets a
 * receiver tell the requester of every change; this tells it of the changes it has not been told.
 *
 * - A task is watched from before it exists (its work starts at once and may change it before
 *   the creation returns). What changes before the `CreateTaskResult` has left waits for it: a
 *   requester hears of a task first from that reply.
 * - Changes are sent on the next turn of the event loop, coalesced: each notification carries
 *   the whole task, so only the latest change is news.
 * - Nothing is sent that an answer on this connection already said: the `CreateTaskResult`, and
 *   every `tasks/get` or `tasks/result` answer about the task (a requester fetching the result of
 *   a task that just ended learns of the end from that answer).
 * - Intermediate results (`ctx.partial`) are news too: a notification carries those the
 *   connection has not been sent, under `_meta["io.github.mcp-task-actors/partial"]`.
 * - Progress: when the request that created the task carried a `progressToken`, the task's
 *   progress reports go as `notifications/progress` for the task's whole life (the spec keeps the
 *   token valid), held like the rest until the reply has left; on a `tasks/result` about the task
 *   while one is open (its stream is surely open; the connection's standalone one may not be).
 * - Heartbeat: a task running longer than the runtime's `heartbeatMs` is told again every
 *   `heartbeatMs` when nothing else was sent meanwhile, so that the stream never idles that long.
 *
 * @module
 */
import { isTerminalStatus, type TaskOwner } from '../../machines/index.js';
import type { TaskRuntime, TaskView } from '../../runtime/index.js';
import { renderTask2025, statusOf2025 } from '../dialects/2025-11-25/index.js';
import type { RequestInfo } from './request-info.js';
import { withPartials } from '../dialects/extension-meta.js';
import { ProgressReports, type ProgressSend, type ProgressToken } from './progress-notifications.js';

/** Where notifications go: the SDK peer of the connection (SDK v1 or v2). */
export interface NotificationSink {
  notification(notification: { method: string; params: Record<string, unknown> }): Promise<void>;
}

/** What the requester has been told of a task: its status as this dialect shows it, and the last partial result sent. */
type Told = ReturnType<typeof statusOf2025> & { readonly partialSeq: number };

interface Watched {
  /** Until the CreateTaskResult has left, nothing is sent. */
  holding: boolean;
  /** The latest change not sent yet, with the time it happened (its suggested interval is that moment's). */
  latest: { readonly task: TaskView; readonly at: number } | null;
  told: Told | null;
  scheduled: boolean;
  /** The task ended: forgotten once what is pending is sent. */
  ended: boolean;
  /** When the last notification about it was sent (or the task was created), for the heartbeat. */
  sentAt: number;
  readonly createdAt: number;
  readonly owner: TaskOwner;
  readonly stop: () => void;
  /** Its progress, when the request carried a progress token. */
  readonly progress: ProgressReports | undefined;
}

const same = (a: Told, b: Told): boolean => a.status === b.status && a.statusMessage === b.statusMessage && a.partialSeq === b.partialSeq;

const lastPartial = (task: TaskView): number => task.partials?.at(-1)?.seq ?? 0;

/** What a task's view tells: its status as shown, and, when the answer carried them, its partial results. */
const toldBy = (task: TaskView, partialSeq: number): Told => ({ ...statusOf2025(task), partialSeq });

/**
 * The status notifications of one connection.
 *
 * @example
 * ```ts
 * const notes = new StatusNotifications(host, runtime);
 * const created = notes.watch(taskId, owner);
 * const task = await runtime.create({ taskId, owner, … });
 * created(task, request);
 * ```
 */
export class StatusNotifications {
  readonly #host: NotificationSink;
  readonly #runtime: TaskRuntime;
  readonly #watched = new Map<string, Watched>();
  #heartbeat: NodeJS.Timeout | null = null;

  constructor(host: NotificationSink, runtime: TaskRuntime) {
    this.#host = host;
    this.#runtime = runtime;
  }

  /**
   * Watches a task about to be created. Call the result with the created task (or `null` when the
   * creation failed) and the request that created it.
   */
  watch(taskId: string, owner: TaskOwner, progressToken?: ProgressToken): (created: TaskView | null, request: Pick<RequestInfo, 'afterReply'>) => void {
    const stop = this.#runtime.subscribe(
      ({ task, previous }) => {
        if (previous === null) return; // the creation itself: the CreateTaskResult tells it
        const w = this.#watched.get(taskId);
        if (!w) return;
        w.progress?.saw(task);
        if (isTerminalStatus(task.status)) {
          w.ended = true;
          w.stop();
        }
        w.latest = { task, at: this.#runtime.options.now() };
        if (!w.holding) this.#schedule(taskId, w);
      },
      { taskId, owner },
    );
    const at = this.#runtime.options.now();
    const progress = progressToken === undefined ? undefined : new ProgressReports(progressToken, this.#unattached);
    const w: Watched = { holding: true, latest: null, told: null, scheduled: false, ended: false, sentAt: at, createdAt: at, owner, stop, progress };
    this.#watched.set(taskId, w);
    this.#startHeartbeat();
    return (created, request) => {
      if (created === null) {
        stop();
        this.#watched.delete(taskId);
        return;
      }
      afterReply(request, () => {
        w.holding = false;
        w.progress?.release();
        w.told = toldBy(created, 0);
        if (w.latest) this.#schedule(taskId, w);
        else if (w.ended) this.#watched.delete(taskId);
      });
    };
  }

  /** An answer on this connection told the requester how a task is (tasks/get, tasks/result). */
  told(task: TaskView): void {
    const w = this.#watched.get(task.taskId);
    // A plain answer carries no partial results: those not sent yet stay news.
    if (w && !w.holding) w.told = toldBy(task, w.told?.partialSeq ?? 0);
  }

  /**
   * A `tasks/result` about `taskId` is open on this connection: the task's progress goes over it
   * (`send`) until the returned function is called.
   */
  routeProgress(taskId: string, send: ProgressSend): () => void {
    const reports = this.#watched.get(taskId)?.progress;
    reports?.route(send);
    return () => reports?.route(this.#unattached);
  }

  /** Progress sent on no request: the standalone stream (Streamable HTTP), or the one channel (stdio). */
  readonly #unattached: ProgressSend = (notification) => this.#host.notification(notification);

  /** The connection closed: nothing more is watched or sent. */
  close(): void {
    for (const w of this.#watched.values()) w.stop();
    this.#watched.clear();
    this.#stopHeartbeat();
  }

  /** One timer per connection, running while it watches a task. */
  #startHeartbeat(): void {
    const every = this.#runtime.options.heartbeatMs;
    if (every === null || this.#heartbeat !== null) return;
    this.#heartbeat = setInterval(() => this.#beat(every), Math.max(10, Math.floor(every / 2)));
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }

  /** Tells again each running task older than `every` that nothing was sent about for `every`. */
  #beat(every: number): void {
    if (this.#watched.size === 0) return this.#stopHeartbeat();
    const now = this.#runtime.options.now();
    for (const [taskId, w] of this.#watched) {
      if (w.holding || w.ended || w.scheduled || now - w.createdAt < every || now - w.sentAt < every) continue;
      w.sentAt = now;
      // The server's own read, not a poll: never charged nor refused.
      void this.#runtime.get(taskId, w.owner, { countsAsPoll: false }).then(
        (task) => {
          if (isTerminalStatus(task.status) || this.#watched.get(taskId) !== w) return;
          this.#host.notification({ method: 'notifications/tasks/status', params: renderTask2025(task, this.#runtime.options.now()) }).catch(() => undefined);
        },
        () => undefined,
      );
    }
  }

  #schedule(taskId: string, w: Watched): void {
    if (w.scheduled) return;
    w.scheduled = true;
    setImmediate(() => {
      w.scheduled = false;
      const latest = w.latest;
      w.latest = null;
      if (w.ended && this.#watched.get(taskId) === w) this.#watched.delete(taskId);
      if (latest === null) return;
      const now = toldBy(latest.task, lastPartial(latest.task));
      if (w.told && same(now, w.told)) return;
      const sentPartial = w.told?.partialSeq ?? 0;
      w.told = now;
      w.sentAt = this.#runtime.options.now();
      const params = renderTask2025(latest.task, latest.at);
      this.#host.notification({ method: 'notifications/tasks/status', params: now.partialSeq > sentPartial ? withPartials(params, latest.task, sentPartial) : params }).catch(() => undefined);
    });
  }
}

/**
 * Runs `fn` once the answer to `request` has left: on the fast lane right after it is handed to
 * the transport; on the SDK's path, which has no such moment, on the next turn of the loop.
 */
function afterReply(request: Pick<RequestInfo, 'afterReply'>, fn: () => void): void {
  if (request.afterReply) request.afterReply(fn);
  else setImmediate(fn);
}
