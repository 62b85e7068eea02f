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
import type { TaskPromptDefinition, TaskResourceDefinition, TaskToolDefinition } from '../wire/definitions.js';
import type { FastLane } from './fast-lane.js';
import type { InputChannel } from '../wire/input-delivery.js';
import type { OwnerBinding } from '../wire/owner-binding.js';
import type { StandaloneInputs } from '../wire/standalone-inputs.js';
import type { ProgressSend, ProgressToken } from '../wire/progress-notifications.js';
import type { PlainHandlers } from './plain-registrations.js';
import { ownerOf, paramsObject, type RequestInfo } from '../wire/request-info.js';
import { ownerOf2025 } from '../wire/owner-binding.js';
import { hostTaskTools, type HostRequester } from '../wire/host-task-tools.js';
import type { ServerExtra, TaskHost } from './request-context.js';
import { asksForTask, executeRequest, runTask, taskRouteOf, type OpenTaskRequests } from './task-execution.js';
import { describePrompt, describeResource, describeTool, resolveWork, servedDefinitions, type ResolvedWork } from '../wire/served-work.js';

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
  readonly watch2025: (taskId: string, owner: TaskOwner, progressToken?: ProgressToken) => (created: TaskView | null, request: RequestInfo) => void;
  /** A `tasks/result` about a task is open: its progress goes over that request until the returned function is called. */
  readonly routeProgress?: (taskId: string, send: ProgressSend) => () => void;
  /** An answer on this connection told the requester how a 2025-11-25 task is: no notification repeats it. */
  readonly told2025?: (task: TaskView) => void;
  /** The connection's fast lane (task requests answered ahead of the SDK), if it has one. */
  readonly lane?: FastLane;
  /** Which owner each task id this connection names is bound to (see `owner-binding.ts`). */
  readonly binding: OwnerBinding;
  /** Input of 2025-11-25 tasks for requesters that keep no `tasks/result` open (server hosts only). */
  readonly standalone?: StandaloneInputs;
}

/** A request schema that accepts any params, so that we, not a schema library, word the errors. */
export const looseRequest = <M extends string>(method: M) =>
  z.object({ method: z.literal(method), params: z.unknown().optional() });

