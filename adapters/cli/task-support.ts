/**
 * Whether `mcp-tasks call` may ask for a task. SEP-1686 always may: a receiver without tasks
 * ignores the `_meta` and just answers. 2025-11-25 may not: a requester MUST NOT task-augment a
 * call unless the server declares `tasks.requests.tools.call` and lists the tool with
 * `execution.taskSupport` `optional` or `required` (spec 2025-11-25, "Tool-Level Negotiation");
 * the SDK server rejects the call otherwise.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The tool's `execution.taskSupport` as `tools/list` gives it, or `undefined` when absent or unlisted. */
async function listedTaskSupport(client: Client, tool: string): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    const found = page.tools.find((t) => t.name === tool);
    if (found) return found.execution?.taskSupport;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return undefined;
}

/**
 * Whether to call `tool` as a task in `dialect`, asked of a connected client.
 *
 * @param client - connected to the server
 * @param tool - the tool's name
 * @param dialect - the dialect `call` speaks
 * @example
 * ```ts
 * if (await mayCallAsTask(client, 'echo', '2025-11-25')) tasks.beginCallTool({ name: 'echo' });
 * else await client.callTool({ name: 'echo' });
 * ```
 */
export async function mayCallAsTask(client: Client, tool: string, dialect: 'sep-1686' | '2025-11-25'): Promise<boolean> {
  if (dialect === 'sep-1686') return true;
  if (client.getServerCapabilities()?.tasks?.requests?.tools?.call === undefined) return false;
  const support = await listedTaskSupport(client, tool);
  return support === 'optional' || support === 'required';
}
