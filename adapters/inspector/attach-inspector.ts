/**
 * `attachInspector(runtime, options)`: the inspector web page of a runtime, served over plain
 * `node:http`. It opens the runtime's observer at once (the memory backend keeps timelines from
 * then on), turns its updates and the handler machines' reports into server-sent events, and
 * answers the page's few requests.
 *
 * @module
 */
import { closeServer, guardedServer } from '../http/front.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { inspectorAccess } from './access.js';
import { EventHub, frame } from './event-hub.js';
import { handlerRunKey, handlerRuns, type HandlerRun } from '../../runtime/handlers/handler-runs.js';
import { inspectorRoutes } from './inspector-routes.js';
import type { Inspector, InspectorOptions } from './inspector.types.js';
import { listedTask } from './listed-task.js';
import { handlerView } from './task-detail.js';

/** `http://host:port/`, with brackets around an IPv6 address. */
function origin(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
}

/**
 * Serves the inspector page of `runtime` until closed: every task of every requester (on NATS,
 * of the whole cluster), live. Bound to loopback by default; bound elsewhere, a token is required
 * (generated when not given) and `url` carries it.
 *
 * @param runtime - the runtime to show (only its `observe()` is used)
 * @param options - port, host, token, showResults
 * @returns the page's URL, the token, and `close()`
 * @throws Error when the port cannot be bound, or the token is empty
 * @example
 * ```ts
 * const runtime = createTaskRuntime();
 * const inspector = await attachInspector(runtime, { port: 8080 });
 * console.error(`inspector at ${inspector.url}`);
 * // later
 * await inspector.close();
 * ```
 */
export async function attachInspector(runtime: Pick<TaskRuntime, 'observe'> & Partial<Pick<TaskRuntime, 'pushDeliveries'>>, options: InspectorOptions): Promise<Inspector> {
  const host = options.host ?? '127.0.0.1';
  const showResults = options.showResults ?? false;
  const runs = options.handlerRuns ?? handlerRuns;
  const access = inspectorAccess(host, options.token);
  const observer = runtime.observe();
  const hub = new EventHub(options.heartbeatMs ?? 15_000);
  // Only a page that had to show the operator's token sees credential-equivalent values in full.
  const reveal = access.token !== null;

  // Handler machines report by task id and owner; the page knows tasks by observer key.
  const keys = new Map<string, string>();
  const identities = new Map<string, string>();
  const remember = (key: string, identity: string): void => {
    keys.set(identity, key);
    identities.set(key, identity);
  };
  const stopWatch = observer.watch((update) => {
    if (update.kind === 'removed') {
      const identity = identities.get(update.key);
      identities.delete(update.key);
      if (identity !== undefined) keys.delete(identity);
      return hub.broadcast('removed', { key: update.key });
    }
    remember(update.task.key, handlerRunKey(update.task.taskId, update.task.owner));
    hub.broadcast('upsert', { task: listedTask(update.task, reveal), entry: update.entry });
  });
  const onRun = (run: HandlerRun): void => {
    const key = keys.get(handlerRunKey(run.taskId, run.owner));
    // Not known yet (on NATS the record may trail the handler): the detail request reads it then.
    if (key !== undefined) hub.broadcast('handler', handlerView(key, run));
  };
  const stopRuns = runs.watch(onRun);
  const snapshot = async (): Promise<string> => {
    const tasks = await observer.list();
    for (const t of tasks) remember(t.key, handlerRunKey(t.taskId, t.owner));
    return frame('snapshot', { tasks: tasks.map((t) => listedTask(t, reveal)), showResults });
  };

  const route = inspectorRoutes({ access, observer, hub, runs, showResults, deliveries: options.pushDeliveries ?? (runtime.pushDeliveries && (({ taskId }) => runtime.pushDeliveries!(taskId))), snapshot });
  const server = guardedServer('inspector', route);
  const release = async (): Promise<void> => {
    stopWatch();
    stopRuns();
    hub.close();
    await observer.close();
  };
  try {
    await snapshot();
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