/** How a method is served on the fast lane, beyond the SDK's own handler. */
export interface LaneOptions {
  /** `false`: never on the lane (the SDK's handler checks what the lane would not). @default true */
  readonly lane?: boolean;
  /** What the SDK checks of the request before the handler: anything else is left to the SDK. */
  readonly sdkWouldTake?: (params: Record<string, unknown>) => boolean;
  /** What the SDK does to a SEP-1686 answer after the handler (a result check), done on the lane too. */
  readonly sepAnswer?: (result: Record<string, unknown>) => Record<string, unknown>;
  /**
   * The McpServer's own handler, for what no task definition serves (`isOurs` false): such a
   * request is handed to it as it came, on the SDK's path.
   */
  readonly plain?: { readonly call: PlainHandlers['call']; readonly isOurs: (params: Record<string, unknown>) => boolean };
  /** The task tools for a host that speaks no tasks: their answer, or `null` to go on as usual (SDK path only). */
  readonly host?: (params: Record<string, unknown>, extra: ServerExtra) => Promise<Record<string, unknown>> | null;
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
  const { plain, host } = lane;
  server.setRequestHandler(looseRequest(method), async (message, extra) => {
    const requestParams = paramsObject(message.params, method);
    const hosted = host?.(requestParams, extra);
    if (hosted) return hosted;
    if (plain && !plain.isOurs(requestParams)) return plain.call(message, extra);
    return executeRequest(request(extra, requestParams, resolve(requestParams)));
  });
  if (lane.lane === false) return;
  c.lane?.route(method, (params, extra) => {
    if (!asksForTask(params) || (lane.sdkWouldTake && !lane.sdkWouldTake(params!))) return null;
    if (plain && !plain.isOurs(params!)) return null;
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
 * @param taskTools - serve a client that declared no task support the task tools (see `host-task-tools.ts`)
 * @example
 * ```ts
 * installTools(server, connection, new Map([['sleep', sleepTool]]));
 * ```
 */
export function installTools(server: TaskHost, c: ConnectionContext, tools: ReadonlyMap<string, AnyTool>, plain?: PlainHandlers, taskTools = false): void {
  const listed = [...tools.values()].map((t) => ({ ...describeTool(t), execution: { taskSupport: t.taskSupport ?? 'optional' } }));
  const served = servedDefinitions({ tools: [...tools.values()] });
  const hostTools = taskTools ? hostTaskTools(c.runtime, served) : undefined;
  // Read at each request: a session restored on another node gets its client's capabilities back.
  const capabilities = (): unknown => (server as unknown as { getClientCapabilities(): unknown }).getClientCapabilities();
  const hostListed = hostTools?.list(listed);
  installList(server, 'tools/list', 'tools', () => (hostListed && hostTools!.serves(capabilities()) ? hostListed : listed), plain);
  const isOurs = (p: Record<string, unknown>): boolean => typeof p['name'] === 'string' && tools.has(p['name']);
  const host = hostTools && ((p: Record<string, unknown>, extra: ServerExtra) => (hostTools.serves(capabilities(), p) ? hostTools.call(p, hostRequester(c, extra)) : null));
  installRequest(server, c, 'tools/call', (requestParams) => resolveWork(served, c.runtime, 'tools/call', requestParams), { ...SDK_TOOLS_CALL, ...(plain && { plain: { call: plain.call, isOurs } }), ...(host && { host }) });
}

/** The caller of a task tool: owners by the rules the task methods use (see `owner-binding.ts`). */
function hostRequester(c: ConnectionContext, extra: ServerExtra): HostRequester {
  const owner = ownerOf(extra);
  return {
    owner: ownerOf2025(extra),
    ownerFor: (taskId) => (owner.principal !== null && owner.session !== null ? c.binding.ownerFor(taskId, extra) : owner),
    started: (taskId, created) => c.binding.remember(taskId, created),
    signal: extra.signal,
  };
}

/**
 * Installs a list method: the task definitions' entries, then the McpServer's own (`plain`),
 * asked at every request since the user may register more at any time.
 */
function installList(server: TaskHost, method: string, key: string, listing: readonly unknown[] | (() => readonly unknown[]), plain?: PlainHandlers): void {
  server.setRequestHandler(looseRequest(method), async (message, extra) => {
    const listed = typeof listing === 'function' ? listing() : listing;
    if (!plain) return { [key]: listed };
    const theirs = await plain.list(message, extra);
    return { ...theirs, [key]: [...listed, ...(Array.isArray(theirs[key]) ? (theirs[key] as unknown[]) : [])] };
  });
}

/**
 * Installs `prompts/list` and `prompts/get`.
 *
 * @example
 * ```ts
 * installPrompts(server, connection, new Map([['greeting', greetingPrompt]]));
 * ```
 */
export function installPrompts(server: TaskHost, c: ConnectionContext, prompts: ReadonlyMap<string, TaskPromptDefinition>, plain?: PlainHandlers): void {
  installList(server, 'prompts/list', 'prompts', [...prompts.values()].map(describePrompt), plain);
  const served = servedDefinitions({ prompts: [...prompts.values()] });
  const isOurs = (p: Record<string, unknown>): boolean => typeof p['name'] === 'string' && prompts.has(p['name']);
  installRequest(server, c, 'prompts/get', (requestParams) => resolveWork(served, c.runtime, 'prompts/get', requestParams), plain ? { plain: { call: plain.call, isOurs } } : {});
}

/**
 * Installs `resources/list` and `resources/read`.
 *
 * @example
 * ```ts
 * installResources(server, connection, new Map([['demo://report', reportResource]]));
 * ```
 */
export function installResources(server: TaskHost, c: ConnectionContext, resources: ReadonlyMap<string, TaskResourceDefinition>, plain?: PlainHandlers): void {
  installList(server, 'resources/list', 'resources', [...resources.values()].map(describeResource), plain);
  const served = servedDefinitions({ resources: [...resources.values()] });
  const isOurs = (p: Record<string, unknown>): boolean => typeof p['uri'] === 'string' && resources.has(p['uri']);
  installRequest(server, c, 'resources/read', (requestParams) => resolveWork(served, c.runtime, 'resources/read', requestParams), plain ? { plain: { call: plain.call, isOurs } } : {});
}
