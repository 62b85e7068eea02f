/**
 * Maps runtime errors to MCP JSON-RPC errors with the codes and messages of SEP-1686 §7.1.
 * The only place where local errors become wire errors.
 *
 * @module
 */
import { isTaskRuntimeError, TaskErrorCode, TaskFailure, type RuntimeDrainingError, type StoreUnavailableError, type TaskHandler, type TaskLimitError, type TaskOutcome } from '../../runtime/index.js';

/**
 * JSON-RPC error codes used by the task methods.
 *
 * @example
 * ```ts
 * throw new JsonRpcError(JsonRpcCode.invalidParams, 'Failed to retrieve task: Task not found');
 * ```
 */
export const JsonRpcCode = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** A per-requester limit was exceeded (implementation-defined server error; think HTTP 429). */
  limitExceeded: -32029,
  /**
   * The server is shutting down and takes no new task (implementation-defined server error;
   * think HTTP 503): retry after `data.retryAfterMs`, on another node behind the same address.
   */
  shuttingDown: -32030,
  /**
   * The task store did not answer (NATS away or restarting; implementation-defined server error,
   * think HTTP 503): nothing was decided, retry the same call after `data.retryAfterMs`.
   */
  storeUnavailable: -32031,
} as const;

/**
 * An error the SDK sends as-is: the SDK's own `McpError` prefixes its message with
 * "MCP error <code>:", which would spoil the exact messages the spec prescribes.
 *
 * @example
 * ```ts
 * throw new JsonRpcError(-32602, 'Failed to retrieve task: Task not found');
 * ```
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }
}

/** What a failed handler's JSON-RPC error looked like, kept as the task's failure detail. */
interface WireFailure {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

const isWireFailure = (v: unknown): v is WireFailure =>
  typeof v === 'object' && v !== null && typeof (v as WireFailure).code === 'number' && typeof (v as WireFailure).message === 'string';

/**
 * Wraps whatever a handler threw into a {@link TaskFailure} that remembers the JSON-RPC error the
 * request would have answered with, so that `tasks/result` can return exactly that error.
 *
 * @example
 * ```ts
 * try { return await tool.run(args, ctx); } catch (e) { throw failureFromThrown(e); }
 * ```
 */
export function failureFromThrown(error: unknown): TaskFailure {
  if (error instanceof TaskFailure) return error;
  const code = typeof (error as { code?: unknown } | null)?.code === 'number' ? (error as { code: number }).code : JsonRpcCode.internalError;
  const message = error instanceof Error ? error.message : String(error);
  const data = (error as { data?: unknown } | null)?.data;
  return new TaskFailure(message, { cause: error, detail: data === undefined ? { code, message } : { code, message, data } });
}

/**
 * The JSON-RPC error for a task that ended without a result: the handler's own error when it
 * threw one, otherwise -32603 naming the status and why.
 *
 * @example
 * ```ts
 * if (!outcome.hasResult) throw wireErrorOf(outcome);
 * ```
 */
export function wireErrorOf(outcome: Pick<TaskOutcome, 'task' | 'failure'>, extraData?: Record<string, unknown>): JsonRpcError {
  const { failure, task } = outcome;
  if (isWireFailure(failure)) {
    const own = typeof failure.data === 'object' && failure.data !== null ? failure.data : {};
    const data = extraData === undefined ? failure.data : { ...own, ...extraData };
    return new JsonRpcError(failure.code, failure.message, data);
  }
  const why = task.error ?? task.statusMessage ?? 'no detail';
  return new JsonRpcError(JsonRpcCode.internalError, `Task ${task.taskId} ended '${task.status}': ${why}`, extraData);
}

/**
 * Turns anything thrown by the runtime into a {@link JsonRpcError} with an informative message.
 *
 * @param error - what was caught
 * @param action - how the message begins for look-up failures, as in §7.1's examples
 * @example
 * ```ts
 * throw toJsonRpcError(e); // JsonRpcError(-32602, 'Failed to retrieve task: Task not found')
 * ```
 */
export function toJsonRpcError(error: unknown, action = 'Failed to retrieve task'): JsonRpcError {
  if (error instanceof JsonRpcError) return error;
  if (!isTaskRuntimeError(error)) {
    return new JsonRpcError(JsonRpcCode.internalError, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
  }
  switch (error.code) {
    case TaskErrorCode.notFound:
    case TaskErrorCode.expired:
      return new JsonRpcError(JsonRpcCode.invalidParams, `${action}: ${error.message}`);
    case TaskErrorCode.notCompleted:
      return new JsonRpcError(JsonRpcCode.invalidParams, `Cannot retrieve result: ${error.message}`);
    case TaskErrorCode.duplicateId:
    case TaskErrorCode.invalidCursor:
    case TaskErrorCode.invalidArgument:
    case TaskErrorCode.terminal:
      return new JsonRpcError(JsonRpcCode.invalidParams, error.message);
    case TaskErrorCode.inputUnsupported:
      // The requester's own declaration rules it out: its request, not the server, is what to change.
      return new JsonRpcError(JsonRpcCode.invalidRequest, error.message);
    case TaskErrorCode.limited: {
      const limited = error as TaskLimitError;
      return new JsonRpcError(JsonRpcCode.limitExceeded, error.message, { limit: limited.limit, retryAfterMs: limited.retryAfterMs });
    }
    case TaskErrorCode.draining:
      return new JsonRpcError(JsonRpcCode.shuttingDown, error.message, { reason: 'shutting-down', retryAfterMs: (error as RuntimeDrainingError).retryAfterMs });
    case TaskErrorCode.storeUnavailable:
      return new JsonRpcError(JsonRpcCode.storeUnavailable, error.message, { reason: 'store-unavailable', retryAfterMs: (error as StoreUnavailableError).retryAfterMs });
    case TaskErrorCode.timeout:
    case TaskErrorCode.disposed:
    case TaskErrorCode.failed:
      return new JsonRpcError(JsonRpcCode.internalError, error.message);
  }
}

/**
 * A handler whose thrown errors keep the JSON-RPC error they would have been on the wire.
 *
 * @example
 * ```ts
 * runtime.registerHandler('tools/call:x', keepingWireErrors((args, ctx) => tool.run(args, ctx)));
 * ```
 */
export const keepingWireErrors =
  (run: TaskHandler): TaskHandler =>
  async (params, ctx) => {
    try {
      return await run(params, ctx);
    } catch (error) {
      throw failureFromThrown(error);
    }
  };
