/**
 * Hosts tasks inside an `@modelcontextprotocol/sdk` server, in both wire dialects at once:
 * installs `tools/*`, `prompts/*`, `resources/*` for the given definitions, the `tasks/*` methods,
 * cancellation, and 2025-11-25 status notifications.
 *
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Implementation } from '@modelcontextprotocol/sdk/types.js';
import { TaskFailure, type TaskRuntime } from '../../runtime/index.js';
import { SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { wireConnection } from './connection.js';
import type { TaskServerDefinitions, TaskToolDefinition } from './definitions.js';
import type { TaskHost } from './request-context.js';
import { installPrompts, installResources, installTools } from './request-handlers.js';
import { installTaskMethods } from './task-methods.js';
import { keepingWireErrors } from './wire-errors.js';
import { registerWorkOnce } from './work-registry.js';
import { taskWorkContext as toWork } from './work-context.js';

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
}

type AnyTool = TaskToolDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape

/** The first text of a tool result, to say why a 2025-11-25 task failed. */
function errorText(result: CallToolResult): string {
  const first = result.content.find((c) => c.type === 'text');
  const text = first?.type === 'text' ? first.text : 'no detail';
  return `Tool reported an error: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
}

/**
 * Registers the definitions' work with the runtime, so that tasks can run it (whichever wire
 * created them). Each definition is registered once per runtime: a server made for a later
 * session never replaces an earlier session's definitions (see `work-registry.ts`).
 *
 * @example
 * ```ts
 * registerWork(runtime, [sleepTool], {});
 * ```
 */
export function registerWork(runtime: TaskRuntime, tools: Iterable<AnyTool>, options: TaskServerDefinitions): void {
  for (const tool of tools) {
    registerWorkOnce(runtime, 'tools/call', tool.name, tool, (name) =>
      runtime.registerHandler(
        name,
        keepingWireErrors(async (args, ctx) => {
          const result = await tool.run(args as never, toWork(ctx));
          // In 2025-11-25 a tool result with isError ends the task failed; the result is kept for tasks/result.
          if (result.isError === true && ctx.dialect === SPEC_2025_11_25) throw new TaskFailure(errorText(result), { result });
          return result;
        }),
        tool.retry === undefined ? {} : { retry: tool.retry },
      ),
    );
  }
  for (const prompt of options.prompts ?? []) {
    registerWorkOnce(runtime, 'prompts/get', prompt.name, prompt, (name) =>
      runtime.registerHandler(name, keepingWireErrors((args, ctx) => prompt.run(args as Record<string, string>, toWork(ctx)))),
    );
  }
  for (const resource of options.resources ?? []) {
    registerWorkOnce(runtime, 'resources/read', resource.uri, resource, (name) =>
      runtime.registerHandler(name, keepingWireErrors((_params, ctx) => resource.run(resource.uri, toWork(ctx)))),
    );
  }
}

/**
 * Makes an SDK `Server` host tasks, in SEP-1686 and 2025-11-25 at once (the dialect is chosen per
 * request by its shape). Call it before `server.connect(transport)`, once per server; one server
 * serves one connection, so an HTTP endpoint makes one per session, all sharing one runtime.
 *
 * @param server - a low-level SDK server not yet connected
 * @param options - the runtime and the tools, prompts and resources to serve
 * @example
 * ```ts
 * const server = new Server({ name: 'my-server', version: '1.0.0' });
 * attachTaskServer(server, { runtime, tools: [sleepTool] });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function attachTaskServer(server: Server, options: AttachTaskServerOptions): void {
  const { runtime } = options;
  const tools = new Map<string, AnyTool>((options.tools ?? []).map((t) => [t.name, t]));
  const prompts = new Map((options.prompts ?? []).map((p) => [p.name, p]));
  const resources = new Map((options.resources ?? []).map((r) => [r.uri, r]));

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
  const connection = wireConnection(host, runtime, { fastLane: options.fastLane ?? true });
  if (tools.size > 0) installTools(host, connection, tools);
  if (prompts.size > 0) installPrompts(host, connection, prompts);
  if (resources.size > 0) installResources(host, connection, resources);
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
