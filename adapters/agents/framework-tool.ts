/**
 * The other direction of the agent adapters: an agent framework's own tool served as a task tool.
 * The framework-free core the AI SDK (`fromAiSdkTool`) and LangChain (`fromLangChainTool`)
 * adapters share: the schema as a zod object, the call's output as a tool result, and a thrown
 * error as an `isError` result.
 *
 * Why `isError` and not a failed task: MCP reports a tool's own failure inside its result, so that
 * the model that called it reads what went wrong and can try again; and each wire then says it in
 * its own terms (a 2025-11-25 task with an `isError` result ends `failed`, a SEP-1686 or 2026-07-28
 * one `completed`), exactly as for a tool written with `defineTaskTool`. Only a cancel stays a
 * cancel: the task already ended `cancelled`, and what the tool threw on its abort is dropped.
 *
 * @module
 */
import { z } from 'zod';
import { InvalidArgumentError } from '../../runtime/index.js';
import type { RequestWorkContext, TaskSupport, TaskToolDefinition } from '../wire/definitions.js';
import type { CallToolResult } from '../wire/mcp-shapes.js';

/**
 * How a framework tool is served as a task tool.
 *
 * @example
 * ```ts
 * const options: FrameworkToolOptions = { name: 'weather', taskSupport: 'required' };
 * ```
 */
export interface FrameworkToolOptions {
  /** The MCP tool name. @default the framework tool's own name (required where it has none: the AI SDK) */
  readonly name?: string;
  /** A human-readable title for tool lists. @default none */
  readonly title?: string;
  /** @default the framework tool's own description */
  readonly description?: string;
  /** @default 'optional' */
  readonly taskSupport?: TaskSupport;
  /**
   * `'restart'` declares the tool safe to run again from the start when its worker is lost (on
   * NATS); a framework tool keeps no checkpoints, so it cannot `'resume'`.
   * @default 'never'
   */
  readonly retry?: 'never' | 'restart';
}

/** One call of the framework tool: its output, or a stream of outputs whose last one is the output. */
export type FrameworkCall = (args: Record<string, unknown>, ctx: RequestWorkContext) => unknown;

/** What {@link frameworkTaskTool} needs of an adapter. */
export interface FrameworkToolSpec {
  readonly name: string;
  readonly description: string | undefined;
  /** The framework's schema: a zod object, or a JSON Schema of an object. */
  readonly schema: unknown;
  /** Who is asking, for error messages ("AI SDK tool 'weather'"). */
  readonly what: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A zod (v4) object schema, by shape rather than class: the tool's author may have a zod copy of
 * their own. zod 4 shows its definition as `def` (zod 3 does not, and is left out).
 */
function isZodObject(schema: unknown): schema is z.ZodObject {
  if (!isRecord(schema)) return false;
  const def = schema['def'];
  return isRecord(def) && def['type'] === 'object' && typeof schema['safeParse'] === 'function';
}

/**
 * The tool's arguments schema as a zod object: the framework's zod object as it is, or one made
 * from a JSON Schema (what a tool defined with `jsonSchema(...)` or a JSON-schema LangChain tool has).
 *
 * @throws InvalidArgumentError when the schema is neither, or does not describe an object
 * @example
 * ```ts
 * const schema = toZodObject({ type: 'object', properties: { city: { type: 'string' } } }, "tool 'weather'");
 * ```
 */
export function toZodObject(schema: unknown, what: string): z.ZodObject {
  if (isZodObject(schema)) return schema;
  if (isRecord(schema) && (schema['type'] === 'object' || isRecord(schema['properties']))) {
    const made = z.fromJSONSchema(schema);
    if (isZodObject(made)) return made;
  }
  throw new InvalidArgumentError(`${what}: its input schema must be a zod object or the JSON Schema of an object`);
}

/**
 * A framework tool's output as a tool result: a string as its text; anything else as its JSON
 * text, and an object also as `structuredContent` (which MCP allows only for objects).
 *
 * @example
 * ```ts
 * toCallToolResult({ temperature: 21 }); // { content: [{ type: 'text', text: '{"temperature":21}' }], structuredContent: { temperature: 21 } }
 * ```
 */
export function toCallToolResult(output: unknown): CallToolResult {
  if (output === undefined) return { content: [] };
  if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
  // JSON has no text for a function, a symbol or a bigint: say what it was rather than nothing.
  const text = JSON.stringify(output) ?? `(${typeof output})`;
  return isRecord(output) ? { content: [{ type: 'text', text }], structuredContent: output } : { content: [{ type: 'text', text }] };
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> => typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * A task tool definition that runs `call`: the output becomes the result, each output of a
 * stream before the end an intermediate result (`ctx.partial`), a thrown error an `isError`
 * result (see the module comment).
 *
 * @param spec - name, description and schema as the framework has them
 * @param options - what the caller overrides
 * @param call - runs the framework tool once
 * @throws InvalidArgumentError for a schema that is not an object's
 * @example
 * ```ts
 * const definition = frameworkTaskTool({ name: 'add', description: 'Adds', schema, what: "tool 'add'" }, {}, (args) => tool.invoke(args));
 * ```
 */
export function frameworkTaskTool(spec: FrameworkToolSpec, options: FrameworkToolOptions, call: FrameworkCall): TaskToolDefinition {
  const name = options.name ?? spec.name;
  const description = options.description ?? spec.description;
  return {
    name,
    ...(options.title !== undefined && { title: options.title }),
    ...(description !== undefined && { description }),
    inputSchema: toZodObject(spec.schema, spec.what),
    taskSupport: options.taskSupport ?? 'optional',
    ...(options.retry !== undefined && { retry: options.retry }),
    run: async (args, ctx) => {
      try {
        const out = call(args, ctx);
        if (!isAsyncIterable(out)) return toCallToolResult(await out);
        let last: unknown;
        for await (const value of out) {
          last = value;
          // A streaming tool's outputs before its last are progress: kept as intermediate results.
          await ctx.partial?.(toCallToolResult(value).content);
        }
        return toCallToolResult(last);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
      }
    },
  };
}
