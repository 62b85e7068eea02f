/**
 * The one place a metric label value is chosen. A label value a requester can pick (a method name,
 * a protocol version, a tool name) would give it a series per value: 16,000 notifications with
 * made-up methods once made 16,002 series of `mcp.server.operation.duration`, 60 MB per scrape.
 * So every label of every metric of this package comes from a bounded set, and anything else is
 * counted under {@link OTHER}, the semantic conventions' value for a name outside a known set.
 * The labels and their bounds are listed in the operator documentation (docs/operations.md).
 *
 * @module
 */
import { LIMIT_FLAGS } from '../errors.js';

/** The conventions' value for a name outside a known set (and their fallback `error.type`). */
export const OTHER = '_OTHER';

/**
 * Every MCP method and notification this package serves, sends or knows of (the MCP spec's, the
 * tasks extension's and SEP-1686's): what `mcp.method.name` may be on a metric.
 */
const MCP_METHODS: ReadonlySet<string> = new Set([
  'initialize', 'ping', 'server/discover', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/templates/list', 'resources/read',
  'resources/subscribe', 'resources/unsubscribe', 'completion/complete', 'logging/setLevel', 'sampling/createMessage', 'elicitation/create', 'roots/list',
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'tasks/delete', 'tasks/update', 'subscriptions/listen',
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/message', 'notifications/roots/list_changed',
  'notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/resources/updated',
  'notifications/elicitation/complete', 'notifications/tasks/status', 'notifications/tasks/created', 'notifications/tasks', 'notifications/subscriptions/acknowledged',
]);

/** The MCP protocol versions the SDK lines and the stateless wire speak. */
const PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(['2024-10-07', '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);

/** The wire dialects a task may be created in (`mcp_task_actors.task.dialect`). */
const DIALECTS: ReadonlySet<string> = new Set(['2025-11-25', 'sep-1686', 'ext']);

/** Why a request ended without an answer, or a tool's own failure: the `error.type` values that are not codes. */
const ERROR_TYPES: ReadonlySet<string> = new Set(['tool_error', 'cancelled', 'connection_closed', 'superseded', OTHER]);

/**
 * An MCP method name as a label: itself when it is one {@link MCP_METHODS} lists, else {@link OTHER}.
 *
 * @example
 * ```ts
 * boundedMethod('tools/call'); // 'tools/call'
 * boundedMethod('notifications/x-1'); // '_OTHER'
 * ```
 */
export function boundedMethod(method: string): string {
  return MCP_METHODS.has(method) ? method : OTHER;
}

/**
 * A tool, prompt or resource name as a label: itself when `registered` says the server serves it,
 * else {@link OTHER} (a name the requester made up).
 *
 * @param registered - whether the server has it registered now (read at each call: an `McpServer` may register more at any time)
 * @example
 * ```ts
 * boundedTarget('sleep', (name) => tools.has(name)); // 'sleep'
 * boundedTarget('no_such_tool', (name) => tools.has(name)); // '_OTHER'
 * ```
 */
export function boundedTarget(name: string, registered: (name: string) => boolean): string {
  return registered(name) ? name : OTHER;
}

/**
 * An MCP protocol version as a label: one this package speaks, else {@link OTHER} (a header or
 * `_meta` value the requester chose).
 *
 * @example
 * ```ts
 * boundedProtocolVersion('2025-11-25'); // '2025-11-25'
 * boundedProtocolVersion('1999-01-01'); // '_OTHER'
 * ```
 */
export function boundedProtocolVersion(version: string): string {
  return PROTOCOL_VERSIONS.has(version) ? version : OTHER;
}

/**
 * A JSON-RPC error code as a label: the spec's codes (-32700, -32600 to -32603) and the
 * implementation-defined server errors (-32000 to -32099), else {@link OTHER}.
 *
 * @example
 * ```ts
 * boundedErrorCode(-32602); // '-32602'
 * boundedErrorCode(1234); // '_OTHER'
 * ```
 */
export function boundedErrorCode(code: number): string {
  const known = code === -32700 || (Number.isInteger(code) && ((code >= -32603 && code <= -32600) || (code >= -32099 && code <= -32000)));
  return known ? String(code) : OTHER;
}

/**
 * An `error.type` as a label: a code as {@link boundedErrorCode} bounds it, or one of the few
 * named outcomes (`tool_error`, `cancelled`, `connection_closed`, `superseded`), else {@link OTHER}.
 *
 * @example
 * ```ts
 * boundedErrorType(-32603); // '-32603'
 * boundedErrorType('cancelled'); // 'cancelled'
 * boundedErrorType('whatever'); // '_OTHER'
 * ```
 */
export function boundedErrorType(type: number | string): string {
  if (typeof type === 'number') return boundedErrorCode(type);
  return ERROR_TYPES.has(type) ? type : OTHER;
}

/**
 * A task's wire dialect as a label: one this package speaks (`2025-11-25`, `sep-1686`, `ext`),
 * else {@link OTHER}.
 *
 * @example
 * ```ts
 * boundedDialect('2025-11-25'); // '2025-11-25'
 * ```
 */
export function boundedDialect(dialect: string): string {
  return DIALECTS.has(dialect) ? dialect : OTHER;
}

/**
 * A limit's name as a label (`mcp_task_actors.limit.name`): one of the limits a `TaskLimitError`
 * may name (those with a flag, `LIMIT_FLAGS`), else {@link OTHER}.
 *
 * @example
 * ```ts
 * boundedLimit('pollsPerSecond'); // 'pollsPerSecond'
 * ```
 */
export function boundedLimit(limit: string): string {
  return Object.hasOwn(LIMIT_FLAGS, limit) ? limit : OTHER;
}
