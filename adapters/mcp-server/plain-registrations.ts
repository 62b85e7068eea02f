/**
 * Task definitions beside an SDK v1 `McpServer`'s own tools, prompts and resources. The
 * `McpServer` installs one `tools/list`/`tools/call` pair (and the same for prompts and resources)
 * for everything registered on it, before or after; the task ones installed over them keep them
 * and hand every name that is not a task definition's to them, and add their own to each list.
 * A name both would serve is refused (`wire/plain-names.ts`).
 *
 * @module
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { guardPlainNames, PLAIN_KINDS, type PlainKind, type TaskNames } from '../wire/plain-names.js';
import { readSdkField, requestHandlers, type SdkInternalName } from './sdk-internals.js';

/** A request handler as the SDK holds it: takes the request (it parses it itself) and the extra. */
export type SdkRequestHandler = (request: unknown, extra: unknown) => Promise<Record<string, unknown>>;

/** The `McpServer`'s own handlers of one kind: its list, and its call (get, read). */
export interface PlainHandlers {
  readonly list: SdkRequestHandler;
  readonly call: SdkRequestHandler;
}

const INTERNALS: Readonly<Record<PlainKind, { readonly registered: SdkInternalName; readonly install: SdkInternalName }>> = {
  tools: { registered: '_registeredTools', install: 'setToolRequestHandlers' },
  prompts: { registered: '_registeredPrompts', install: 'setPromptRequestHandlers' },
  resources: { registered: '_registeredResources', install: 'setResourceRequestHandlers' },
};

/**
 * Whether `server` is an SDK v1 `McpServer` (the high-level one), not its low-level `Server`.
 *
 * @example
 * ```ts
 * const low = isMcpServer(server) ? server.server : server;
 * ```
 */
export function isMcpServer(server: Server | McpServer): server is McpServer {
  const inner = (server as { server?: unknown }).server;
  return typeof inner === 'object' && inner !== null && typeof (server as McpServer).registerTool === 'function';
}

/**
 * Whether `mcp` has `name` registered for one kind now (it may register more at any time).
 *
 * @throws SdkInternalsError when the installed SDK changed the internals relied on
 * @example
 * ```ts
 * isPlainRegistered(mcp, 'tools', 'ping'); // true
 * ```
 */
export function isPlainRegistered(mcp: McpServer, kind: PlainKind, name: string): boolean {
  return Object.hasOwn(readSdkField(mcp, INTERNALS[kind].registered) as object, name);
}

/**
 * Keeps `mcp`'s own handlers for every kind the task definitions serve, and refuses any name both
 * would serve: now, and for registrations made after this call.
 *
 * @returns the `McpServer`'s handlers, per kind the task definitions serve
 * @throws Error naming a tool, prompt or resource already registered under a task definition's name
 * @throws SdkInternalsError when the installed SDK changed the internals relied on
 * @example
 * ```ts
 * const plain = keepPlainHandlers(mcp, { tools: new Set(['sleep']), prompts: new Set(), resources: new Set() });
 * ```
 */
export function keepPlainHandlers(mcp: McpServer, names: TaskNames): Partial<Record<PlainKind, PlainHandlers>> {
  const kinds = (Object.keys(PLAIN_KINDS) as PlainKind[]).filter((kind) => names[kind].size > 0);
  const registered = Object.fromEntries(kinds.map((kind) => [kind, Object.keys(readSdkField(mcp, INTERNALS[kind].registered) as object)]));
  guardPlainNames('attachTaskServer', mcp, names, registered);
  const kept: Partial<Record<PlainKind, PlainHandlers>> = {};
  for (const kind of kinds) {
    // Installed now, so that the McpServer never tries to install them over ours later (it would throw).
    (readSdkField(mcp, INTERNALS[kind].install) as (this: McpServer) => void).call(mcp);
    const handlers = requestHandlers(mcp.server);
    kept[kind] = { list: handlers.get(PLAIN_KINDS[kind].list) as SdkRequestHandler, call: handlers.get(PLAIN_KINDS[kind].call) as SdkRequestHandler };
  }
  return kept;
}
