/**
 * Runs one request (a tool call, prompt get or resource read) either as a plain call or, when the
 * requester asked for a task in SEP-1686 style, as a task: create it, announce it with
 * `notifications/tasks/created` (§3.4), and answer the original request when the work ends.
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { parseTaskMeta, relatedMeta, Sep1686MetaError, SEP_1686, withRelatedMeta } from '../dialects/sep-1686/index.js';
import type { RequestWorkContext, TaskSupport } from './definitions.js';
import { ownerOf, requestKey, type ServerExtra } from './request-context.js';
import { JsonRpcCode, JsonRpcError, toJsonRpcError } from './wire-errors.js';

/** Task-augmented requests still open on one connection, by request id, for cancellation (§4.8). */
export type OpenTaskRequests = Map<string, { readonly taskId: string; readonly owner: TaskOwner }>;

/** What {@link executeRequest} needs to know about the request. */
export interface ExecuteRequest {
  readonly runtime: TaskRuntime;
  readonly open: OpenTaskRequests;
  readonly method: string;
  /** Tool name, prompt name or resource uri. */
  readonly label: string;
  /** Name of the runtime handler that does the work as a task. */
  readonly handler: string;
  readonly taskSupport: TaskSupport;
  /** What the handler gets as params. */
  readonly params: unknown;
  readonly extra: ServerExtra;
  /** The same work as a plain call. */
  readonly direct: (ctx: RequestWorkContext) => Promise<unknown>;
}

/**
 * Answers one request, as a task when asked for and allowed.
 *
 * @returns the original request's result (with the related-task key when it ran as a task)
 * @throws JsonRpcError for malformed task metadata, duplicate ids, a `required` request without a
 *   task, or a task that ended without a result
 * @example
 * ```ts
 * return executeRequest({ runtime, open, method: 'tools/call', label: 'sleep', handler: 'tools/call:sleep',
 *   taskSupport: 'optional', params: args, extra, direct: (ctx) => tool.run(args, ctx) });
 * ```
 */
export async function executeRequest(r: ExecuteRequest): Promise<Record<string, unknown>> {
  let asked;
  try {
    asked = parseTaskMeta(r.extra._meta);
  } catch (error) {
    if (error instanceof Sep1686MetaError) throw new JsonRpcError(JsonRpcCode.invalidParams, error.message);
    throw error;
  }
  // A receiver that does not support tasks for this request ignores the metadata (§4.1).
  if (!asked || r.taskSupport === 'forbidden') {
    if (r.taskSupport === 'required') {
      throw new JsonRpcError(JsonRpcCode.methodNotFound, `${r.label} requires task augmentation (taskSupport: 'required')`);
    }
    const result = await r.direct({ taskId: null, signal: r.extra.signal, setStatusMessage: () => undefined });
    return result as Record<string, unknown>;
  }

  const { taskId } = asked;
  const owner = ownerOf(r.extra);
  try {
    await r.runtime.create({
      taskId,
      owner,
      dialect: SEP_1686,
      method: r.method,
      label: r.label,
      keepAlive: asked.keepAlive,
      handler: r.handler,
      params: r.params,
    });
  } catch (error) {
    throw toJsonRpcError(error);
  }
  const key = requestKey(r.extra.requestId);
  r.open.set(key, { taskId, owner });
  try {
    // The notification travels on the request's own stream (Streamable HTTP) ahead of the response.
    await r.extra.sendNotification({ method: 'notifications/tasks/created', params: { _meta: relatedMeta(taskId) } } as never);
    // Deliberately not tied to extra.signal: a dropped connection must not cancel a task; only
    // notifications/cancelled (handled by the caller) or tasks/delete end it early.
    const final = await r.runtime.waitForTerminal(taskId, owner);
    if (final.status === 'completed') {
      const { result } = await r.runtime.result(taskId, owner);
      return withRelatedMeta(result, taskId);
    }
    const why = final.error ?? final.statusMessage ?? 'no detail';
    throw new JsonRpcError(JsonRpcCode.internalError, `Task ${taskId} ended '${final.status}': ${why}`, {
      _meta: relatedMeta(taskId),
    });
  } catch (error) {
    throw toJsonRpcError(error);
  } finally {
    r.open.delete(key);
  }
}
