/**
 * What a server serves, as every wire lists and resolves it: tools, prompts and resources, their
 * listings, and the check of a request's name and arguments. SDK-free, so that the SDK v1 and v2
 * embeddings and the stateless 2026-07-28 wire share one wording of every bad call, and none of
 * them turns bad arguments into a task.
 *
 * @module
 */
import { z } from 'zod';
import type { TaskRuntime } from '../../runtime/index.js';
import type { InlineAnswerOptions, RequestWorkContext, TaskPromptDefinition, TaskResourceDefinition, TaskServerDefinitions, TaskSupport, TaskToolDefinition } from './definitions.js';
import { JsonRpcCode, JsonRpcError } from './wire-errors.js';
import { workHandlerName } from './work-registry.js';

type AnyTool = TaskToolDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape

/** The methods whose requests may become tasks. */
export type TaskableMethod = 'tools/call' | 'prompts/get' | 'resources/read';

/** A server's definitions, by name (tools, prompts) or uri (resources). */
export interface ServedDefinitions {
  readonly tools: ReadonlyMap<string, AnyTool>;
  readonly prompts: ReadonlyMap<string, TaskPromptDefinition>;
  readonly resources: ReadonlyMap<string, TaskResourceDefinition>;
  /** The server's inline window on the 2026-07-28 wire (see {@link InlineAnswerOptions}); 0: off. */
  readonly inlineWithinMs?: number;
}

/**
 * Indexes the definitions a server was given.
 *
 * @example
 * ```ts
 * const served = servedDefinitions({ tools: [sleepTool] });
 * served.tools.get('sleep');
 * ```
 */
export function servedDefinitions(options: TaskServerDefinitions & InlineAnswerOptions): ServedDefinitions {
  // A bad window is a setup mistake: refused when the server is made, not at its first request.
  checkInlineWithin('inlineWithinMs', options.inlineWithinMs);
  for (const d of [...(options.tools ?? []), ...(options.prompts ?? []), ...(options.resources ?? [])]) checkInlineWithin(`inlineWithinMs of ${'uri' in d ? d.uri : d.name}`, d.inlineWithinMs);
  return {
    tools: new Map((options.tools ?? []).map((t) => [t.name, t])),
    prompts: new Map((options.prompts ?? []).map((p) => [p.name, p])),
    resources: new Map((options.resources ?? []).map((r) => [r.uri, r])),
    ...(options.inlineWithinMs !== undefined && { inlineWithinMs: options.inlineWithinMs }),
  };
}

function checkInlineWithin(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new TypeError(`${name} must be a non-negative number of ms, got ${String(value)}`);
}

/** How one request names its work: resolved from its params, before anything runs. */
export interface ResolvedWork {
  readonly label: string;
  readonly handler: string;
  readonly taskSupport: TaskSupport;
  readonly params: unknown;
  readonly direct: (ctx: RequestWorkContext) => Promise<unknown>;
  /** A tool's SEP-2322 hook (stateless wire only), see {@link TaskToolDefinition.beforeTask}. */
  readonly beforeTask?: AnyTool['beforeTask'];
  /** How long a 2026-07-28 request waits for this work before answering with a task: the definition's, else the server's; 0 or absent: no wait. */
  readonly inlineWithinMs?: number;
}

/**
 * A tool as `tools/list` shows it, without the wire-specific `execution` field (2025-11-25 adds
 * `taskSupport` there; the tasks extension defines no tool-level field).
 *
 * @example
 * ```ts
 * describeTool(sleepTool); // { name: 'sleep', description: '…', inputSchema: { type: 'object', … } }
 * ```
 */
export function describeTool(t: AnyTool): ToolDescription {
  let described = DESCRIBED.get(t);
  if (!described) DESCRIBED.set(t, (described = describe(t)));
  return described;
}

type ToolDescription = { name: string; title?: string; description?: string; inputSchema: { type: 'object' } };

