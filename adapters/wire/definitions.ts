/**
 * What a task-hosting server serves: tools, prompts and resources whose work may run as a task.
 *
 * @module
 */
import type { CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, GetPromptResult, ReadResourceResult } from './mcp-shapes.js';
import type { z } from 'zod';
import type { HandlerPosition, TaskOwner } from '../../machines/index.js';
import type { MachineGraph, Subtask, TaskCheckpoint, TaskOutcome } from '../../runtime/index.js';

/**
 * Whether a request may (optional), must (required) or must not (forbidden) run as a task.
 *
 * @example
 * ```ts
 * const tool = { name: 'sleep', taskSupport: TaskSupport.optional };
 * ```
 */
export const TaskSupport = { forbidden: 'forbidden', optional: 'optional', required: 'required' } as const;
/** One task-support level. */
export type TaskSupport = (typeof TaskSupport)[keyof typeof TaskSupport];

/** What the work of a tool, prompt or resource gets while it runs. */
export interface RequestWorkContext {
  /** The task id, or `null` when the request was not task-augmented and runs as a plain call. */
  readonly taskId: string | null;
  /**
   * The requester the task belongs to (task ids are unique per owner only); absent for plain calls.
   * Lets work that reports about itself (a machine handler, to the inspector) name its task.
   */
  readonly owner?: TaskOwner;
  /** Aborted when the task (or the plain request) is cancelled. */
  readonly signal: AbortSignal;
  /** Sets the task's status message; a no-op for plain calls. */
  setStatusMessage(message: string): void;
  /**
   * Reports how far the work is (see `TaskHandlerContext.progress`): as a task, kept with it and
   * sent as `notifications/progress` for the task's life to a requester whose request carried a
   * `progressToken` (SEP-1686, 2025-11-25), shown in the status message on the 2026-07-28 wire; as
   * a plain call, sent at once when the request carried a token. A report whose `progress` does not
   * increase is dropped (`false`), as MCP wants it to increase with each notification.
   *
   * @throws InvalidArgumentError when `progress` or `total` is not a finite number
   */
  progress(progress: number, total?: number, message?: string): boolean;
  /**
   * Asks the requester to fill in a form (`elicitation/create`). As a task, the task is
   * `input_required` until the answer arrives; the request carries the related-task key.
   */
  elicit(params: ElicitRequestParams): Promise<ElicitResult>;
  /** Borrows the requester's model (`sampling/createMessage`); `input_required` while waiting. */
  sample(params: CreateMessageRequestParams): Promise<CreateMessageResult>;
  /** As a task: which run of it this is (more than 1 after a lost worker). Absent for plain calls. */
  readonly attempt?: number;
  /** As a task resumed after a lost worker: the last checkpoint kept (see `TaskHandlerContext`). */
  readonly resumeFrom?: TaskCheckpoint | null;
  /** As a task: keeps a checkpoint to resume from (see `TaskHandlerContext.checkpoint`). */
  checkpoint?(state: unknown, label?: string): Promise<boolean>;
  /** As a task: an idempotency key for an effect made now (see `TaskHandlerContext.stepKey`). */
  stepKey?(step?: number): string;
  /**
   * As a task: starts a subtask running tool `tool` with `args` (checked against the tool's
   * schema), a task of the same requester that names this one as its parent (see
   * `TaskHandlerContext.spawnTask`). Absent for plain calls.
   */
  spawnTask?(tool: string, args: Record<string, unknown>, options?: { readonly keepAlive?: number | null }): Promise<Subtask>;
  /** As a task: waits for subtasks (`'all'`, `'any'`, `'first-error'`; see `TaskHandlerContext.waitForSubtasks`). */
  waitForSubtasks?(subtasks: readonly Subtask[], mode?: 'all' | 'any' | 'first-error'): Promise<TaskOutcome[]>;
  /** As a task: publishes an intermediate result (see `TaskHandlerContext.partial`); `false` when not kept. */
  partial?(content: unknown): Promise<boolean>;
  /**
   * As a task: where the work's own state machine is, for operators (see
   * `TaskHandlerContext.handlerState`): `machineHandler` calls it; other work need not.
   */
  handlerState?(graph: MachineGraph, state: Omit<HandlerPosition, 'machine' | 'graph'>): void;
}

