/**
 * Hosts tasks inside an `@modelcontextprotocol/sdk` server: installs `tools/*`, `prompts/*`,
 * `resources/*` for the given definitions, the `tasks/*` methods, and cancellation.
 *
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CancelledNotificationSchema, type Implementation } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { TaskRuntime } from '../../runtime/index.js';
import type { RequestWorkContext, TaskServerDefinitions, TaskToolDefinition } from './definitions.js';
import { paramsObject, requestKey } from './request-context.js';
import { installTaskMethods } from './task-methods.js';
import { executeRequest, type OpenTaskRequests } from './task-execution.js';
import { JsonRpcCode, JsonRpcError } from './wire-errors.js';

/** Options of {@link attachTaskServer}. */
export interface AttachTaskServerOptions extends TaskServerDefinitions {
  /** Where tasks live; share one runtime between all connections. */
  readonly runtime: TaskRuntime;
}

const looseRequest = <M extends string>(method: M) => z.object({ method: z.literal(method), params: z.unknown().optional() });

/** Runtime handler names, so that any node holding the definitions can run the work. */
const handlerName = (method: string, label: string): string => `${method}:${label}`;

const toWork = (ctx: { taskId: string; signal: AbortSignal; setStatusMessage(m: string): void }): RequestWorkContext => ({
  taskId: ctx.taskId,
  signal: ctx.signal,
  setStatusMessage: (m) => ctx.setStatusMessage(m),
});

type AnyTool = TaskToolDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape

/**
 * Makes an SDK `Server` host tasks (SEP-1686). Call it before `server.connect(transport)`, once per
 * server; one server serves one connection, so an HTTP endpoint makes one per session and they all
 * share one runtime.
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
  const open: OpenTaskRequests = new Map();

  const taskRequests: Record<string, Record<string, object>> = {};
  if (tools.size > 0) taskRequests['tools'] = { call: {} };
  if (prompts.size > 0) taskRequests['prompts'] = { get: {} };
  if (resources.size > 0) taskRequests['resources'] = { read: {} };
  server.registerCapabilities({
    tasks: { list: {}, requests: taskRequests },
    ...(tools.size > 0 && { tools: {} }),
    ...(prompts.size > 0 && { prompts: {} }),
    ...(resources.size > 0 && { resources: {} }),
  });

  for (const tool of tools.values()) {
    runtime.registerHandler(handlerName('tools/call', tool.name), (args, ctx) => tool.run(args as never, toWork(ctx)));
  }
  for (const prompt of prompts.values()) {
    runtime.registerHandler(handlerName('prompts/get', prompt.name), (args, ctx) =>
      prompt.run(args as Record<string, string>, toWork(ctx)),
    );
  }
  for (const resource of resources.values()) {
    runtime.registerHandler(handlerName('resources/read', resource.uri), (_params, ctx) => resource.run(resource.uri, toWork(ctx)));
  }

  if (tools.size > 0) {
    const listed = [...tools.values()].map((t) => ({
      name: t.name,
      ...(t.title !== undefined && { title: t.title }),
      ...(t.description !== undefined && { description: t.description }),
      inputSchema: z.toJSONSchema(t.inputSchema, { io: 'input' }) as { type: 'object' },
      execution: { taskSupport: t.taskSupport ?? 'optional' },
    }));
    server.setRequestHandler(looseRequest('tools/list'), () => ({ tools: listed }));
    server.setRequestHandler(looseRequest('tools/call'), async (request, extra) => {
      const { name, arguments: rawArgs } = paramsObject(request.params, 'tools/call');
      if (typeof name !== 'string') throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for tools/call: name must be a string');
      const tool = tools.get(name);
      if (!tool) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown tool: ${name}`);
      const parsed = tool.inputSchema.safeParse(rawArgs ?? {});
      if (!parsed.success) {
        throw new JsonRpcError(JsonRpcCode.invalidParams, `Invalid arguments for tool ${name}: ${z.prettifyError(parsed.error)}`);
      }
      return executeRequest({
        runtime, open, extra, method: 'tools/call', label: name,
        handler: handlerName('tools/call', name),
        taskSupport: tool.taskSupport ?? 'optional',
        params: parsed.data,
        direct: (ctx) => tool.run(parsed.data, ctx),
      });
    });
  }

  if (prompts.size > 0) {
    const listed = [...prompts.values()].map((p) => ({
      name: p.name,
      ...(p.description !== undefined && { description: p.description }),
      ...(p.arguments !== undefined && { arguments: p.arguments }),
    }));
    server.setRequestHandler(looseRequest('prompts/list'), () => ({ prompts: listed }));
    server.setRequestHandler(looseRequest('prompts/get'), async (request, extra) => {
      const { name, arguments: rawArgs = {} } = paramsObject(request.params, 'prompts/get');
      const prompt = typeof name === 'string' ? prompts.get(name) : undefined;
      if (!prompt) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown prompt: ${String(name)}`);
      const args = z.record(z.string(), z.string()).safeParse(rawArgs);
      if (!args.success) throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for prompts/get: arguments must map names to strings');
      return executeRequest({
        runtime, open, extra, method: 'prompts/get', label: prompt.name,
        handler: handlerName('prompts/get', prompt.name),
        taskSupport: prompt.taskSupport ?? 'optional',
        params: args.data,
        direct: (ctx) => prompt.run(args.data, ctx),
      });
    });
  }

  if (resources.size > 0) {
    const listed = [...resources.values()].map((r) => ({
      uri: r.uri,
      name: r.name,
      ...(r.description !== undefined && { description: r.description }),
      ...(r.mimeType !== undefined && { mimeType: r.mimeType }),
    }));
    server.setRequestHandler(looseRequest('resources/list'), () => ({ resources: listed }));
    server.setRequestHandler(looseRequest('resources/read'), async (request, extra) => {
      const { uri } = paramsObject(request.params, 'resources/read');
      const resource = typeof uri === 'string' ? resources.get(uri) : undefined;
      if (!resource) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown resource: ${String(uri)}`);
      return executeRequest({
        runtime, open, extra, method: 'resources/read', label: resource.uri,
        handler: handlerName('resources/read', resource.uri),
        taskSupport: resource.taskSupport ?? 'optional',
        params: {},
        direct: (ctx) => resource.run(resource.uri, ctx),
      });
    });
  }

  installTaskMethods(server, runtime);

  // notifications/cancelled for a task-augmented request cancels its task (§4.8.1) and is ignored
  // once the task is terminal (§4.8.3). The SDK's own handling (aborting the request so that no
  // response is sent for it) must still run, so it is called after ours.
  const sdk = server as unknown as { _oncancel?: (n: unknown) => Promise<void> };
  const sdkCancel = typeof sdk._oncancel === 'function' ? sdk._oncancel.bind(server) : undefined;
  server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
    const { requestId, reason } = notification.params;
    const task = requestId === undefined ? undefined : open.get(requestKey(requestId));
    if (task) {
      await runtime.cancel(task.taskId, task.owner, reason ?? null).catch(() => undefined);
    }
    await sdkCancel?.(notification);
  });
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
