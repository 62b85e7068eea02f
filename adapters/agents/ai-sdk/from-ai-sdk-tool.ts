/**
 * An AI SDK tool served as a task tool (the AI SDK adapter's other direction), loaded by
 * `index.ts` once the peer dependency `ai` is there.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { asSchema, type Tool } from 'ai';
import { InvalidArgumentError } from '../../../runtime/index.js';
import type { TaskToolDefinition } from '../../wire/definitions.js';
import { frameworkTaskTool, type FrameworkToolOptions } from '../framework-tool.js';

/**
 * How an AI SDK tool is served ({@link FrameworkToolOptions} with the name it needs, since an AI
 * SDK tool has none of its own: its key in a `ToolSet` names it).
 *
 * @example
 * ```ts
 * const options: AiSdkToolOptions = { name: 'weather', context: { units: 'metric' } };
 * ```
 */
export interface AiSdkToolOptions extends FrameworkToolOptions {
  /** The MCP tool name (an AI SDK tool is named by its key in a `ToolSet`, so it has none). */
  readonly name: string;
  /** The `context` its `execute` (and a function `description`) gets. @default {} */
  readonly context?: unknown;
}

/**
 * Serves an AI SDK tool (`tool({ inputSchema, execute })`) as a task tool definition, the shape
 * `defineTaskTool` returns, for `attachTaskServer`, `attachTaskServerV2` or `registerTaskWork`.
 * Its `execute` gets the task's cancel as `abortSignal`, the task id as `toolCallId` and no
 * `messages` (an MCP call carries no conversation). Its output is the result (a string as text,
 * an object as JSON text and `structuredContent`); the outputs an async-generator `execute`
 * yields before its last are intermediate results; a thrown error is an `isError` result, which
 * the model that called the tool reads (a 2025-11-25 task with it ends `failed`).
 *
 * @param tool - an AI SDK tool with `execute`, its `inputSchema` a zod object or an object's JSON Schema
 * @param options - its MCP name (required), description, task support
 * @throws InvalidArgumentError for a tool without `execute` (provider tools run at the provider) or whose schema is not an object's
 * @example
 * ```ts
 * import { tool } from 'ai';
 * import { z } from 'zod';
 * import { fromAiSdkTool } from 'mcp-task-actors/ai-sdk';
 * const weather = tool({
 *   description: 'The weather in a city',
 *   inputSchema: z.object({ city: z.string() }),
 *   execute: async ({ city }, { abortSignal }) => (await fetch(`https://wttr.in/${city}?format=j1`, { signal: abortSignal })).json(),
 * });
 * attachTaskServer(server, { runtime, tools: [fromAiSdkTool(weather, { name: 'weather' })] });
 * ```
 */
export function fromAiSdkTool(tool: Tool, options: AiSdkToolOptions): TaskToolDefinition {
  const execute = tool.execute;
  const what = `AI SDK tool '${options.name}'`;
  if (execute === undefined) throw new InvalidArgumentError(`${what} has no execute: only a tool that runs here can be served`);
  const context: unknown = options.context ?? {};
  const description = typeof tool.description === 'function' ? tool.description({ context }) : tool.description;
  return frameworkTaskTool({ name: options.name, description, schema: schemaOf(tool, what), what }, options, (args, ctx) =>
    execute(args, { abortSignal: ctx.signal, toolCallId: ctx.taskId ?? randomUUID(), messages: [], context }),
  );
}

/** The tool's schema: its zod object, else its JSON Schema (a `jsonSchema(...)` or another standard schema). */
function schemaOf(tool: Tool, what: string): unknown {
  const schema: unknown = tool.inputSchema;
  // zod 4 shows its definition as `def`: used as it is.
  if (typeof schema === 'object' && schema !== null && 'def' in schema && 'safeParse' in schema) return schema;
  const json = asSchema(tool.inputSchema).jsonSchema;
  if (typeof json === 'object' && json !== null && 'then' in json) throw new InvalidArgumentError(`${what}: its JSON Schema is computed asynchronously; pass a zod object or a plain JSON Schema`);
  return json;
}
