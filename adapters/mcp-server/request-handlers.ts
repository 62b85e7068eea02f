/**
 * `tools/*`, `prompts/*` and `resources/*` for task definitions: list them, check arguments, and
 * hand each call to {@link executeRequest} (or, for a task, the fast lane to {@link runTask}).
 *
 * @module
 */
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SEP_1686 } from '../dialects/sep-1686/index.js';
import type { TaskOwner } from '../../machines/index.js';
import type { TaskView, TaskRuntime } from '../../runtime/index.js';
import type { RequestWorkContext, TaskPromptDefinition, TaskResourceDefinition, TaskSupport, TaskToolDefinition } from './definitions.js';
import type { FastLane } from './fast-lane.js';
import type { InputChannel } from './input-delivery.js';
import { paramsObject, type RequestInfo, type TaskHost } from './request-context.js';
import { asksForTask, executeRequest, runTask, taskRouteOf, type OpenTaskRequests } from './task-execution.js';
import { JsonRpcCode, JsonRpcError } from './wire-errors.js';
import { workHandlerName } from './work-registry.js';

type AnyTool = TaskToolDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape

/** What one connection shares between its handlers. */
export interface ConnectionContext extends InputChannel {
  readonly host: TaskHost;
  readonly runtime: TaskRuntime;
  readonly open: OpenTaskRequests;
  /**
   * Starts the status notifications of a 2025-11-25 task about to be created; call the result
   * with the created task (or `null` when creation failed) and the request that created it.
   */
  readonly watch2025: (taskId: string, owner: TaskOwner) => (created: TaskView | null, request: RequestInfo) => void;
  /** An answer on this connection told the requester how a 2025-11-25 task is: no notification repeats it. */
  readonly told2025?: (task: TaskView) => void;
  /** The connection's fast lane (task requests answered ahead of the SDK), if it has one. */
  readonly lane?: FastLane;
}

/** A request schema that accepts any params, so that we, not a schema library, word the errors. */
export const looseRequest = <M extends string>(method: M) =>
  z.object({ method: z.literal(method), params: z.unknown().optional() });

/**
 * A tool as `tools/list` shows it, without the wire-specific `execution` field (2025-11-25 adds
 * `taskSupport` there; the tasks extension defines no tool-level field).
 *
 * @example
 * ```ts
 * describeTool(sleepTool); // { name: 'sleep', description: '…', inputSchema: { type: 'object', … } }
 * ```
 */
export function describeTool(t: AnyTool): { name: string; title?: string; description?: string; inputSchema: { type: 'object' } } {
  return {
    name: t.name,
    ...(t.title !== undefined && { title: t.title }),
    ...(t.description !== undefined && { description: t.description }),
    inputSchema: z.toJSONSchema(t.inputSchema, { io: 'input' }) as { type: 'object' },
  };
}

/**
 * The tool a `tools/call` names and its checked arguments: shared by every wire, so that all of
 * them word bad calls the same way and never turn bad arguments into tasks.
 *
 * @throws JsonRpcError -32602 for a missing name, an unknown tool or invalid arguments
 * @example
 * ```ts
 * const { tool, args } = resolveToolCall(tools, { name: 'sleep', arguments: { ms: 10 } });
 * ```
 */
export function resolveToolCall(tools: ReadonlyMap<string, AnyTool>, requestParams: Record<string, unknown>): { tool: AnyTool; args: unknown } {
  const { name, arguments: rawArgs } = requestParams;
  if (typeof name !== 'string') throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for tools/call: name must be a string');
  const tool = tools.get(name);
  if (!tool) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown tool: ${name}`);
  const parsed = tool.inputSchema.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    throw new JsonRpcError(JsonRpcCode.invalidParams, `Invalid arguments for tool ${name}: ${z.prettifyError(parsed.error)}`);
  }
  return { tool, args: parsed.data };
}

/** How one request names its work: resolved from its params, before anything runs. */
export interface ResolvedWork {
  readonly label: string;
  readonly handler: string;
  readonly taskSupport: TaskSupport;
  readonly params: unknown;
  readonly direct: (ctx: RequestWorkContext) => Promise<unknown>;
}

/** How a method is served on the fast lane, beyond the SDK's own handler. */
export interface LaneOptions {
  /** `false`: never on the lane (the SDK's handler checks what the lane would not). @default true */
  readonly lane?: boolean;
  /** What the SDK checks of the request before the handler: anything else is left to the SDK. */
  readonly sdkWouldTake?: (params: Record<string, unknown>) => boolean;
  /** What the SDK does to a SEP-1686 answer after the handler (a result check), done on the lane too. */
  readonly sepAnswer?: (result: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * Installs one request method that may run as a task: on the SDK (every call) and on the fast
 * lane (task-augmented calls only; a plain call is the SDK's, with its full request context).
 *
 * @param resolve - the work the params name; throws a JsonRpcError for bad params
 * @param lane - how the method is served on the fast lane
 * @example
 * ```ts
 * installRequest(server, c, 'prompts/get', (p) => ({ label: 'greeting', handler, taskSupport: 'optional', params: {}, direct }));
 * ```
 */
export function installRequest(
  server: TaskHost,
  c: ConnectionContext,
  method: string,
  resolve: (requestParams: Record<string, unknown>) => ResolvedWork,
  lane: LaneOptions = {},
): void {
  // Object.assign, not a spread with extra keys: on Node 20 that literal costs microseconds per call.
  const request = <E extends RequestInfo>(extra: E, requestParams: Record<string, unknown>, work: ResolvedWork) =>
    Object.assign({}, c, work, { extra, requestParams, method });
  server.setRequestHandler(looseRequest(method), async (message, extra) => {
    const requestParams = paramsObject(message.params, method);
    return executeRequest(request(extra, requestParams, resolve(requestParams)));
  });
  if (lane.lane === false) return;
  c.lane?.route(method, (params, extra) => {
    if (!asksForTask(params) || (lane.sdkWouldTake && !lane.sdkWouldTake(params!))) return null;
    const requestParams = params ?? {};
    const r = request(extra, requestParams, resolve(requestParams));
    const route = taskRouteOf(r);
    if (route.kind === 'direct') return null;
    const answer = runTask(r, route);
    return route.kind === SEP_1686 && lane.sepAnswer ? answer.then(lane.sepAnswer) : answer;
  });
}

const isPlainObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What the SDK 1.x `Server` does around every `tools/call` handler: it checks the request against
 * its `CallToolRequestSchema` (answering its own error), and a SEP-1686 answer (the tool's result)
 * against `CallToolResultSchema`, sending the parsed result (defaults added, unknown keys of
 * content blocks dropped). The lane checks the same fields by hand (a request that fails is left
 * to the SDK, for its own error) and parses a SEP-1686 answer as the SDK does.
 */
const SDK_TOOLS_CALL: LaneOptions = {
  sdkWouldTake: (p) => {
    if (typeof p['name'] !== 'string') return false;
    if (p['arguments'] !== undefined && !isPlainObject(p['arguments'])) return false;
    const task = p['task'];
    if (task === undefined) return true;
    if (!isPlainObject(task)) return false;
    const ttl = (task as Record<string, unknown>)['ttl'];
    return ttl === undefined || (typeof ttl === 'number' && Number.isFinite(ttl));
  },
  sepAnswer: (result) => {
    const parsed = CallToolResultSchema.safeParse(result);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${parsed.error.message}`);
    return parsed.data;
  },
};

