/**
 * Hosts tasks inside an `@modelcontextprotocol/sdk` server, in both wire dialects at once:
 * installs `tools/*`, `prompts/*`, `resources/*` for the given definitions, the `tasks/*` methods,
 * cancellation, and 2025-11-25 status notifications.
 *
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { wireConnection } from './connection.js';
import type { TaskServerDefinitions, TaskToolDefinition } from '../wire/definitions.js';
import type { TaskHost } from './request-context.js';
import { installPrompts, installResources, installTools } from './request-handlers.js';
import { installTaskMethods } from './task-methods.js';
import { isMcpServer, isPlainRegistered, keepPlainHandlers, type PlainHandlers } from './plain-registrations.js';
import { claimPlainMethods } from '../wire/plain-names.js';
import type { KnownTargets } from '../wire/mcp-telemetry.js';
import { registerWork } from '../wire/register-work.js';
import type { StandaloneInputOptions } from '../wire/standalone-inputs.js';
import { HOST_TASK_TOOL_NAMES } from '../wire/host-task-tools.js';

/** Options of {@link attachTaskServer}. */
export interface AttachTaskServerOptions extends TaskServerDefinitions {
  /** Where tasks live; share one runtime between all connections. */
  readonly runtime: TaskRuntime;
  /**
   * Answer task requests (task-augmented calls and the `tasks/*` methods) at the transport, ahead
   * of the SDK's request handling, with the same messages the SDK would send (see the README's
   * Performance section); `false` leaves every request to the SDK.
   * @default true
   */
  readonly fastLane?: boolean;
  /**
   * For 2025-11-25 requesters that keep no `tasks/result` open while a task waits (the official
   * ext-tasks requester): its input requests go out unattached, on the session's standalone
   * stream, after `afterMs`; one with no answer after `giveBackAfterMs` is withdrawn and sent
   * again at the requester's next `tasks/get`.
   */
  readonly standaloneInput?: StandaloneInputOptions;
  /**
   * Serve clients that declared no task support in `initialize` (neither the `tasks` capability
   * nor the tasks extension) tasks through tools: a call of a task-capable tool starts its task and
   * answers at once with the task id, and `task_status`, `task_result`, `task_cancel` and
   * `task_respond` follow it, bound to the requester that started it. A request that asks for a
   * task itself, and every client that declared tasks, gets the protocol as it is.
   * @default false
   */
  readonly taskTools?: boolean;
}

type AnyTool = TaskToolDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape

/**
 * Makes an SDK v1 server host tasks, in SEP-1686 and 2025-11-25 at once (the dialect is chosen
 * per request by its shape). Call it before `server.connect(transport)`, once per server; one
 * server serves one connection, so an HTTP endpoint makes one per session, all sharing one runtime.
 *
 * On an `McpServer`, the tools, prompts and resources registered on it (before or after this
 * call) stay listed and callable as plain ones beside the task definitions.
 *
 * @param server - an SDK v1 `McpServer`, or its low-level `Server`, not yet connected
 * @param options - the runtime and the tools, prompts and resources to serve as tasks
 * @throws Error naming a tool, prompt or resource the `McpServer` serves under a task definition's name
 * @throws Error when a low-level `Server` already serves `tools/call` (or the prompts or resources
 *   methods the definitions need), such as `mcp.server` of an `McpServer` with tools: pass the `McpServer`
 * @example
 * ```ts
 * const mcp = new McpServer({ name: 'my-server', version: '1.0.0' });
 * mcp.registerTool('ping', { description: 'plain' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
 * attachTaskServer(mcp, { runtime, tools: [sleepTool] });
 * await mcp.connect(new StdioServerTransport());
 * ```
 */
export function attachTaskServer(server: Server | McpServer, options: AttachTaskServerOptions): void {
  const { runtime } = options;
  const tools = new Map<string, AnyTool>((options.tools ?? []).map((t) => [t.name, t]));
  const prompts = new Map((options.prompts ?? []).map((p) => [p.name, p]));
  const resources = new Map((options.resources ?? []).map((r) => [r.uri, r]));
  let plain: Partial<Record<'tools' | 'prompts' | 'resources', PlainHandlers>> = {};
  // The task tools' names are taken too: an McpServer tool of that name would never be reached.
  const toolNames = new Set<string>([...tools.keys(), ...(options.taskTools === true && tools.size > 0 ? HOST_TASK_TOOL_NAMES : [])]);
  const mcp = isMcpServer(server) ? server : undefined;
  // What a span name or metric label may name: ours, and the McpServer's own as they are now.
  const targets: KnownTargets = (kind, name) =>
    (kind === 'tool' ? toolNames.has(name) : prompts.has(name)) || (mcp !== undefined && isPlainRegistered(mcp, kind === 'tool' ? 'tools' : 'prompts', name));
  const names = { tools: toolNames, prompts: new Set(prompts.keys()), resources: new Set(resources.keys()) };
  if (isMcpServer(server)) {
    plain = keepPlainHandlers(server, names);
    server = server.server;
  } else {
    claimPlainMethods('attachTaskServer', server, names);
  }

  const taskRequests: Record<string, Record<string, object>> = {};
  if (tools.size > 0) taskRequests['tools'] = { call: {} };
  if (prompts.size > 0) taskRequests['prompts'] = { get: {} };
  if (resources.size > 0) taskRequests['resources'] = { read: {} };
  server.registerCapabilities({
    tasks: { list: {}, cancel: {}, requests: taskRequests },
    ...(tools.size > 0 && { tools: {} }),
    ...(prompts.size > 0 && { prompts: {} }),
    ...(resources.size > 0 && { resources: {} }),
  });
  registerWork(runtime, tools.values(), options);

  const host = server as unknown as TaskHost;
  const connection = wireConnection(host, runtime, { fastLane: options.fastLane ?? true, targets, ...(options.standaloneInput && { standaloneInput: options.standaloneInput }) });
  if (tools.size > 0) installTools(host, connection, tools, plain.tools, options.taskTools === true);
  if (prompts.size > 0) installPrompts(host, connection, prompts, plain.prompts);
  if (resources.size > 0) installResources(host, connection, resources, plain.resources);
  installTaskMethods(host, runtime, connection);
}

/**
 * A new SDK `Server` hosting the given definitions as tasks.
 *
 * @param info - the server's name and version as sent in `initialize`
 * @param options - runtime and definitions, as for {@link attachTaskServer}
 * @example
 * ```ts
 * const server = createTaskServer({ name: 'demo', version: '1.0.0' }, { runtime, tools });
 * ```
 */
export function createTaskServer(info: Implementation, options: AttachTaskServerOptions): Server {
  const server = new Server(info, { capabilities: {} });
  attachTaskServer(server, options);
  return server;
}
