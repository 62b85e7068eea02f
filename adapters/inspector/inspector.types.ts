/**
 * Public types of the inspector: its options, the running inspector, and the JSON its page reads
 * (`/api/tasks`, `/api/tasks/:key`, the server-sent events of `/api/events`).
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import type { ObservedTask, TaskStatus, TimelineEntry } from '../../runtime/index.js';
import type { HandlerRuns } from '../../runtime/handlers/handler-runs.js';
import type { DeliveryAttempt } from '../../runtime/push/push.types.js';
import type { Logger } from '../../runtime/logger.js';
import type { HandlerPosition } from '../../machines/index.js';
import type { StatusSource } from '../http/status-endpoint.js';

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
  /**
   * Ignored: a handler machine's position now rides on its task (`ObservedTask.handler`), on
   * whichever node runs it, so the inspector reads no in-process table of runs.
   * @deprecated no longer read; will be removed
   */
  readonly handlerRuns?: HandlerRuns;
  /**
   * The push (webhook) deliveries of a task, oldest first, for its detail view.
   * @default the runtime's `pushDeliveries` (every attempt of the task id)
   */
  readonly pushDeliveries?: PushDeliverySource;
  /**
   * Operators who may act on tasks (cancel), by token: `{ [token]: name }`. An action needs
   * `Authorization: Bearer <token>` of one of them, on any bind (loopback included); the name is
   * written to the audit line of each action. An operator token also grants reading. Without any,
   * the page offers no action and the API refuses every one (403).
   * @default {}
   */
  readonly operators?: Readonly<Record<string, string>>;
  /**
   * Browser origins, besides the inspector's own page and loopback pages, from which an action
   * may come: a reverse proxy's public origin (`https://ops.example`) when the proxy rewrites
   * `Host`, so that the page's origin no longer names it. The form of the MCP endpoint's
   * `allowedOrigins` (the CLI passes `--allowed-origin` to both).
   * @default []
   */
  readonly allowedOrigins?: readonly string[];
  /** Where each operator action is written (one `operator.*` line). @default the runtime's own node log is not reachable: none */
  readonly audit?: Logger;
  /**
   * Where the inspector logs (one `error` line per request that failed unexpectedly and was
   * answered 500); pino fits. Absent: nothing is written anywhere.
   * @default none (silent)
   */
  readonly logger?: Logger;
  /**
   * Where the cluster view reads nodes, leases and heartbeats (the source `mcp-tasks status`
   * reads). @default the process's runtime as one node (`localStatusSource`), when it has `stats`
   */
  readonly status?: StatusSource;
  /**
   * Most tasks one page of the list holds (`limit` of `/api/tasks` and `/api/events`).
   * @default 100 (the most a request may ask for: 500)
   */
  readonly pageSize?: number;
  /**
   * Most event streams (`/api/events`, one per open page) served at once; one more is refused
   * with 503 and `Retry-After`. Each stream costs work on every change, so an unbounded number
   * of them (a script, many forgotten tabs) could starve the node.
   * @default 64
   */
  readonly maxStreams?: number;
}

/**
 * The filters and paging of the task list (`GET /api/tasks?…` and `GET /api/events?…`, as query
 * parameters of the same names). Every filter is optional; they combine with AND.
 *
 * @example
 * ```ts
 * const query: TaskQuery = { status: 'working', label: 'long_job', since: Date.now() - 3_600_000, limit: 100 };
 * ```
 */
export interface TaskQuery {
  readonly status?: TaskStatus;
  /** The originating method (`tools/call`), exactly. */
  readonly method?: string;
  /** The tool, prompt or resource name, exactly. */
  readonly label?: string;
  /** The node that runs or last ran it, exactly. */
  readonly node?: string;
  /** The owner: its principal, or (on a page that needed the token) its session id, exactly. */
  readonly owner?: string;
  /** The wire dialect (`2025-11-25`), exactly. */
  readonly dialect?: string;
  /** Created at or after this epoch ms (the query parameter also takes an ISO 8601 date). */
  readonly since?: number;
  /** Free text: a case-insensitive substring of the task id, label, session, node, message, error or parent id. */
  readonly q?: string;
  /** The task id, exactly (what `/tasks/<taskId>` resolves). */
  readonly taskId?: string;
  /** Tasks per page; at most 500. @default the inspector's `pageSize` */
  readonly limit?: number;
  /** Where the page starts: a previous page's `next` (pages run newest first). */
  readonly cursor?: string;
}

/**
 * One page of the task list: `GET /api/tasks` (and the `snapshot` of `/api/events`).
 *
 * @example
 * ```ts
 * const page = (await (await fetch(`${base}/api/tasks?status=working`)).json()) as TaskPage;
 * console.log(`${page.tasks.length} of ${page.total}; ${page.counts.working} working in all`);
 * ```
 */
