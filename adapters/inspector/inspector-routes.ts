/**
 * The inspector's HTTP routes: the page (at `/` and at every `/tasks/<taskId>` deep link) and its
 * two assets, the JSON API, the diagram, the event stream, and the operator's one action. Every
 * route is behind the access check.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { taskMachine } from '../../machines/index.js';
import type { Logger } from '../../runtime/logger.js';
import type { ClusterStatus } from '../../runtime/cluster-status.types.js';
import type { TaskObserver, TaskRuntime } from '../../runtime/index.js';
import type { StatusSource } from '../http/status-endpoint.js';
import { requestTarget } from '../wire/request-target.js';
import type { InspectorAccess } from './access.js';
import { frame, type EventHub } from './event-hub.js';
import type { OperatorView, PushDeliverySource, TaskPage, TaskQuery } from './inspector.types.js';
import { NO_OPERATORS, operatorCancel } from './operator-cancel.js';
import type { PendingInputSource } from './pending-inputs.js';
import { pageHtml } from './page/page-html.js';
import { PAGE_SCRIPT } from './page/page-script.js';
import { PAGE_STYLE } from './page/page-style.js';
import { json, send, unauthorized } from './reply.js';
import { machineSvg, taskDetail, type HandlerDrawings } from './task-detail.js';
import { parseTaskQuery } from './task-query.js';
import { bearerTask, shortened } from './redaction.js';

/** What one event stream shows: its query, and whether it sees credential-equivalent values. */
export interface StreamState {
  readonly query: TaskQuery;
  readonly reveal: boolean;
}

/** What the routes serve from. */
export interface InspectorRouteContext {
  readonly access: InspectorAccess;
  readonly observer: TaskObserver;
  readonly hub: EventHub<StreamState>;
  readonly showResults: boolean;
  /** The `limit` of a query without one. */
  readonly pageSize: number;
  readonly drawings: HandlerDrawings;
  /** One page of the list. */
  readonly page: (query: TaskQuery, reveal: boolean) => Promise<TaskPage>;
  /** Where a task's pending input requests are read, for its detail; none without. */
  readonly inputs?: PendingInputSource | undefined;
  /** Where a task's push deliveries are read, for its detail; none without. */
  readonly deliveries?: PushDeliverySource | undefined;
  /** How an operator's cancel reaches the task; no action without. */
  readonly cancel?: TaskRuntime['cancel'] | undefined;
  readonly audit?: Logger | undefined;
  /** Where `/api/cluster` reads; 404 without. */
  readonly status?: StatusSource | undefined;
  /** The most event streams the hub serves at once (named in the 503 past it). */
  readonly maxStreams: number;
}

const TASK_PATH = '/api/tasks/';
const CANCEL_SUFFIX = '/cancel';

/** A path segment percent-decoded, or `null` when its escapes are not UTF-8. */
function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function notAllowed(res: ServerResponse, allow: string, method: string | undefined): void {
  res.setHeader('allow', allow);
  json(res, 405, { error: `Method not allowed: ${method ?? '?'} (${allow})` });
}

/** The parsed query, or `null` once the 400 naming its bad parameter went out. */
function queryOf(ctx: InspectorRouteContext, res: ServerResponse, params: URLSearchParams): TaskQuery | null {
  const parsed = parseTaskQuery(params, ctx.pageSize);
  if ('query' in parsed) return parsed.query;
  json(res, 400, { error: parsed.refused.message, parameter: parsed.refused.parameter });
  return null;
}

/**
 * The report as a page that does not see credentials in full may: every requester's session id
 * shortened, and the id of a durable task reachable by its id alone (or not known here) too.
 */
async function withoutCredentialsIn(report: ClusterStatus, observer: TaskObserver): Promise<ClusterStatus> {
  const nodes = report.nodes.map((node) =>
    node.security === null ? node : { ...node, security: { ...node.security, top: node.security.top.map((r) => ({ ...r, session: r.session === null ? null : shortened(r.session) })) } },
  );
  const tasks = new Map((await observer.list()).map((t) => [t.key, t]));
  const durable = report.durable.map((d) => {
    const task = tasks.get(d.taskKey);
    return task === undefined || bearerTask(task) ? { ...d, taskId: shortened(d.taskId) } : d;
  });
  return { ...report, nodes, durable };
}

async function cluster(ctx: InspectorRouteContext, res: ServerResponse, reveal: boolean): Promise<void> {
  if (!ctx.status) return json(res, 404, { error: 'Not found: this inspector has no cluster status source' });
  let report: ClusterStatus;
  try {
    report = await ctx.status.read();
  } catch (error) {
    // The task space is away (NATS down), or the runtime is shutting down: say so, not 500.
    return json(res, 503, { error: `Service Unavailable: the status could not be read: ${error instanceof Error ? error.message : String(error)}` });
  }
  // A session id is an anonymous requester's only credential: shown as the task list shows it.
  json(res, 200, reveal ? report : await withoutCredentialsIn(report, ctx.observer));
}

