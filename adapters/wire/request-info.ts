/**
 * Reading a request as the task handlers of every SDK line do: who is asking (owner), which request
 * it is, and its task params. SDK-free: the SDK's request `extra` is a {@link RequestInfo}.
 *
 * @module
 */
import { z } from 'zod';
import type { TaskOwner } from '../../machines/index.js';
import { parseTaskParams, TaskParamsError, type TaskParams2025 } from '../dialects/2025-11-25/index.js';
import { JsonRpcCode, JsonRpcError } from './wire-errors.js';

/**
 * What the task handlers read of a request: the SDK's `extra` is one, and so is a request the
 * fast lane answers ahead of the SDK (see `fast-lane.ts`).
 */
export interface RequestInfo {
  readonly requestId: string | number;
  readonly sessionId?: string | undefined;
  /** The authenticated principal, as the transport gives it (the SDK's `AuthInfo` is one). */
  readonly authInfo?: { readonly clientId?: string } | undefined;
  readonly _meta?: Record<string, unknown> | undefined;
  /** Aborted when the requester cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  /** Whether `signal` has aborted, when that can be told without making the signal (the fast lane makes it on first read). */
  readonly aborted?: boolean;
  /**
   * Runs `fn` once the answer to this request has been handed to the transport. Absent on the
   * SDK's path, which gives no such moment: there, the next turn of the event loop.
   */
  readonly afterReply?: (fn: () => void) => void;
}

/**
 * The requester a task is bound to: the transport session (none on stdio, where the process is
 * the session) and the authenticated principal when the transport authenticates.
 *
 * @example
 * ```ts
 * ownerOf(extra); // { session: '6f1c…', principal: null }
 * ```
 */
export function ownerOf(extra: Pick<RequestInfo, 'sessionId' | 'authInfo'>): TaskOwner {
  // An empty client id names nobody: it must not share the anonymous requester's key.
  return { session: extra.sessionId ?? null, principal: extra.authInfo?.clientId || null };
}

/** Any JSON-RPC result: answers to input requests are checked by the work that asked. */
export const AnyResultSchema = z.looseObject({});

/** A key for a JSON-RPC request id that keeps `1` and `"1"` apart. */
export function requestKey(id: string | number): string {
  return `${typeof id}:${id}`;
}

/** `params` as an object, or a clear error. */
export function paramsObject(params: unknown, method: string): Record<string, unknown> {
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new JsonRpcError(JsonRpcCode.invalidParams, `Invalid params for ${method}: params must be an object`);
  }
  return params as Record<string, unknown>;
}

/** The `taskId` param of a `tasks/*` request, or a clear error. */
export function taskIdParam(params: unknown, method: string): string {
  const { taskId } = paramsObject(params, method);
  if (typeof taskId !== 'string' || taskId.length === 0) {
    throw new JsonRpcError(JsonRpcCode.invalidParams, `Invalid params for ${method}: taskId must be a non-empty string`);
  }
  return taskId;
}

/**
 * The 2025-11-25 task request of a request's params (`params.task`), or `undefined` when it asks
 * for none.
 *
 * @throws JsonRpcError -32602 naming what is wrong with a malformed `params.task`
 * @example
 * ```ts
 * taskRequest2025({ name: 'sleep', task: { ttl: 60000 } }); // { ttl: 60000 }
 * ```
 */
export function taskRequest2025(params: Record<string, unknown>): TaskParams2025 | undefined {
  try {
    return parseTaskParams(params);
  } catch (error) {
    if (error instanceof TaskParamsError) throw new JsonRpcError(JsonRpcCode.invalidParams, error.message);
    throw error;
  }
}

/**
 * The session dialects' task-support rule: a `required` request not asked as a task, and (2025-11-25)
 * a `forbidden` one asked as a task, are refused with -32601 naming the request.
 *
 * @throws JsonRpcError -32601 when the request breaks its definition's task support
 * @example
 * ```ts
 * checkTaskSupport('long_job', 'required', false); // throws: long_job requires task augmentation
 * ```
 */
export function checkTaskSupport(label: string, support: 'forbidden' | 'optional' | 'required', askedForTask: boolean): void {
  if (askedForTask && support === 'forbidden') throw new JsonRpcError(JsonRpcCode.methodNotFound, `${label} does not support task augmentation (taskSupport: 'forbidden')`);
  if (!askedForTask && support === 'required') throw new JsonRpcError(JsonRpcCode.methodNotFound, `${label} requires task augmentation (taskSupport: 'required')`);
}