/**
 * A tool whose calls may become tasks.
 *
 * @example
 * ```ts
 * const sleep: TaskToolDefinition<{ ms: z.ZodNumber }> = {
 *   name: 'sleep',
 *   inputSchema: z.object({ ms: z.number() }),
 *   taskSupport: 'optional',
 *   run: async ({ ms }) => ({ content: [{ type: 'text', text: `slept ${ms} ms` }] }),
 * };
 * ```
 */
export interface TaskToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** Arguments schema; checked before any task is created, so bad arguments never become tasks. */
  readonly inputSchema: z.ZodObject<Shape, z.core.$ZodObjectConfig>;
  /** @default 'optional' */
  readonly taskSupport?: TaskSupport;
  /**
   * `'restart'` declares the tool safe to run again from the start (idempotent): on a cluster, a
   * task whose worker was lost is re-run elsewhere instead of ending `unknown`/`failed`.
   * `'resume'`: it runs again elsewhere from the last checkpoint its work kept (`ctx.checkpoint`;
   * a `machineHandler` keeps one at every state it enters).
   * @default 'never'
   */
  readonly retry?: 'never' | 'restart' | 'resume';
  /**
   * On the 2026-07-28 wire (tasks extension): how long a request waits for this work before it is
   * answered with a task; work that completes sooner is answered with its plain result. Overrides
   * the server's {@link InlineAnswerOptions.inlineWithinMs}; `0` always answers with a task.
   * @default the server's `inlineWithinMs` (off unless set)
   * @experimental
   */
  readonly inlineWithinMs?: number;
  run(args: z.output<z.ZodObject<Shape>>, ctx: RequestWorkContext): Promise<CallToolResult>;
  /**
   * On the stateless 2026-07-28 wire, gathers input before any task exists, through SEP-2322
   * rounds (`resultType: "input_required"`), then returns the arguments the task is created with.
   * `inputResponses` are the answers the client sent with this round (absent in round 1). The
   * session-based dialects never call it.
   * @experimental
   */
  readonly beforeTask?: (args: Readonly<Record<string, unknown>>, inputResponses: Readonly<Record<string, unknown>> | undefined) => BeforeTaskOutcome;
}

/**
 * What a tool's {@link TaskToolDefinition.beforeTask} hook answers: the input it still needs (one
 * more round), or the arguments to create the task with.
 *
 * @experimental
 * @example
 * ```ts
 * const next: BeforeTaskOutcome = { inputRequests: { user_name: { method: 'elicitation/create', params } } };
 * ```
 */
export type BeforeTaskOutcome =
  | { readonly inputRequests: Readonly<Record<string, { readonly method: string; readonly params: unknown }>>; readonly requestState?: string }
  | { readonly args: Readonly<Record<string, unknown>> };

/**
 * A prompt whose `prompts/get` may become a task.
 *
 * @example
 * ```ts
 * const greeting: TaskPromptDefinition = {
 *   name: 'greeting',
 *   arguments: [{ name: 'name', required: true }],
 *   run: async (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hi ${args['name']}` } }] }),
 * };
 * ```
 */
export interface TaskPromptDefinition {
  readonly name: string;
  readonly description?: string;
  readonly arguments?: readonly { readonly name: string; readonly description?: string; readonly required?: boolean }[];
  /** @default 'optional' */
  readonly taskSupport?: TaskSupport;
  /**
   * On the 2026-07-28 wire (tasks extension): how long a request waits for this work before it is
   * answered with a task; work that completes sooner is answered with its plain result. Overrides
   * the server's {@link InlineAnswerOptions.inlineWithinMs}; `0` always answers with a task.
   * @default the server's `inlineWithinMs` (off unless set)
   * @experimental
   */
  readonly inlineWithinMs?: number;
  run(args: Record<string, string>, ctx: RequestWorkContext): Promise<GetPromptResult>;
}

/**
 * A resource whose `resources/read` may become a task.
 *
 * @example
 * ```ts
 * const report: TaskResourceDefinition = {
 *   uri: 'demo://report', name: 'report',
 *   run: async (uri) => ({ contents: [{ uri, text: 'ok' }] }),
 * };
 * ```
 */