/** Each definition's description, made once: a server built per request lists it again and again. */
const DESCRIBED = new WeakMap<AnyTool, ToolDescription>();

function describe(t: AnyTool): ToolDescription {
  return {
    name: t.name,
    ...(t.title !== undefined && { title: t.title }),
    ...(t.description !== undefined && { description: t.description }),
    inputSchema: z.toJSONSchema(t.inputSchema, { io: 'input' }) as { type: 'object' },
  };
}

/**
 * A prompt as `prompts/list` shows it.
 *
 * @example
 * ```ts
 * describePrompt(greeting); // { name: 'greeting', arguments: [{ name: 'name', required: true }] }
 * ```
 */
export function describePrompt(p: TaskPromptDefinition): Record<string, unknown> {
  return { name: p.name, ...(p.description !== undefined && { description: p.description }), ...(p.arguments !== undefined && { arguments: p.arguments }) };
}

/**
 * A resource as `resources/list` shows it.
 *
 * @example
 * ```ts
 * describeResource(report); // { uri: 'demo://report', name: 'report' }
 * ```
 */
export function describeResource(r: TaskResourceDefinition): Record<string, unknown> {
  return {
    uri: r.uri,
    name: r.name,
    ...(r.description !== undefined && { description: r.description }),
    ...(r.mimeType !== undefined && { mimeType: r.mimeType }),
  };
}

/**
 * The tool a `tools/call` names and its checked arguments.
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

const PromptArgs = z.record(z.string(), z.string());

/**
 * The work one request of a taskable method names, checked: which definition, which runtime
 * handler runs it as a task, and how it runs as a plain call.
 *
 * @throws JsonRpcError -32602 for an unknown name or uri, or invalid arguments
 * @example
 * ```ts
 * const work = resolveWork(served, runtime, 'prompts/get', { name: 'greeting', arguments: { name: 'Ada' } });
 * ```
 */
export function resolveWork(served: ServedDefinitions, runtime: TaskRuntime, method: TaskableMethod, requestParams: Record<string, unknown>): ResolvedWork {
  if (method === 'tools/call') {
    const { tool, args } = resolveToolCall(served.tools, requestParams);
    return {
      label: tool.name,
      handler: workHandlerName(runtime, 'tools/call', tool.name, tool),
      taskSupport: tool.taskSupport ?? 'optional',
      params: args,
      direct: (ctx) => tool.run(args as never, ctx),
      inlineWithinMs: tool.inlineWithinMs ?? served.inlineWithinMs ?? 0,
      ...(tool.beforeTask !== undefined && { beforeTask: tool.beforeTask }),
    };
  }
  if (method === 'prompts/get') {
    const { name, arguments: rawArgs = {} } = requestParams;
    const prompt = typeof name === 'string' ? served.prompts.get(name) : undefined;
    if (!prompt) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown prompt: ${String(name)}`);
    const args = PromptArgs.safeParse(rawArgs);
    if (!args.success) throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for prompts/get: arguments must map names to strings');
    return {
      label: prompt.name,
      handler: workHandlerName(runtime, 'prompts/get', prompt.name, prompt),
      taskSupport: prompt.taskSupport ?? 'optional',
      params: args.data,
      direct: (ctx) => prompt.run(args.data, ctx),
      inlineWithinMs: prompt.inlineWithinMs ?? served.inlineWithinMs ?? 0,
    };
  }
  const { uri } = requestParams;
  const resource = typeof uri === 'string' ? served.resources.get(uri) : undefined;
  if (!resource) throw new JsonRpcError(JsonRpcCode.invalidParams, `Unknown resource: ${String(uri)}`);
  return {
    label: resource.uri,
    handler: workHandlerName(runtime, 'resources/read', resource.uri, resource),
    taskSupport: resource.taskSupport ?? 'optional',
    params: {},
    direct: (ctx) => resource.run(resource.uri, ctx),
    inlineWithinMs: resource.inlineWithinMs ?? served.inlineWithinMs ?? 0,
  };
}