/**
 * Installs `tools/list` and `tools/call`.
 *
 * @example
 * ```ts
 * installTools(server, connection, new Map([['sleep', sleepTool]]));
 * ```
 */
export function installTools(server: TaskHost, c: ConnectionContext, tools: ReadonlyMap<string, AnyTool>): void {
  const listed = [...tools.values()].map((t) => ({ ...describeTool(t), execution: { taskSupport: t.taskSupport ?? 'optional' } }));
  server.setRequestHandler(looseRequest('tools/list'), () => ({ tools: listed }));
  installRequest(
    server,
    c,
    'tools/call',
    (requestParams) => {
      const { tool, args } = resolveToolCall(tools, requestParams);
      return {
        label: tool.name,
        handler: workHandlerName(c.runtime, 'tools/call', tool.name, tool),
        taskSupport: tool.taskSupport ?? 'optional',
        params: args,
        direct: (ctx) => tool.run(args as never, ctx),
      };
    },
    SDK_TOOLS_CALL,
  );
}

/**
 * Installs `prompts/list` and `prompts/get`.
 *
 * @example
 * ```ts
 * installPrompts(server, connection, new Map([['greeting', greetingPrompt]]));
 * ```
 */
export function installPrompts(server: TaskHost, c: ConnectionContext, prompts: ReadonlyMap<string, TaskPromptDefinition>): void {
  const listed = [...prompts.values()].map((p) => ({
    name: p.name,
    ...(p.description !== undefined && { description: p.description }),
    ...(p.arguments !== undefined && { arguments: p.arguments }),
  }));
  server.setRequestHandler(looseRequest('prompts/list'), () => ({ prompts: listed }));
  installRequest(server, c, 'prompts/get', (requestParams) => {
    const { name, arguments: rawArgs = {} } = requestParams;
    const prompt = typeof name === 'string' ? prompts.get(name) : undefined;
    if (!prompt) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown prompt: ${String(name)}`);
    const args = z.record(z.string(), z.string()).safeParse(rawArgs);
    if (!args.success) throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for prompts/get: arguments must map names to strings');
    return {
      label: prompt.name,
      handler: workHandlerName(c.runtime, 'prompts/get', prompt.name, prompt),
      taskSupport: prompt.taskSupport ?? 'optional',
      params: args.data,
      direct: (ctx) => prompt.run(args.data, ctx),
    };
  });
}

/**
 * Installs `resources/list` and `resources/read`.
 *
 * @example
 * ```ts
 * installResources(server, connection, new Map([['demo://report', reportResource]]));
 * ```
 */
export function installResources(server: TaskHost, c: ConnectionContext, resources: ReadonlyMap<string, TaskResourceDefinition>): void {
  const listed = [...resources.values()].map((r) => ({
    uri: r.uri,
    name: r.name,
    ...(r.description !== undefined && { description: r.description }),
    ...(r.mimeType !== undefined && { mimeType: r.mimeType }),
  }));
  server.setRequestHandler(looseRequest('resources/list'), () => ({ resources: listed }));
  installRequest(server, c, 'resources/read', (requestParams) => {
    const { uri } = requestParams;
    const resource = typeof uri === 'string' ? resources.get(uri) : undefined;
    if (!resource) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown resource: ${String(uri)}`);
    return {
      label: resource.uri,
      handler: workHandlerName(c.runtime, 'resources/read', resource.uri, resource),
      taskSupport: resource.taskSupport ?? 'optional',
      params: {},
      direct: (ctx) => resource.run(resource.uri, ctx),
    };
  });
}