export interface TaskPage {
  /** The page's tasks, newest first (a subtask is listed like any task: the page nests it under its parent when both are shown). */
  readonly tasks: readonly ListedTask[];
  /** How many tasks match the filters (all pages). */
  readonly total: number;
  /** How many tasks have each status among those matching every filter but `status`. */
  readonly counts: Readonly<Record<TaskStatus, number>>;
  /** The cursor of the next (older) page, `null` on the last. */
  readonly next: string | null;
  /** Whether this page is the first (newest): only the first takes new tasks live. */
  readonly first: boolean;
  /** The most tasks a page holds (the query's `limit`, else the inspector's `pageSize`): where a live first page trims. */
  readonly limit: number;
  readonly showResults: boolean;
  /** Whether any action may be offered (operators are configured); which operator asks is `GET /api/operator`. */
  readonly actions: boolean;
}

/**
 * `GET /api/operator` with an operator's token: who it is and what it may do.
 *
 * @example
 * ```ts
 * const me = (await (await fetch(`${base}/api/operator`, { headers: { authorization: `Bearer ${token}` } })).json()) as OperatorView;
 * ```
 */
export interface OperatorView {
  readonly name: string;
  readonly actions: readonly 'cancel'[];
}

/**
 * One input request a task waits on, as its detail shows it: the question (an elicitation's
 * message and requested schema, or a sampling request's messages), hidden like results when the
 * inspector does not show results.
 *
 * @example
 * ```ts
 * for (const input of detail.inputs) console.log(input.inputId, input.kind, input.message ?? '(hidden)');
 * ```
 */
export interface PendingInputView {
  readonly inputId: string;
  /** The request's method (`elicitation/create`, `sampling/createMessage`). */
  readonly method: string;
  readonly kind: 'elicitation' | 'sampling' | 'other';
  /** Whether the content below is left out (results are not shown by this inspector). */
  readonly redacted: boolean;
  /** Elicitation: the message asked. */
  readonly message?: string;
  /** Elicitation: the requested schema. */
  readonly requestedSchema?: unknown;
  /** Sampling: the messages sent to the model (and its system prompt, when any). */
  readonly messages?: readonly unknown[];
  readonly systemPrompt?: string;
  /** Any other method: its params. */
  readonly params?: unknown;
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
 * Where a task's handler machine is (handlers written with `machineHandler`), on whichever node
 * runs it: the task's `handler` position (see `HandlerPosition`) with its observer key.
 *
 * @example
 * ```ts
 * const view: HandlerView = { key, machine: 'long_job', graph, states: ['long_job.working'], status: 'active', step: 3, checkpoint: true };
 * ```
 */
export interface HandlerView extends HandlerPosition {
  /** The task's observer key. */
  readonly key: string;
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
  /**
   * The handler machine, where it is and its drawing (`svg` `null` when no node shared its graph),
   * for a task run by a machine handler on any node; `null` otherwise.
   */
  readonly handler: (HandlerView & { readonly svg: string | null }) | null;
  /** The input requests it waits on (in `input_required`), oldest first. */
  readonly inputs: readonly PendingInputView[];
  /** The actions the asking operator may take on it now (`[]` without an operator token, or once it ended). */
  readonly actions: readonly 'cancel'[];
  /** Its push deliveries, oldest first; absent when the inspector has no source of them. */
  readonly deliveries?: readonly PushDeliveryView[];
}

/**
 * The named server-sent events of `GET /api/events?<TaskQuery>` and their `data` (JSON).
 * `snapshot` comes first on every connection (and reconnection): the page of the query, so the
 * page never needs another request to be complete. Then every change of any task as an `upsert`,
 * with `matches` saying whether the task now passes the stream's filters (the server's rule, the
 * page's never: a row that stops matching leaves, one that starts matching joins the first page);
 * later `upsert`s older than what the page has (`updatedAt`) are stale and skipped. `counts`
 * follows changes, at most every {@link COUNTS_INTERVAL_MS}.
 *
 * @example
 * ```ts
 * source.addEventListener('upsert', (e) => apply(JSON.parse(e.data) as InspectorEvents['upsert']));
 * ```
 */
export interface InspectorEvents {
  readonly snapshot: TaskPage;
  readonly upsert: { readonly task: ListedTask; readonly entry: TimelineEntry | null; readonly matches: boolean };
  readonly removed: { readonly key: string };
  readonly counts: Pick<TaskPage, 'counts' | 'total'>;
}

/**
 * The shortest interval between two `counts` events of one stream.
 *
 * @example
 * ```ts
 * await page.waitForTimeout(COUNTS_INTERVAL_MS * 2);
 * ```
 */
export const COUNTS_INTERVAL_MS = 500;
