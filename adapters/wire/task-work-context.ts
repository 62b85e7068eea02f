/**
 * What the work of a tool, prompt or resource can do while it runs as a task: report progress,
 * keep checkpoints, and ask the requester for input (elicitation, sampling) through the runtime,
 * the task being `input_required` while it waits. SDK-free: the same for every embedding.
 *
 * @module
 */
import { z } from 'zod';
import type { HandlerPosition } from '../../machines/index.js';
import { InvalidArgumentError, type MachineGraph, type TaskHandlerContext } from '../../runtime/index.js';
import type { RequestWorkContext } from './definitions.js';

type ElicitResult = Awaited<ReturnType<RequestWorkContext['elicit']>>;
type SamplingResult = Awaited<ReturnType<RequestWorkContext['sample']>>;

/** The shape of an elicitation answer, as MCP defines it (extra fields kept). */
const ElicitAnswer = z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
}) as unknown as z.ZodType<ElicitResult>;

/** The shape of a sampling answer, as MCP defines it (extra fields kept). */
const SamplingAnswer = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.unknown().refine((c) => c !== undefined, 'content is required'),
  model: z.string(),
}) as unknown as z.ZodType<SamplingResult>;

/** An answer the requester sent, checked against the schema of the method's result. */
function checked<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: Error } }, method: string, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`The requester's answer to ${method} is malformed: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * The context of work running as a task.
 *
 * @example
 * ```ts
 * runtime.registerHandler('tools/call:ask', (args, ctx) => tool.run(args, taskWorkContext(ctx)));
 * ```
 */
export function taskWorkContext(ctx: TaskHandlerContext, tools?: ReadonlyMap<string, SpawnableTool>): RequestWorkContext {
  return {
    taskId: ctx.taskId,
    owner: ctx.owner,
    // Read through: the runtime makes a task's AbortController only for work that asks for it.
    get signal() {
      return ctx.signal;
    },
    setStatusMessage: (m) => ctx.setStatusMessage(m),
    progress: (progress, total, message) => ctx.progress(progress, total, message),
    elicit: async (params) =>
      checked(ElicitAnswer, 'elicitation/create', await ctx.requestInput('elicitation/create', params)),
    sample: async (params) =>
      checked(SamplingAnswer, 'sampling/createMessage', await ctx.requestInput('sampling/createMessage', params)),
    attempt: ctx.attempt,
    resumeFrom: ctx.resumeFrom,
    // Only where it is kept: work skips building checkpoints that would go nowhere (memory).
    ...(ctx.durable && { checkpoint: (state: unknown, label?: string) => ctx.checkpoint(state, label) }),
    stepKey: (step?: number) => ctx.stepKey(step),
    spawnTask: async (tool, args, options) => ctx.spawnTask(`tools/call:${tool}`, checkedArgs(tools, tool, args), { label: tool, ...options }),
    waitForSubtasks: (subtasks, mode) => ctx.waitForSubtasks(subtasks, mode),
    partial: (content) => ctx.partial(content),
    ...(ctx.handlerState && { handlerState: (graph: MachineGraph, state: Omit<HandlerPosition, 'machine' | 'graph'>) => ctx.handlerState!(graph, state) }),
  };
}

/** What a subtask's tool needs to be checked: its arguments schema. */
export interface SpawnableTool {
  readonly inputSchema: { safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: Error } };
}

/**
 * A subtask's arguments, checked as a requester's would be (its tool's schema), so that a
 * subtask never runs what its tool would refuse. A tool of another server on the same runtime
 * (not in `tools`) is checked by its own run.
 */
function checkedArgs(tools: ReadonlyMap<string, SpawnableTool> | undefined, tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const definition = tools?.get(tool);
  if (definition === undefined) return args;
  const parsed = definition.inputSchema.safeParse(args);
  if (!parsed.success) throw new InvalidArgumentError(`Invalid arguments for subtask tool '${tool}': ${parsed.error.message}`);
  return parsed.data as Record<string, unknown>;
}

