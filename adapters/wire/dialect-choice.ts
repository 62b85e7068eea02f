/**
 * Which dialect a requester speaks to a server, and what retention it may ask for in it: the one
 * rule behind `TaskClient.callTool` / `TaskClient.task` and `mcp-tasks call` / `mcp-tasks tasks`.
 *
 * @module
 */
import type { RequesterDialect } from '../../machines/index.js';
import { TASKS_EXTENSION_ID } from '../dialects/ext/index.js';
import { TaskClientError, TaskClientErrorCode } from './task-client.errors.js';
import type { CallDialect } from './task-call.types.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the server declared, and whether this client can speak the 2026-07-28 wire at all. */
export interface ServerView {
  /** The server's capabilities from `initialize` (`undefined` before connecting). */
  readonly capabilities: Json | undefined;
  /** Whether the client has a raw dispatch (SDK clients refuse the 2026-07-28 task results). */
  readonly canSpeakExtension: boolean;
}

/** Whether the server declares the 2026-07-28 tasks extension. */
const declaresExtension = (caps: Json | undefined): boolean => isRecord(caps?.['extensions']) && isRecord(caps['extensions'][TASKS_EXTENSION_ID]);

/** Whether the server declares 2025-11-25 task-augmented `tools/call` (`tasks.requests.tools.call`). */
const declares2025Calls = (caps: Json | undefined): boolean => {
  const tasks = caps?.['tasks'];
  const requests = isRecord(tasks) ? tasks['requests'] : undefined;
  const tools = isRecord(requests) ? requests['tools'] : undefined;
  return isRecord(tools) && tools['call'] !== undefined;
};

/**
 * The dialect for one tool call, negotiated: the 2026-07-28 extension when the server declares it
 * and the client can speak it; else 2025-11-25 when the server declares task-augmented `tools/call`
 * and lists the tool with `execution.taskSupport` `optional` or `required` (a requester MUST NOT
 * augment otherwise, spec 2025-11-25 "Tool-Level Negotiation"); else SEP-1686 when the server
 * declares a `tasks` capability (SEP-1686 §2); else a plain call.
 *
 * @param server - what the server declared
 * @param taskSupport - the tool's listed `execution.taskSupport`, asked only when it matters
 * @example
 * ```ts
 * await chooseCallDialect({ capabilities: client.getServerCapabilities(), canSpeakExtension: false }, () => listedTaskSupport(client, 'sleep'));
 * ```
 */
export async function chooseCallDialect(server: ServerView, taskSupport: () => Promise<string | undefined>): Promise<CallDialect> {
  const caps = server.capabilities;
  if (server.canSpeakExtension && declaresExtension(caps)) return '2026-07-28';
  if (declares2025Calls(caps)) return confirm2025(server, taskSupport);
  return isRecord(caps?.['tasks']) ? 'sep-1686' : 'plain';
}

/**
 * 2025-11-25 when the server allows it for this tool, else a plain call: asked explicitly, the
 * dialect still obeys its tool-level negotiation (a requester MUST NOT augment a call the server
 * does not declare or a tool it lists as `forbidden`).
 *
 * @example
 * ```ts
 * await confirm2025(server, () => listedTaskSupport(list, 'echo')); // 'plain' for a forbidden tool
 * ```
 */
export async function confirm2025(server: ServerView, taskSupport: () => Promise<string | undefined>): Promise<'2025-11-25' | 'plain'> {
  if (!declares2025Calls(server.capabilities)) return 'plain';
  const support = await taskSupport();
  return support === 'optional' || support === 'required' ? '2025-11-25' : 'plain';
}

/**
 * The dialect to read an existing task in: as {@link chooseCallDialect}, without a tool (a task
 * exists, so the server speaks one; SEP-1686 is the fallback that needs no declaration).
 *
 * @example
 * ```ts
 * chooseTaskDialect({ capabilities: { tasks: { requests: { tools: { call: {} } } } }, canSpeakExtension: false }); // '2025-11-25'
 * ```
 */
export function chooseTaskDialect(server: ServerView): RequesterDialect {
  const caps = server.capabilities;
  if (server.canSpeakExtension && declaresExtension(caps)) return '2026-07-28';
  return declares2025Calls(caps) ? '2025-11-25' : 'sep-1686';
}

/**
 * Checks that `dialect` can carry the retention asked for: SEP-1686 carries `keepAlive` (after the
 * end), 2025-11-25 carries `ttl` (from creation), 2026-07-28 and a plain call carry neither.
 *
 * @throws TaskClientError (`retention_unsupported`) naming what was asked and what the dialect takes
 * @example
 * ```ts
 * checkRetention('2025-11-25', { ttl: 60_000 }); // fine
 * checkRetention('sep-1686', { ttl: 60_000 }); // throws: SEP-1686 takes keepAlive
 * ```
 */
export function checkRetention(dialect: CallDialect, asked: { readonly ttl?: number | undefined; readonly keepAlive?: number | undefined }): void {
  const takes = dialect === 'sep-1686' ? 'keepAlive' : dialect === '2025-11-25' ? 'ttl' : null;
  for (const name of ['ttl', 'keepAlive'] as const) {
    const value = asked[name];
    if (value === undefined || name === takes) continue;
    if (!(Number.isFinite(value) && value >= 0)) throw new TypeError(`${name} must be a non-negative number of ms, got ${String(value)}`);
    const instead = takes === null ? 'it carries no retention (the server decides)' : `it takes ${takes} instead`;
    throw new TaskClientError(TaskClientErrorCode.retentionUnsupported, `The call asked for ${name} ${value} ms, which the ${dialect} dialect cannot carry: ${instead}`);
  }
}

/**
 * The tool's `execution.taskSupport` as `tools/list` gives it (every page), or `undefined`.
 *
 * @param list - one `tools/list` page
 * @example
 * ```ts
 * await listedTaskSupport((cursor) => client.listTools(cursor === undefined ? {} : { cursor }), 'sleep'); // 'optional'
 * ```
 */
export async function listedTaskSupport(list: (cursor: string | undefined) => Promise<unknown>, tool: string): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await list(cursor);
    const tools = isRecord(answer) && Array.isArray(answer['tools']) ? answer['tools'] : [];
    const found = tools.find((t): t is Json => isRecord(t) && t['name'] === tool);
    if (found) {
      const execution = found['execution'];
      return isRecord(execution) && typeof execution['taskSupport'] === 'string' ? execution['taskSupport'] : undefined;
    }
    cursor = isRecord(answer) && typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : undefined;
    if (cursor === undefined) return undefined;
  }
  return undefined;
}
