/**
 * Routes what a server asks a requester (`elicitation/create`, `sampling/createMessage`) in the
 * session dialects (SEP-1686, 2025-11-25) to the call that caused it: the server names the task in
 * the request's related-task `_meta`, so the per-call `onInputRequest` of that call answers; any
 * other request goes to the fallback (the handler the SDK client had before, or the task client's
 * own `onInputRequest`). SDK-free: each SDK line's task client installs {@link InputRoutes.answer}
 * as its client's handler for the two methods.
 *
 * @module
 */
import { RELATED_TASK_META_KEY } from '../dialects/sep-1686/index.js';
import { RELATED_TASK_META_KEY_2025 } from '../dialects/2025-11-25/codec.js';
import type { TaskUpdate } from './task-call.types.js';
import type { InputRequestHandler } from './task-client.types.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The methods a server asks a requester, which these routes answer. */
export const ROUTED_INPUT_METHODS = ['elicitation/create', 'sampling/createMessage'] as const;

/**
 * The task a server-sent request names in its related-task `_meta` (either dialect's key), or null.
 *
 * @example
 * ```ts
 * relatedTaskOf({ _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }); // 't1'
 * ```
 */
export function relatedTaskOf(params: unknown): string | null {
  const meta = isRecord(params) ? params['_meta'] : undefined;
  if (!isRecord(meta)) return null;
  for (const key of [RELATED_TASK_META_KEY_2025, RELATED_TASK_META_KEY]) {
    const related = meta[key];
    if (isRecord(related) && typeof related['taskId'] === 'string') return related['taskId'];
  }
  return null;
}

interface Route {
  readonly handler: InputRequestHandler;
  readonly push: (update: TaskUpdate) => void;
  readonly signal: AbortSignal;
}

/**
 * Per-call answerers of one client, by task id.
 *
 * @example
 * ```ts
 * const routes = new InputRoutes();
 * const unroute = routes.route('t1', onInputRequest, (u) => feed.push(u), signal);
 * const answer = await routes.answer('elicitation/create', params, fallback);
 * ```
 */
export class InputRoutes {
  readonly #byTask = new Map<string, Route>();
  /** A request naming no routed task: see {@link InputRoutes.answer}. */
  readonly #fallback: InputRequestHandler | undefined;

  /** @param fallback - the task client's own `onInputRequest`, asked when no route and no SDK handler answers */
  constructor(fallback?: InputRequestHandler) {
    this.#fallback = fallback;
  }

  /** Sends the requests naming `taskId` to `handler` (and an `input` update to `push`) until unrouted. */
  route(taskId: string, handler: InputRequestHandler | undefined, push: (update: TaskUpdate) => void, signal: AbortSignal): () => void {
    const route: Route = { handler: handler ?? this.#fallback ?? refuse, push, signal };
    this.#byTask.set(taskId, route);
    return () => {
      if (this.#byTask.get(taskId) === route) this.#byTask.delete(taskId);
    };
  }

  /**
   * Answers one server-sent request: by its call's handler when it names a routed task, else by
   * `sdkFallback` (the handler the SDK client had before) when there is one, else by the client's
   * own `onInputRequest`.
   *
   * @throws Error when nothing can answer (the SDK turns it into a JSON-RPC error for the server)
   */
  async answer(method: string, params: Json | undefined, sdkFallback: (() => Promise<unknown>) | undefined): Promise<Json> {
    const taskId = relatedTaskOf(params);
    const route = taskId === null ? undefined : this.#byTask.get(taskId);
    if (route !== undefined) {
      route.push({ type: 'input', method, ...(params !== undefined && { params }) });
      return route.handler({ method, ...(params !== undefined && { params }) }, { taskId, key: method, signal: route.signal });
    }
    if (sdkFallback !== undefined) return (await sdkFallback()) as Json;
    const handler = this.#fallback ?? refuse;
    return handler({ method, ...(params !== undefined && { params }) }, { taskId, key: method, signal: new AbortController().signal });
  }
}

const refuse: InputRequestHandler = (request, context) =>
  Promise.reject(new Error(`No onInputRequest answers ${request.method}${context.taskId === null ? '' : ` for task ${context.taskId}`}: pass one to the call or to the task client`));