function operatorView(ctx: InspectorRouteContext, req: IncomingMessage, res: ServerResponse): void {
  // No operators: no token would do, so say how to have one (as the actions do).
  if (!ctx.access.operators || ctx.cancel === undefined) return json(res, 403, { error: NO_OPERATORS });
  const name = ctx.access.operator(req);
  if (name === null) return unauthorized(res, "Unauthorized: send an operator's token as 'Authorization: Bearer <token>'");
  const view: OperatorView = { name, actions: ['cancel'] };
  json(res, 200, view);
}

async function detail(ctx: InspectorRouteContext, req: IncomingMessage, res: ServerResponse, key: string, reveal: boolean): Promise<void> {
  const task = (await ctx.observer.list()).find((t) => t.key === key);
  if (!task) return json(res, 404, { error: `No task with key '${key}'` });
  const operator = ctx.cancel !== undefined && ctx.access.operator(req) !== null;
  json(res, 200, await taskDetail(ctx.observer, task, { showResults: ctx.showResults, reveal, operator, drawings: ctx.drawings, inputs: ctx.inputs, deliveries: ctx.deliveries }));
}

/**
 * The inspector's request handler.
 *
 * @example
 * ```ts
 * const route = inspectorRoutes({ access, observer, hub, showResults: false, pageSize: 100, drawings, page });
 * createServer((req, res) => void route(req, res));
 * ```
 */
export function inspectorRoutes(ctx: InspectorRouteContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const target = requestTarget(req.url);
    if ('refused' in target) return json(res, 400, { error: `Bad Request: ${target.refused}` });
    const refusal = ctx.access.check(req, target.query);
    if (refusal) return refusal.status === 401 ? unauthorized(res, refusal.message) : json(res, refusal.status, { error: refusal.message });
    const { path, query } = target;
    const taskKey = path.startsWith(TASK_PATH) ? path.slice(TASK_PATH.length) : null;
    if (taskKey?.endsWith(CANCEL_SUFFIX)) {
      const key = decoded(taskKey.slice(0, -CANCEL_SUFFIX.length));
      if (req.method !== 'POST') return notAllowed(res, 'POST', req.method);
      if (key === null) return json(res, 400, { error: 'Bad Request: the task key is not valid percent-encoded UTF-8' });
      if (key === '') return json(res, 400, { error: 'Bad Request: no task key: POST /api/tasks/<key>/cancel, with the key of /api/tasks' });
      return operatorCancel(ctx, req, res, key);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(res, 'GET, HEAD', req.method);
    const reveal = ctx.access.reveals;
    // A deep link: the page reads the task id (and key) from its own URL and finds it with
    // `/api/tasks/<key>`, else `/api/tasks?taskId=`.
    // The token goes into the page only when it came in the page's own URL (a browser, which can
    // load the script and style by URL alone): a request that sent a header (an operator's token,
    // say) is not handed the read token.
    const inUrl = ctx.access.token !== null && query.get('token') === ctx.access.token ? ctx.access.token : null;
    if (path === '/' || path === '/index.html' || path.startsWith('/tasks/')) return send(res, 200, 'text/html; charset=utf-8', pageHtml(inUrl));
    if (path === '/inspector.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_SCRIPT);
    if (path === '/inspector.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_STYLE);
    if (path === '/api/diagram.svg') return send(res, 200, 'image/svg+xml; charset=utf-8', machineSvg(taskMachine));
    if (path === '/api/tasks') {
      const parsed = queryOf(ctx, res, query);
      if (parsed) json(res, 200, await ctx.page(parsed, reveal));
      return;
    }
    if (taskKey !== null) {
      const key = decoded(taskKey);
      if (key === null) return json(res, 400, { error: 'Bad Request: the task key is not valid percent-encoded UTF-8' });
      return detail(ctx, req, res, key, reveal);
    }
    if (path === '/api/operator') return operatorView(ctx, req, res);
    if (path === '/api/cluster') return cluster(ctx, res, reveal);
    if (path === '/api/events') {
      const parsed = queryOf(ctx, res, query);
      if (parsed && !(await ctx.hub.open(res, { query: parsed, reveal }, async () => frame('snapshot', await ctx.page(parsed, reveal))))) {
        // An EventSource never retries a 503 by itself: the page reads this refusal, says it, and
        // opens its stream again after Retry-After.
        res.setHeader('retry-after', '5');
        json(res, 503, { error: `Service Unavailable: ${ctx.maxStreams} event streams are open, the most this inspector serves (maxStreams, --inspect-max-streams); close a page or retry later` });
      }
      return;
    }
    return json(res, 404, { error: `Not found: ${path}` });
  };
}