export interface TaskResourceDefinition {
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** @default 'optional' */
  readonly taskSupport?: TaskSupport;
  /**
   * On the 2026-07-28 wire (tasks extension): how long a request waits for this work before it is
   * answered with a task; work that completes sooner is answered with its plain result. Overrides
   * the server's {@link InlineAnswerOptions.inlineWithinMs}; `0` always answers with a task.
   * @default the server's `inlineWithinMs` (off unless set)
   * @experimental
   */
  readonly inlineWithinMs?: number;
  run(uri: string, ctx: RequestWorkContext): Promise<ReadResourceResult>;
}

/**
 * How a server answers on the 2026-07-28 wire, where it decides per request whether a request
 * becomes a task (the tasks extension): with `inlineWithinMs`, a request whose work completes
 * within that many ms is answered with its plain result (`resultType: "complete"`), a slower one
 * with its task (`resultType: "task"`) at that deadline while the work goes on. The task exists
 * either way (created, then waited on, so it runs where tasks run, a NATS worker included) and
 * is kept as long as any other; answered inline, its id was never told to the requester.
 * Only a `completed` end is answered inline: a failed or cancelled one is answered with its task,
 * whose `tasks/get` tells what went wrong. The other dialects ask for a task themselves and get
 * one. A definition's own `inlineWithinMs` wins over this one.
 *
 * @experimental
 * @example
 * ```ts
 * const stateless = createStatelessHandler({ runtime, info, tools: [sleep], inlineWithinMs: 500 });
 * ```
 */
export interface InlineAnswerOptions {
  /**
   * How long a 2026-07-28 request waits for its work before it is answered with a task; `0`
   * always answers with a task.
   * @default 0
   */
  readonly inlineWithinMs?: number;
}

/** Everything a task server serves. */
export interface TaskServerDefinitions {
  readonly tools?: readonly TaskToolDefinition<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape
  readonly prompts?: readonly TaskPromptDefinition[];
  readonly resources?: readonly TaskResourceDefinition[];
}

/**
 * A tool whose calls may become tasks, typed from its schema: `args` is what `inputSchema` parses
 * to, `taskSupport` keeps its literal type, and the result goes to `attachTaskServer` (SDK v1) or
 * `attachTaskServerV2` (SDK v2) as it is.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineTaskTool } from 'mcp-task-actors';
 * const sleep = defineTaskTool({
 *   name: 'sleep',
 *   inputSchema: z.object({ ms: z.number() }),
 *   taskSupport: 'optional',
 *   run: async ({ ms }, ctx) => {
 *     ctx.setStatusMessage(`sleeping ${ms} ms`);
 *     return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
 *   },
 * });
 * ```
 */
export function defineTaskTool<Shape extends z.ZodRawShape, const Support extends TaskSupport = 'optional'>(
  definition: TaskToolDefinition<Shape> & { readonly taskSupport?: Support },
): TaskToolDefinition<Shape> & { readonly taskSupport?: Support } {
  return definition;
}

/**
 * A prompt whose `prompts/get` may become a task, typed (see {@link defineTaskTool}).
 *
 * @example
 * ```ts
 * import { defineTaskPrompt } from 'mcp-task-actors';
 * const greeting = defineTaskPrompt({
 *   name: 'greeting',
 *   arguments: [{ name: 'name', required: true }],
 *   run: async (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hi ${args['name'] ?? ''}` } }] }),
 * });
 * ```
 */
export function defineTaskPrompt<const Support extends TaskSupport = 'optional'>(
  definition: TaskPromptDefinition & { readonly taskSupport?: Support },
): TaskPromptDefinition & { readonly taskSupport?: Support } {
  return definition;
}

/**
 * A resource whose `resources/read` may become a task, typed (see {@link defineTaskTool}).
 *
 * @example
 * ```ts
 * import { defineTaskResource } from 'mcp-task-actors';
 * const report = defineTaskResource({
 *   uri: 'demo://report',
 *   name: 'report',
 *   run: async (uri) => ({ contents: [{ uri, text: 'ok' }] }),
 * });
 * ```
 */
export function defineTaskResource<const Support extends TaskSupport = 'optional'>(
  definition: TaskResourceDefinition & { readonly taskSupport?: Support },
): TaskResourceDefinition & { readonly taskSupport?: Support } {
  return definition;
}
