/**
 * The inspector's HTTP routes: the page and its two assets, the JSON API, the diagram and the
 * event stream. Every route is behind the access check.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { taskMachine } from '../../machines/index.js';
import type { TaskObserver } from '../../runtime/index.js';
import type { InspectorAccess } from './access.js';
import type { EventHub } from './event-hub.js';
import type { HandlerRuns } from '../../runtime/handlers/handler-runs.js';
import type { PushDeliverySource } from './inspector.types.js';
import { requestTarget } from '../wire/request-target.js';
import { listedTask } from './listed-task.js';
import { pageHtml } from './page/page-html.js';
import { PAGE_SCRIPT } from './page/page-script.js';
import { PAGE_STYLE } from './page/page-style.js';
import { machineSvg, taskDetail } from './task-detail.js';

/** What the routes serve from. */
export interface InspectorRouteContext {
  readonly access: InspectorAccess;
  readonly observer: TaskObserver;
  readonly hub: EventHub;
  readonly runs: HandlerRuns;
  readonly showResults: boolean;
  /** Where a task's push deliveries are read, for its detail; none without. */
  readonly deliveries?: PushDeliverySource | undefined;
  /** The `snapshot` frame a new event stream starts with. */
  readonly snapshot: () => Promise<string>;
}

// The page loads nothing from elsewhere (the machine may have no internet) and runs only its own
// script; `style-src 'unsafe-inline'` is for the `<style>` inside the inlined SVG diagrams.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // The token may be in the URL: never hand it to another site.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type }).end(body);
}

/** A path segment percent-decoded, or `null` when its escapes are not UTF-8. */
function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/**
 * The inspector's request handler.
 *
 * @example
 * ```ts
 * const route = inspectorRoutes({ access, observer, hub, runs, showResults: false, snapshot });
 * createServer((req, res) => void route(req, res));
 * ```
 */
export function inspectorRoutes(ctx: InspectorRouteContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const target = requestTarget(req.url);
    if ('refused' in target) return json(res, 400, { error: `Bad Request: ${target.refused}` });
    const refusal = ctx.access.check(req, target.query);
    if (refusal) {
      if (refusal.status === 401) res.setHeader('www-authenticate', 'Bearer');
      return json(res, refusal.status, { error: refusal.message });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: `Method not allowed: ${req.method ?? '?'}` });
    }
    const { path } = target;
    if (path === '/' || path === '/index.html') return send(res, 200, 'text/html; charset=utf-8', pageHtml(ctx.access.token));
    if (path === '/inspector.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_SCRIPT);
    if (path === '/inspector.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_STYLE);
    if (path === '/api/diagram.svg') return send(res, 200, 'image/svg+xml; charset=utf-8', machineSvg(taskMachine));
    if (path === '/api/tasks') return json(res, 200, { tasks: (await ctx.observer.list()).map((t) => listedTask(t, ctx.access.token !== null)), showResults: ctx.showResults });
    if (path.startsWith('/api/tasks/')) {
      const key = decoded(path.slice('/api/tasks/'.length));
      if (key === null) return json(res, 400, { error: 'Bad Request: the task key is not valid percent-encoded UTF-8' });
      const detail = await taskDetail(ctx.observer, key, { showResults: ctx.showResults, reveal: ctx.access.token !== null, runs: ctx.runs, deliveries: ctx.deliveries });
      return detail ? json(res, 200, detail) : json(res, 404, { error: `No task with key '${key}'` });
    }
    if (path === '/api/events') return ctx.hub.open(res, ctx.snapshot);
    return json(res, 404, { error: `Not found: ${path}` });
  };
}
