/**
 * Maps runtime errors to MCP JSON-RPC errors with the codes and messages of SEP-1686 §7.1.
 * The only place where local errors become wire errors.
 *
 * @module
 */
import { isTaskRuntimeError, TaskErrorCode } from '../../runtime/index.js';

/** JSON-RPC error codes used by the task methods. */
export const JsonRpcCode = {
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
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
    case TaskErrorCode.timeout:
    case TaskErrorCode.disposed:
    case TaskErrorCode.failed:
      return new JsonRpcError(JsonRpcCode.internalError, error.message);
  }
}
