/**
 * Runs one request (a tool call, prompt get or resource read) as a plain call or as a task, in the
 * dialect the request's shape asks for:
 * - SEP-1686 (`_meta["modelcontextprotocol.io/task"]`): create the task under the requester's id,
 *   announce it with `notifications/tasks/created` (§3.4), answer the original request when the
 *   work ends;
 * - 2025-11-25 (`params.task`): create the task under a fresh id and answer at once with
 *   `CreateTaskResult { task }`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { TaskOwner } from '../../machines/index.js';
import { type TaskOutcome, type TaskRuntime, type TaskView } from '../../runtime/index.js';
import { openCallOf } from '../../runtime/core/drain.js';
import { parseTaskParams, renderTask2025, SPEC_2025_11_25, TaskParamsError } from '../dialects/2025-11-25/index.js';
import { parseTaskMeta, relatedMeta, Sep1686MetaError, SEP_1686, TASK_META_KEY, withRelatedMeta } from '../dialects/sep-1686/index.js';
import type { RequestWorkContext, TaskSupport } from '../wire/definitions.js';
import { askable, deliverInputs, INPUT_REQUEST_TIMEOUT_MS } from '../wire/input-delivery.js';
import type { ServerExtra, TaskHost } from './request-context.js';
import { AnyResultSchema, checkTaskSupport, ownerOf, requestKey, type RequestInfo } from '../wire/request-info.js';
import { ownerOf2025, type OwnerBinding } from '../wire/owner-binding.js';
import { plainWorkContext } from './work-context.js';
import { JsonRpcCode, JsonRpcError, toJsonRpcError, wireErrorOf } from '../wire/wire-errors.js';
import { pushOption } from '../dialects/extension-meta.js';
import { followProgress, progressTokenOf, type ProgressToken } from '../wire/progress-notifications.js';

/** Task-augmented requests still open on one connection, by request id, for cancellation (§4.8). */
export type OpenTaskRequests = Map<string, { readonly taskId: string; readonly owner: TaskOwner }>;

/** What a request that runs as a task needs, whichever path (the SDK's or the fast lane) took it. */
export interface TaskRequest {
  readonly runtime: TaskRuntime;
  readonly open: OpenTaskRequests;
  readonly inFlight: Set<string>;
  readonly peerSupports: (method: string) => boolean;
  /** The client capabilities the requester declared (see `InputChannel.declared`). */
  readonly declared?: () => Readonly<Record<string, unknown>> | undefined;
  readonly method: string;
  /** Tool name, prompt name or resource uri. */
  readonly label: string;
  /** Name of the runtime handler that does the work as a task. */
  readonly handler: string;
  readonly taskSupport: TaskSupport;
  /** The request's params as sent (where a 2025-11-25 `task` field would be). */
  readonly requestParams: Record<string, unknown>;
  /** What the handler gets as params. */
  readonly params: unknown;
  readonly extra: RequestInfo;
  /** The SDK peer serving the connection. */
  readonly host: TaskHost;
  /** Which owner each task id this connection names is bound to. */
  readonly binding?: OwnerBinding;
  /** Watches each 2025-11-25 task this connection creates, from before it exists (for status notifications). */
  readonly watch2025?: (taskId: string, owner: TaskOwner, progressToken?: ProgressToken) => (created: TaskView | null, request: RequestInfo) => void;
}

/** What {@link executeRequest} needs: a task request as the SDK hands it over, and the same work as a plain call. */
export interface ExecuteRequest extends TaskRequest {
  readonly extra: ServerExtra;
  /** The same work as a plain call. */
  readonly direct: (ctx: RequestWorkContext) => Promise<unknown>;
}

/** How a request runs: as a plain call, or as a task of one dialect. */
export type TaskRoute =
  | { readonly kind: 'direct' }
  | { readonly kind: typeof SPEC_2025_11_25; readonly ttl: number | null | undefined }
  | { readonly kind: typeof SEP_1686; readonly taskId: string; readonly keepAlive: number | null | undefined };

/**
 * Whether `params` asks for a task at all, in either session dialect (its form is checked later,
 * by {@link taskRouteOf}). Cheap: the fast lane asks it of every `tools/call`.
 *
 * @example
 * ```ts
 * asksForTask({ name: 'sleep', task: { ttl: 1000 } }); // true
 * ```
 */
