/**
 * `attachInspector(runtime, options)`: the inspector web page of a runtime, served over plain
 * `node:http`. It opens the runtime's observer at once (the memory backend keeps timelines from
 * then on), turns its updates into server-sent events shaped for each stream's query, and answers
 * the page's requests, an operator's cancel included.
 *
 * @module
 */
import { closeServer, guardedServer } from '../http/front.js';
import { localStatusSource, type LocalStatusRuntime } from '../http/local-status.js';
import type { StatusSource } from '../http/status-endpoint.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { inspectorAccess } from './access.js';
import { EventHub } from './event-hub.js';
import { inspectorRoutes, type StreamState } from './inspector-routes.js';
import { COUNTS_INTERVAL_MS, type Inspector, type InspectorEvents, type InspectorOptions, type ListedTask, type TaskPage, type TaskQuery } from './inspector.types.js';
import { listedTask } from './listed-task.js';
import { HandlerDrawings } from './task-detail.js';
import { countsKey, countTasks, matchesTask, MAX_PAGE_SIZE, pageTasks } from './task-query.js';

/** `http://host:port/`, with brackets around an IPv6 address. */
function origin(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
}

/**
 * What `attachInspector` uses of a runtime: `observe()` always; the rest when present (push
 * deliveries, pending input requests and cancel for the detail and the action; `subscribe`,
 * `security` and `stats` for the default cluster view).
 *
 * @example
 * ```ts
 * const runtime: InspectedRuntime = createTaskRuntime();
 * ```
 */
export type InspectedRuntime = Pick<TaskRuntime, 'observe'> &
  Partial<Pick<TaskRuntime, 'pushDeliveries' | 'pendingInputRequests' | 'cancel' | 'subscribe' | 'security' | 'stats'>>;

function pageSizeOf(options: InspectorOptions): number {
  const size = options.pageSize ?? 100;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw new Error(`the inspector's pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${size}`);
  return size;
}

/** The default of `maxStreams`: many pages at once, well short of what starves the node. */
export const DEFAULT_MAX_STREAMS = 64;

function maxStreamsOf(options: InspectorOptions): number {
  const max = options.maxStreams ?? DEFAULT_MAX_STREAMS;
  if (!Number.isInteger(max) || max < 1) throw new Error(`the inspector's maxStreams must be a whole number of at least 1, got ${max}`);
  return max;
}

// The process's runtime as the one node, when it has what that takes.
function defaultStatus(runtime: InspectedRuntime): StatusSource | undefined {
  const { subscribe, security, stats } = runtime;
  return subscribe && security && stats ? localStatusSource(runtime as LocalStatusRuntime) : undefined;
}

/**
 * Serves the inspector page of `runtime` until closed: every task of every requester (on NATS,
 * of the whole cluster), live, a page at a time. Bound to loopback by default; bound elsewhere, a
 * token is required (generated when not given) and `url` carries it. With `operators`, each of
 * them may cancel any task (`POST /api/tasks/:key/cancel` with `Authorization: Bearer`), audited.
 *
 * @param runtime - the runtime to show (see {@link InspectedRuntime})
 * @param options - port, host, token, showResults, operators, audit, status, pageSize
 * @returns the page's URL, the token, and `close()`
 * @throws Error when the port cannot be bound, the token is empty, an operator is malformed or
 *   has the read token, operators are given to a runtime without `cancel`, or `pageSize` is out of range
 * @example
 * ```ts
 * const runtime = createTaskRuntime();
 * const inspector = await attachInspector(runtime, { port: 8080, operators: { 'op-s3cret': 'alice' } });
 * console.error(`inspector at ${inspector.url}`);
 * // later
 * await inspector.close();
 * ```
 */
export async function attachInspector(runtime: InspectedRuntime, options: InspectorOptions): Promise<Inspector> {
  const host = options.host ?? '127.0.0.1';
  const showResults = options.showResults ?? false;
  const pageSize = pageSizeOf(options);
  const maxStreams = maxStreamsOf(options);
  const operators = options.operators ?? {};
  const access = inspectorAccess(host, options.token, operators, options.allowedOrigins);
  if (access.operators && !runtime.cancel) throw new Error('inspector operators need a runtime that can cancel (runtime.cancel)');
  const cancel = access.operators && runtime.cancel ? runtime.cancel.bind(runtime) : undefined;
  const status = options.status ?? defaultStatus(runtime);
  const observer = runtime.observe();
  const page = async (query: TaskQuery, reveal: boolean): Promise<TaskPage> => {
    const found = pageTasks(await observer.list(), query, reveal);
    return { ...found, tasks: found.tasks.map((t) => listedTask(t, reveal)), showResults, actions: cancel !== undefined };
  };
  const hub = new EventHub<StreamState>(
    options.heartbeatMs ?? 15_000,
    {
      event: 'counts',
      intervalMs: COUNTS_INTERVAL_MS,
      // One read per tick, and one count per distinct filter set, however many streams are due.
      make: async () => {
        const tasks = await observer.list();
        const counted = new Map<string, ReturnType<typeof countTasks>>();
        return ({ query, reveal }: StreamState) => {
          const key = countsKey(query, reveal);
          let counts = counted.get(key);
          if (counts === undefined) counted.set(key, (counts = countTasks(tasks, query, reveal)));
          return counts;
        };
      },
    },
    maxStreams,
  );

  const stopWatch = observer.watch((update) => {
    if (update.kind === 'removed') return hub.broadcast('removed', { key: update.key });
    const { task, entry } = update;
    // Shaped once per variant (full or shortened values, in the stream's filter or not): the hub
    // makes one frame per object, not one per stream.
    const shown: Partial<Record<'full' | 'shortened', ListedTask>> = {};
    const variants: Partial<Record<string, InspectorEvents['upsert']>> = {};
    hub.broadcast('upsert', ({ query, reveal }: StreamState) => {
      const matches = matchesTask(task, query, reveal);
      return (variants[`${reveal}:${matches}`] ??= { task: (shown[reveal ? 'full' : 'shortened'] ??= listedTask(task, reveal)), entry, matches });
    });
  });
  const route = inspectorRoutes({
    access,
    observer,
    hub,
    showResults,
    pageSize,
    drawings: new HandlerDrawings(observer),
    page,
    inputs: runtime.pendingInputRequests?.bind(runtime),
    deliveries: options.pushDeliveries ?? (runtime.pushDeliveries && (({ taskId }) => runtime.pushDeliveries!(taskId))),
    cancel,
    audit: options.audit,
    status,
    maxStreams,
  });
  const server = guardedServer('inspector', route, {}, options.logger);
  const release = async (): Promise<void> => {
    stopWatch();
    hub.close();
    await observer.close();
    await status?.close?.();
  };
  try {
    // The observer's first read: on NATS it loads the cluster's tasks before the first page asks.
    await observer.list();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => resolve());
    });
  } catch (error) {
    await release();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const base = origin(host, port);
  let closing: Promise<void> | undefined;
  return {
    url: access.token === null ? base : `${base}?token=${encodeURIComponent(access.token)}`,
    token: access.token,
    port,
    // Idempotent: a CLI may reach its shutdown from more than one signal.
    close: () =>
      (closing ??= (async () => {
        await release();
        // The page's event streams never end by themselves: no grace for them.
        await closeServer(server, 0);
      })()),
  };
}
