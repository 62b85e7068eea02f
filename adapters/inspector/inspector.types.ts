/**
 * Public types of the inspector: its options, the running inspector, and the JSON its page reads
 * (`/api/tasks`, `/api/tasks/:key`, the server-sent events of `/api/events`).
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import type { ObservedTask, TaskStatus, TimelineEntry } from '../../runtime/index.js';
import type { HandlerRunStatus, HandlerRuns } from '../../runtime/handlers/handler-runs.js';
import type { DeliveryAttempt } from '../../runtime/push/push.types.js';

/**
 * Options of `attachInspector`.
 *
 * @example
 * ```ts
 * const options: InspectorOptions = { port: 8080, host: '0.0.0.0', showResults: true };
 * ```
 */
export interface InspectorOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /**
   * Address to bind. On anything but a loopback address (`127.0.0.1`, `::1`, `localhost`) every
   * request needs the token.
   * @default '127.0.0.1'
   */
  readonly host?: string;
  /**
   * The access token. Required off loopback: generated (24 random bytes, base64url) when not
   * given. On loopback it is checked only when given.
   * @default undefined
   */
  readonly token?: string;
  /**
   * Show what tasks produced (their result JSON) in the detail view. Off, the page shows metadata
   * only (status, status message, error), since results may hold the requesters' data.
   * @default false
   */
  readonly showResults?: boolean;
  /**
   * Interval of the SSE heartbeat comment, which keeps proxies and idle timeouts from cutting the
   * stream.
   * @default 15_000
   */
  readonly heartbeatMs?: number;
  /** Where handler machines report. @default the process-wide `handlerRuns` */
  readonly handlerRuns?: HandlerRuns;
  /**
   * The push (webhook) deliveries of a task, oldest first, for its detail view.
   * @default the runtime's `pushDeliveries` (every attempt of the task id)
   */
  readonly pushDeliveries?: PushDeliverySource;
}

/**
 * Where the detail view reads a task's push deliveries from: the task's id and owner (a task id
 * is unique per owner only) in, its delivery attempts out.
 *
 * @example
 * ```ts
 * const source: PushDeliverySource = async ({ taskId, owner }) => deliveries.of(taskId, owner);
 * ```
 */
export type PushDeliverySource = (task: { readonly taskId: string; readonly owner: TaskOwner }) => Promise<readonly PushDeliveryView[]>;

/**
 * One attempt to deliver one event of a task to its webhook, as the detail view shows it (the runtime's `DeliveryAttempt`).
 *
 * @example
 * ```ts
 * const view: PushDeliveryView = { eventId: 'e1', taskId: 't1', url: 'https://hook.example/x', attempt: 1, at: Date.now(), status: 200, error: null, delivered: true, final: true };
 * ```
 */
export type PushDeliveryView = DeliveryAttempt;

/**
 * A task as the page's list and live stream carry it: its partial results by number and time
 * only. Their content is read with the detail (`/api/tasks/:key`): every change of a task
 * re-sends the whole task, so a task with many partials would otherwise re-send all of them each
 * time, and the content is the requesters' data, shown only when results are.
 *
 * @example
 * ```ts
 * const last = listed.partials.at(-1)?.seq ?? 0;
 * ```
 */
export type ListedTask = Omit<ObservedTask, 'partials'> & {
  readonly partials: readonly PartialMark[];
  /** Its progress as the page shows it (`4/10`, see `progressText`), `null` before the first report. */
  readonly progressText: string | null;
};

/**
 * A partial result without its content.
 *
 * @example
 * ```ts
 * const mark: PartialMark = { seq: 3, at: Date.now() };
 * ```
 */
export interface PartialMark {
  readonly seq: number;
  readonly at: number;
}

/**
 * A running inspector.
 *
 * @example
 * ```ts
 * const inspector = await attachInspector(runtime, { port: 0 });
 * console.error(inspector.url);
 * await inspector.close();
 * ```
 */
export interface Inspector {
  /** The page's address; carries `?token=` when a token is needed, so it can be opened as is. */
  readonly url: string;
  /** The token every request must carry, or `null` when none is needed (loopback, none given). */
  readonly token: string | null;
  /** The bound port (useful with `port: 0`). */
  readonly port: number;
  /** Stops serving, ends the live streams and closes the observer; the runtime goes on. */
  close(): Promise<void>;
}

/**
 * Where a task's handler machine is (handlers written with `machineHandler`, run in this process).
 *
 * @example
 * ```ts
 * const view: HandlerView = { key, machine: 'long_job', states: ['long_job.working'], status: 'active' };
 * ```
 */
export interface HandlerView {
  /** The task's observer key. */
  readonly key: string;
  /** The machine's id. */
  readonly machine: string;
  /** Active state ids, parents included: the `g[data-state]` to highlight. */
  readonly states: readonly string[];
  readonly status: HandlerRunStatus;
}

/**
 * What a task ended with, as the detail view shows it.
 *
 * @example
 * ```ts
 * if (detail.outcome.terminal && detail.outcome.error) console.log(detail.outcome.error);
 * ```
 */
export interface TaskOutcomeView {
  readonly terminal: boolean;
  readonly status: TaskStatus;
  readonly error: string | null;
  readonly statusMessage: string | null;
  readonly hasResult: boolean;
  /** Whether `result` is given: results are enabled and there is one. */
  readonly resultShown: boolean;
  readonly result?: unknown;
}

/**
 * `GET /api/tasks/:key`.
 *
 * @example
 * ```ts
 * const detail = (await (await fetch(`${base}/api/tasks/${key}`)).json()) as TaskDetail;
 * ```
 */
export interface TaskDetail {
  /** The task; its partial results carry their `content` only when results are shown. */
  readonly task: ListedTask | ObservedTask;
  readonly timeline: readonly TimelineEntry[];
  readonly outcome: TaskOutcomeView;
  /** The handler machine and its drawing, when the task's handler is one running here. */
  readonly handler: (HandlerView & { readonly svg: string }) | null;
  /** Its push deliveries, oldest first; absent when the inspector has no source of them. */
  readonly deliveries?: readonly PushDeliveryView[];
}

/**
 * The named server-sent events of `GET /api/events` and their `data` (JSON). `snapshot` comes
 * first on every connection (and reconnection), so the page never needs another request to be
 * complete; later `upsert`s older than what the page has (`updatedAt`) are stale and skipped.
 *
 * @example
 * ```ts
 * source.addEventListener('upsert', (e) => apply(JSON.parse(e.data) as InspectorEvents['upsert']));
 * ```
 */
export interface InspectorEvents {
  readonly snapshot: { readonly tasks: readonly ListedTask[]; readonly showResults: boolean };
  readonly upsert: { readonly task: ListedTask; readonly entry: TimelineEntry | null };
  readonly removed: { readonly key: string };
  readonly handler: HandlerView;
}