export function asksForTask(params: Record<string, unknown> | undefined): boolean {
  if (params === undefined) return false;
  if (params['task'] !== undefined) return true;
  const meta = params['_meta'];
  // Present at all, as parseTaskMeta reads it: a malformed task request must get its error.
  return typeof meta === 'object' && meta !== null && TASK_META_KEY in meta;
}

/**
 * How a request runs, decided before anything happens: its dialect's task request, checked
 * against the definition's task support.
 *
 * @throws JsonRpcError for malformed task requests and task support mismatches
 * @example
 * ```ts
 * const route = taskRouteOf({ extra, requestParams, taskSupport: 'optional', label: 'sleep' });
 * if (route.kind === 'direct') return tool.run(args, ctx);
 * ```
 */
export function taskRouteOf(r: Pick<TaskRequest, 'extra' | 'requestParams' | 'taskSupport' | 'label'>): TaskRoute {
  const { sep, v2025 } = readTaskRequest(r);
  if (v2025) {
    // 2025-11-25: a forbidden request asked as a task is refused (tool-level negotiation).
    checkTaskSupport(r.label, r.taskSupport, true);
    return { kind: SPEC_2025_11_25, ttl: v2025.ttl };
  }
  // SEP-1686: a receiver that does not support tasks for this request ignores the metadata (§4.1).
  if (!sep || r.taskSupport === 'forbidden') {
    checkTaskSupport(r.label, r.taskSupport, false);
    return DIRECT;
  }
  return { kind: SEP_1686, taskId: sep.taskId, keepAlive: sep.keepAlive };
}

const DIRECT = { kind: 'direct' } as const;

function readTaskRequest(r: Pick<TaskRequest, 'extra' | 'requestParams'>) {
  try {
    const sep = parseTaskMeta(r.extra._meta);
    const v2025 = parseTaskParams(r.requestParams);
    if (sep && v2025) {
      throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params: the request asks for a task twice (params.task and _meta["modelcontextprotocol.io/task"]); send one');
    }
    return { sep, v2025 };
  } catch (error) {
    if (error instanceof Sep1686MetaError || error instanceof TaskParamsError) {
      throw new JsonRpcError(JsonRpcCode.invalidParams, error.message);
    }
    throw error;
  }
}

/**
 * Answers one request the SDK handed over, as a task when asked for and allowed.
 *
 * @returns the original request's result (SEP-1686, with the related-task key when it ran as a
 *   task) or a `CreateTaskResult` (2025-11-25)
 * @throws JsonRpcError for malformed task requests, duplicate ids, task support mismatches, or a
 *   SEP-1686 task that ended without a result
 * @example
 * ```ts
 * return executeRequest({ runtime, open, method: 'tools/call', label: 'sleep', handler: 'tools/call:sleep',
 *   taskSupport: 'optional', requestParams, params: args, extra, direct: (ctx) => tool.run(args, ctx) });
 * ```
 */
export async function executeRequest(r: ExecuteRequest): Promise<Record<string, unknown>> {
  const route = taskRouteOf(r);
  if (route.kind === 'direct') return (await r.direct(plainWorkContext(r.host, r.extra, r.peerSupports))) as Record<string, unknown>;
  return runTask(r, route);
}

/**
 * Runs a request as the task its route says.
 *
 * @example
 * ```ts
 * const route = taskRouteOf(r);
 * if (route.kind !== 'direct') return runTask(r, route);
 * ```
 */
export function runTask(r: TaskRequest, route: Exclude<TaskRoute, { kind: 'direct' }>): Promise<Record<string, unknown>> {
  return route.kind === SPEC_2025_11_25 ? createTask2025(r, route.ttl) : runTaskSep1686(r, route.taskId, route.keepAlive);
}

async function createTask2025(r: TaskRequest, ttl: number | null | undefined): Promise<Record<string, unknown>> {
  let task: TaskView;
  const taskId = randomUUID();
  // Bound to the authorization context (the principal alone, when there is one), as the spec says.
  const owner = ownerOf2025(r.extra);
  r.binding?.remember(taskId, owner);
  // A progress token stays valid for the task's whole life (2025-11-25 "Progress").
  const created = r.watch2025?.(taskId, owner, progressTokenOf(r.extra._meta));
  try {
    task = await r.runtime.create({
      taskId,
      owner,
      dialect: SPEC_2025_11_25,
      method: r.method,
      label: r.label,
      keepAlive: ttl,
      handler: r.handler,
      params: r.params,
      ...pushOption(r.requestParams),
      ...askable(r.declared?.()),
    });
  } catch (error) {
    created?.(null, r.extra);
    throw toJsonRpcError(error);
  }
  created?.(task, r.extra);
  return { task: renderTask2025(task, r.runtime.options.now()) };
}

