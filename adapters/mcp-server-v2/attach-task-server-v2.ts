/**
 * Hosts tasks inside an SDK v2 server (`@modelcontextprotocol/server` 2.x), in every dialect its
 * wire serves: the `io.modelcontextprotocol/tasks` extension on 2026-07-28, and the 2025-11-25
 * task methods for legacy-era clients. The work, the runtime, the dialect codecs and the answers
 * are the ones the SDK v1 embedding and `mcp-tasks serve` use; this file is the SDK v2 seam only.
 *
 * @module
 */
import { McpServer, specTypeSchemas, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { TaskRuntime } from '../../runtime/index.js';
import { renderTask2025, SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { TASKS_EXTENSION_ID } from '../dialects/ext/index.js';
import type { InlineAnswerOptions, RequestWorkContext, TaskServerDefinitions } from '../wire/definitions.js';
import { registerWork } from '../wire/register-work.js';
import { checkTaskSupport, paramsObject, taskRequest2025 } from '../wire/request-info.js';
import { describePrompt, describeResource, describeTool, resolveWork, servedDefinitions, type ResolvedWork, type ServedDefinitions, type TaskableMethod } from '../wire/served-work.js';
import { callStateless } from '../wire/stateless/work-call.js';
import type { StandaloneInputOptions } from '../wire/standalone-inputs.js';
import { JsonRpcError, toJsonRpcError } from '../wire/wire-errors.js';
import { isModern, withInputResponses } from './request-v2.js';
import { checkSpecParams } from './spec-params.js';
import { installTaskMethodsV2, register, type TaskMethodsV2 } from './task-methods-v2.js';
import { installedMcpHandlers, interceptHandlers, isRegistered, registeredNames, type WrappedHandler } from './v2-sdk-internals.js';
import { claimPlainMethods, guardPlainNames, PLAIN_KINDS, type PlainKind, type TaskNames } from '../wire/plain-names.js';
import { HOST_TASK_TOOL_NAMES, hostTaskTools } from '../wire/host-task-tools.js';
import { pushOption } from '../dialects/extension-meta.js';
import { traceConnections } from '../wire/traced-transport.js';
import type { KnownTargets } from '../wire/mcp-telemetry.js';
import { askable } from '../wire/input-delivery.js';
import { plainProgress, progressTokenOf } from '../wire/progress-notifications.js';

/** Options of {@link attachTaskServerV2}. */
export interface AttachTaskServerV2Options extends TaskServerDefinitions, InlineAnswerOptions {
  /** Where tasks live; share one runtime between all the server instances of an endpoint. */
  readonly runtime: TaskRuntime;
  /**
   * For 2025-11-25 requesters that never keep a `tasks/result` open while a task waits for input:
   * its input requests go out unattached (on a session's standalone GET stream) after `afterMs`
   * with no `tasks/result` open (`false`: never), and one with no answer after `giveBackAfterMs`
   * is withdrawn and sent again at the requester's next `tasks/get`. Only on connections that can
   * carry it (a Streamable HTTP session or stdio; never a stateless per-request instance).
   */
  readonly standaloneInput?: StandaloneInputOptions;
  /**
   * Serve 2025-11-25-era clients that declared no task support in `initialize` (neither the
   * `tasks` capability nor the tasks extension) tasks through tools: a call of a task-capable tool
   * starts its task and answers at once with the task id, and `task_status`, `task_result`,
   * `task_cancel` and `task_respond` follow it, bound to the requester that started it. Requests on
   * 2026-07-28, a request that asks for a task itself, and every client that declared tasks get the
   * protocol as it is.
   * @default false
   */
  readonly taskTools?: boolean;
}

const TASKABLE: ReadonlySet<string> = new Set<TaskableMethod>(['tools/call', 'prompts/get', 'resources/read']);

/** A plain (not task) request's context: input straight over the connection, on the legacy era only. */
function plainContext(ctx: ServerContext): RequestWorkContext {
  return {
    taskId: null,
    signal: ctx.mcpReq.signal,
    setStatusMessage: () => undefined,
    progress: plainProgress(progressTokenOf(ctx.mcpReq._meta), (n) => ctx.mcpReq.notify(n)),
    // The wire's shapes are the SDK's, read structurally: the seam hands them over as they are.
    elicit: (params) => ctx.mcpReq.elicitInput(params as never),
    sample: (params) => ctx.mcpReq.requestSampling(params as never) as never,
  };
}

/**
 * A legacy-era request that asks for a task (`params.task`): created under a fresh id and
 * answered at once with `CreateTaskResult`; `null` when the request does not ask for one.
 */
async function legacyTask(runtime: TaskRuntime, method: TaskableMethod, work: ResolvedWork, requestParams: Record<string, unknown>, ctx: ServerContext, methods: TaskMethodsV2) {
  const asked = taskRequest2025(requestParams);
  checkTaskSupport(work.label, work.taskSupport, asked !== undefined);
  if (!asked) return null;
  const owner = methods.ownerOf(ctx);
  const held = methods.connection(ctx);
  const taskId = crypto.randomUUID();
  // Watched from before it exists: its work starts at once and may change it before the reply.
  // A progress token stays valid for the task's whole life (2025-11-25 "Progress").
  const created = held?.notes.watch(taskId, owner, progressTokenOf(ctx.mcpReq._meta));
  let task;
  try {
    task = await runtime.create({ taskId, owner, dialect: SPEC_2025_11_25, method, label: work.label, keepAlive: asked.ttl, handler: work.handler, params: work.params, ...pushOption(requestParams), ...askable(methods.declared()) });
  } catch (error) {
    created?.(null, {});
    throw error;
  }
  created?.(task, {});
  return { task: renderTask2025(task, runtime.options.now()) };
}

/** The task tools' answer to a `tools/call`, or `null` when the request is not theirs. */
type Hosted = (params: Record<string, unknown>, ctx: ServerContext) => Promise<unknown> | null;

/** Whether the request names one of the adapter's own definitions. */
function isServed(served: ServedDefinitions, method: TaskableMethod, params: Record<string, unknown>): boolean {
  const name = params[method === 'resources/read' ? 'uri' : 'name'];
  if (typeof name !== 'string') return true; // ours to refuse, with the wording every wire uses
  return (method === 'tools/call' ? served.tools : method === 'prompts/get' ? served.prompts : served.resources).has(name);
}

/**
 * Answers a taskable request ahead of the SDK's result checks (which refuse a task as the result
 * of `tools/call`): a task or an input round on either era, and every 2026-07-28 request. `null`:
 * a plain legacy-era call, left to the SDK's own path (its result checks included).
 */
async function taskAnswer(runtime: TaskRuntime, served: ServedDefinitions, method: TaskableMethod, request: unknown, ctx: ServerContext, methods: TaskMethodsV2, hosted?: Hosted): Promise<unknown> {
  try {
    const requestParams = paramsObject((request as { params?: unknown }).params, method);
    // A host that speaks no tasks: the task tools' answer, ahead of everything (their names are no definition's).
    const host = method === 'tools/call' ? hosted?.(requestParams, ctx) : null;
    if (host) return await host;
    // Not one of ours (a prompt or resource the McpServer registered itself): the SDK's, as it is.
    if (!isServed(served, method, requestParams)) return null;
    // The checks the SDK's wrapper would run before its handler, which this answer goes ahead of.
    // 2026-07-28 has no `task` param (the server decides): a stray one is ignored, as `serve` does.
    if (isModern(ctx)) {
      const modernParams = { ...requestParams };
      delete modernParams['task'];
      checkSpecParams(specTypeSchemas, method, modernParams);
      return await callStateless(methods.call(ctx, served), method, withInputResponses(requestParams, ctx));
    }
    checkSpecParams(specTypeSchemas, method, requestParams);
    return await legacyTask(runtime, method, resolveWork(served, runtime, method, requestParams), requestParams, ctx, methods);
  } catch (error) {
    throw toJsonRpcError(error);
  }
}

/**
 * Makes an SDK v2 server host tasks: the given tools, prompts and resources may run as tasks, on
 * the 2026-07-28 wire through the tasks extension (`resultType: "task"`, `tasks/get`,
 * `tasks/update`, `tasks/cancel`) and on the 2025-11-25 wire through `params.task` and
 * `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`. Call it once per server instance,
 * before `connect` (in the factory `createMcpHandler` or `serveStdio` calls); all instances share
 * one runtime. Tasks belong to the authenticated principal (`authInfo.clientId`), or without one
 * to the 2025-11-25 session.
 *
 * On an `McpServer`, the tools, prompts and resources registered on it (before or after this
 * call) stay listed and callable as plain ones beside the task definitions; a name both would
 * serve is refused. A low-level `Server` that already serves the methods the definitions need
 * (`mcp.server` of an `McpServer` with tools, say) is refused: pass the `McpServer` itself.
 * Under `createMcpHandler`'s stateless legacy serving, a 2025-11-25 request has no session: it
 * gets tasks only with an authenticated principal.
 *
 * @param target - a v2 `Server`, or an `McpServer` (its `.server` is used), not yet connected
 * @param options - the runtime and the definitions to serve
 * @throws Error naming a tool, prompt or resource the `McpServer` serves under a task definition's name
 * @throws Error when a low-level `Server` already serves a method the definitions need: pass the `McpServer`
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/server';
 * // Both eras on one endpoint (a session per 2025-11-25 client: see createTaskHttpHandlerV2).
 * const endpoint = createTaskHttpHandlerV2(() => {
 *   const server = new McpServer({ name: 'reports', version: '1.0.0' });
 *   attachTaskServerV2(server, { runtime, tools: [reportTool] });
 *   return server;
 * });
 * ```
 */
export function attachTaskServerV2(target: Server | McpServer, options: AttachTaskServerV2Options): void {
  const server = target instanceof McpServer ? target.server : target;
  const { runtime } = options;
  const served = servedDefinitions(options);
  // The McpServer's own handlers, kept before any task one is installed (and before the wrapping
  // below, so that they run as the McpServer installed them).
  const hostTools = options.taskTools === true && served.tools.size > 0 ? hostTaskTools(runtime, served) : undefined;
  // The task tools' names are taken too: an McpServer tool of that name would never be reached.
  const names = { tools: new Set([...served.tools.keys(), ...(hostTools !== undefined ? HOST_TASK_TOOL_NAMES : [])]), prompts: new Set(served.prompts.keys()), resources: new Set(served.resources.keys()) };
  const own = target instanceof McpServer ? keepOwnHandlers(target, names) : {};
  if (!(target instanceof McpServer)) claimPlainMethods('attachTaskServerV2', server, names);
  const requests: Record<string, Record<string, object>> = {};
  if (served.tools.size > 0) requests['tools'] = { call: {} };
  if (served.prompts.size > 0) requests['prompts'] = { get: {} };
  if (served.resources.size > 0) requests['resources'] = { read: {} };
  // Both eras at once: each reads its own key (`tasks` on 2025-11-25, the extension on 2026-07-28);
  // the SDK advertises both to both (a 2025-11-25 client also sees `extensions`, which it ignores).
  server.registerCapabilities({
    tasks: { list: {}, cancel: {}, requests },
    extensions: { [TASKS_EXTENSION_ID]: {} },
    ...(served.tools.size > 0 && { tools: {} }),
    ...(served.prompts.size > 0 && { prompts: {} }),
    ...(served.resources.size > 0 && { resources: {} }),
  });
  registerWork(runtime, served.tools.values(), options);
  // What a span name or metric label may name: ours, the task tools, and the McpServer's own as they are now.
  const mcp = target instanceof McpServer ? target : undefined;
  const targets: KnownTargets = (kind, name) =>
    (kind === 'tool' ? served.tools.has(name) || (hostTools !== undefined && (HOST_TASK_TOOL_NAMES as readonly string[]).includes(name)) : served.prompts.has(name)) ||
    (mcp !== undefined && isRegistered(mcp, kind === 'tool' ? 'tools' : 'prompts', name));
  // A span per request, on whatever transport the SDK connects this instance to.
  traceConnections(server, targets);

  // A task is not a result the SDK's checks let through: taskable requests are answered here,
  // ahead of them; a plain legacy-era call goes on to the SDK's path, checks and all.
  interceptHandlers<ServerContext>(server, (method, sdkHandler) => {
    if (!TASKABLE.has(method)) return sdkHandler;
    return async (request, ctx) => (await taskAnswer(runtime, served, method as TaskableMethod, request, ctx, methods, hosted)) ?? sdkHandler(request, ctx);
  });
  // Read at each request: what the client declared in its initialize (unknown on a per-request instance).
  const hostServes = (ctx: ServerContext, params?: Record<string, unknown>): boolean => hostTools !== undefined && !isModern(ctx) && hostTools.serves(server.getClientCapabilities(), params);
  const hosted: Hosted | undefined =
    hostTools &&
    ((params, ctx) => {
      if (!hostServes(ctx, params)) return null;
      const owner = methods.ownerOf(ctx);
      return hostTools.call(params, { owner, ownerFor: () => owner, signal: ctx.mcpReq.signal });
    });

  const methods = installTaskMethodsV2(server, runtime, options.standaloneInput ?? {});

  const plain = (method: TaskableMethod, kept?: OwnHandlers) => async (params: Record<string, unknown>, ctx: ServerContext) => {
    // Not a task definition's name: the McpServer's own, as it would have answered it.
    if (kept && !isServed(served, method, params)) return kept.call({ method, params }, ctx).catch(keepProtocolError);
    try {
      return (await resolveWork(served, runtime, method, params).direct(plainContext(ctx))) as never;
    } catch (error) {
      throw toJsonRpcError(error);
    }
  };
  /** A list: the task definitions' entries, then the McpServer's own (asked each time: it may register more). */
  const list = (method: string, key: PlainKind, entries: (ctx: ServerContext) => unknown[], kept?: OwnHandlers) =>
    register(server, method, async (params, ctx) => {
      if (!kept) return { [key]: entries(ctx) };
      const theirs = (await kept.list({ method, params }, ctx)) as Record<string, unknown>;
      return { ...theirs, [key]: [...entries(ctx), ...(Array.isArray(theirs[key]) ? (theirs[key] as unknown[]) : [])] };
    });
  const listed = <T>(items: Iterable<T>, describe: (item: T) => unknown) => [...items].map(describe);
  if (served.tools.size > 0) {
    // 2025-11-25 says per tool whether it may run as a task; the extension has no such field.
    const modern = listed(served.tools.values(), describeTool);
    const legacy = listed(served.tools.values(), (t) => ({ ...describeTool(t), execution: { taskSupport: t.taskSupport ?? 'optional' } }));
    const hostLegacy = hostTools?.list(legacy);
    list('tools/list', 'tools', (ctx) => (isModern(ctx) ? modern : hostLegacy && hostServes(ctx) ? hostLegacy : legacy), own.tools);
    register(server, 'tools/call', plain('tools/call', own.tools));
  }
  if (served.prompts.size > 0) {
    const prompts = listed(served.prompts.values(), describePrompt);
    list('prompts/list', 'prompts', () => prompts, own.prompts);
    register(server, 'prompts/get', plain('prompts/get', own.prompts));
  }
  if (served.resources.size > 0) {
    const resources = listed(served.resources.values(), describeResource);
    list('resources/list', 'resources', () => resources, own.resources);
    register(server, 'resources/read', plain('resources/read', own.resources));
  }
}

/** An error of the McpServer's own handler, passed on with its JSON-RPC code (not as an internal error). */
function keepProtocolError(error: unknown): never {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e?.code === 'number' && typeof e.message === 'string') throw new JsonRpcError(e.code, e.message, e.data);
  throw error;
}

/** A v2 `McpServer`'s own handlers of one kind. */
interface OwnHandlers {
  readonly list: WrappedHandler<ServerContext>;
  readonly call: WrappedHandler<ServerContext>;
}

/**
 * Keeps a v2 `McpServer`'s own handlers for every kind the task definitions serve, and refuses a
 * name both would serve, now or registered later (`wire/plain-names.ts`).
 */
function keepOwnHandlers(mcp: McpServer, names: TaskNames): Partial<Record<PlainKind, OwnHandlers>> {
  const kinds = (Object.keys(PLAIN_KINDS) as PlainKind[]).filter((kind) => names[kind].size > 0);
  guardPlainNames('attachTaskServerV2', mcp, names, Object.fromEntries(kinds.map((kind) => [kind, registeredNames(mcp, kind)])));
  const kept: Partial<Record<PlainKind, OwnHandlers>> = {};
  for (const kind of kinds) {
    const [list, call] = installedMcpHandlers<ServerContext>(mcp, mcp.server, kind, [PLAIN_KINDS[kind].list, PLAIN_KINDS[kind].call]) as [WrappedHandler<ServerContext>, WrappedHandler<ServerContext>];
    kept[kind] = { list, call };
  }
  return kept;
}
