/**
 * A LangChain.js tool served as a task tool (the LangChain adapter's other direction). Needs
 * `@langchain/core` (current major): to be loaded by the LangChain entry point once the peer
 * dependency is there, as the AI SDK's is.
 *
 * @module
 */
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ToolMessage } from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { TaskToolDefinition } from '../../wire/definitions.js';
import { frameworkTaskTool, type FrameworkToolOptions } from '../framework-tool.js';

/**
 * How a LangChain tool is served: by default under its own name and description.
 *
 * @example
 * ```ts
 * const options: LangChainToolOptions = { name: 'lookup', taskSupport: 'required' };
 * ```
 */
export type LangChainToolOptions = FrameworkToolOptions;

/**
 * What is used of a LangChain tool: any structured tool (`tool(...)` gives a union of a
 * structured and a string tool type, both of which fit).
 *
 * @example
 * ```ts
 * const served: LangChainTool = tool(async ({ id }) => id, { name: 'echo_id', schema: z.object({ id: z.string() }) });
 * ```
 */
export type LangChainTool = Pick<StructuredToolInterface, 'name' | 'description' | 'invoke'> & { readonly schema: unknown };

/** Whether a schema object is zod 4's: it shows its definition as `def` (zod 3 hides it). */
function isZod4(schema: Record<string, unknown>): boolean {
  return typeof schema['def'] === 'object' && schema['def'] !== null && typeof schema['safeParse'] === 'function';
}

/** A `ToolMessage` a tool may return itself: its content is the output. */
function contentOf(output: unknown): unknown {
  return ToolMessage.isInstance(output) ? output.content : output;
}

/**
 * Serves a LangChain tool (`tool(fn, { name, schema })`, a `StructuredTool`, a `DynamicStructuredTool`)
 * as a task tool definition, the shape `defineTaskTool` returns, for `attachTaskServer`,
 * `attachTaskServerV2` or `registerTaskWork`. It runs `tool.invoke(args, { signal })` with the
 * task's cancel as `signal` (LangChain rejects the call at once on abort, and hands the signal to
 * the tool's function in its config). Its output is the result (a string as text, an object as
 * JSON text and `structuredContent`); a thrown error is an `isError` result, which the model that
 * called the tool reads (a 2025-11-25 task with it ends `failed`).
 *
 * @param tool - a LangChain structured tool; its schema a zod object (v4 as it is, v3 through
 *   LangChain's own converter) or an object's JSON Schema
 * @param options - another name, description, task support
 * @throws InvalidArgumentError for a schema that is not an object's
 * @example
 * ```ts
 * import { tool } from '@langchain/core/tools';
 * import { z } from 'zod';
 * const lookup = tool(async ({ id }, config) => fetchRecord(id, config.signal), {
 *   name: 'lookup', description: 'Looks a record up', schema: z.object({ id: z.string() }),
 * });
 * attachTaskServer(server, { runtime, tools: [fromLangChainTool(lookup)] });
 * ```
 */
export function fromLangChainTool(tool: LangChainTool, options: LangChainToolOptions = {}): TaskToolDefinition {
  const schema: unknown = tool.schema;
  // zod v4 (it shows its definition as `def`) and a plain JSON Schema are used as they are; zod v3
  // and other standard schemas go through LangChain's converter.
  const record = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : null;
  const schemaLibrary = record !== null && (typeof record['safeParse'] === 'function' || '~standard' in record);
  const usable = record !== null && (!schemaLibrary || isZod4(record)) ? schema : toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]);
  const what = `LangChain tool '${tool.name}'`;
  return frameworkTaskTool({ name: tool.name, description: tool.description, schema: usable, what }, options, async (args, ctx) =>
    contentOf(await tool.invoke(args as never, { signal: ctx.signal })),
  );
}