/** The server's own reads: not polls of the requester, so never charged or refused by its poll rate. */
const SERVER_READ = { countsAsPoll: false } as const;


async function runTaskSep1686(r: TaskRequest, taskId: string, keepAlive: number | null | undefined): Promise<Record<string, unknown>> {
  const owner = ownerOf(r.extra);
  r.binding?.remember(taskId, owner);
  // Progress travels on the original request, which stays open until the task ends; watched from
  // before the task exists, sent once notifications/tasks/created has gone.
  const token = progressTokenOf(r.extra._meta);
  const progress = token === undefined ? undefined : followProgress(r.runtime, taskId, owner, token, (n) => r.host.notification(n, { relatedRequestId: r.extra.requestId }));
  try {
    await r.runtime.create({ taskId, owner, dialect: SEP_1686, method: r.method, label: r.label, keepAlive, handler: r.handler, params: r.params, ...pushOption(r.requestParams), ...askable(r.declared?.()) });
  } catch (error) {
    progress?.stop();
    throw toJsonRpcError(error);
  }
  const key = requestKey(r.extra.requestId);
  r.open.set(key, { taskId, owner });
  // The SDK runs notification handlers before request handlers: a notifications/cancelled sent
  // right behind this request has already aborted it, before the task existed to be cancelled.
  if (r.extra.aborted ?? r.extra.signal.aborted) await r.runtime.cancel(taskId, owner, 'Cancelled before it started').catch(() => undefined);
  // Messages go through the host with only relatedRequestId: the SDK's extra.send* would divert
  // them into a task message queue whenever the request carries a 2025-11-25 related-task key.
  const relatedRequestId = r.extra.requestId;
  let stopInputs = (): void => undefined;
  // Held open until the task ends; a drain's deadline ends it with -32030 (see OpenCall).
  const open = openCallOf(r.runtime);
  try {
    // The notification travels on the request's own stream (Streamable HTTP) ahead of the response,
    // and ahead of any input request: the work has started already, and may be asking.
    await r.host.notification({ method: 'notifications/tasks/created', params: { _meta: relatedMeta(taskId) } }, { relatedRequestId });
    progress?.release();
    // A task that ended already (short work) asks nothing more: its outcome, with no input
    // delivery to set up and take down.
    const now = await r.runtime.peek(taskId, owner, { countsAsPoll: false });
    let outcome: TaskOutcome;
    if ('ended' in now) outcome = now.ended;
    else {
      // Input requests travel over the original request, which stays open until the task ends
      // (§4.4); those asked before this point are pending, and are sent now.
      stopInputs = deliverInputs(
        r.runtime,
        taskId,
        owner,
        (input, signal) =>
          r.host.request({ method: input.method, params: withRelatedMeta(input.params, taskId) }, AnyResultSchema, {
            relatedRequestId,
            signal,
            timeout: INPUT_REQUEST_TIMEOUT_MS,
          }),
        r,
      );
      // Deliberately not tied to extra.signal: a dropped connection must not cancel a task; only
      // notifications/cancelled (handled by the caller) or tasks/delete end it early.
      outcome = await r.runtime.waitForOutcome(taskId, owner, { ...SERVER_READ, signal: open.signal });
    }
    // The last report goes before the answer: the requester forgets the token with it.
    await progress?.flush();
    if (outcome.task.status === 'completed') return withRelatedMeta(outcome.result, taskId);
    throw wireErrorOf(outcome, { _meta: relatedMeta(taskId) });
  } catch (error) {
    // Whatever went wrong here, the task must not run on unseen: end it (a no-op if it ended).
    // Not when a drain ended the call: the task goes on on another node, or the drain ends it.
    if (error !== open.signal.reason) await r.runtime.cancel(taskId, owner, 'The request that created it failed').catch(() => undefined);
    throw toJsonRpcError(error);
  } finally {
    open.close();
    stopInputs();
    progress?.stop();
    r.open.delete(key);
  }
}
