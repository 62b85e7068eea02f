/**
 * The SDK-free, framework-free core of the agent framework adapters (`mcp-task-actors/ai-sdk`,
 * `/langchain`, `/openai-agents`, `/mastra`): which server tools become the framework's tools,
 * how one runs in `await` mode (a task followed to its result, its updates yielded as they come,
 * the framework's abort cancelling it, caps on the wait and on questions), and how a result reads
 * to a model. Each adapter only wraps these in its framework's own tool shape.
 *
 * @module
 */
import type { CallToolResult } from '../wire/mcp-shapes.js';
import type { TaskClientCore, ListedTool } from '../wire/task-client.js';
import type { TaskUpdate } from '../wire/task-call.types.js';
import type { RequesterInputRequest } from '../../machines/index.js';

/** What the adapters need of a task client: `TaskClient` and `TaskClientV2` both are one. */
export type AgentTaskClient = Pick<TaskClientCore, 'listTools' | 'callTool' | 'task' | 'getTask' | 'cancelTask'>;

/**
 * Answers what a task asks while an agent runs it (elicitation, sampling).
 *
 * @example
 * ```ts
 * const onInputRequest: AgentInputHandler = async ({ method }, { toolName }) =>
 *   method === 'elicitation/create' ? { action: 'accept', content: { name: `agent running ${toolName}` } } : { action: 'decline' };
 * ```
 */
export type AgentInputHandler = (
  request: RequesterInputRequest,
  context: { readonly toolName: string; readonly taskId: string | null; readonly signal: AbortSignal },
) => Promise<Record<string, unknown>>;

/**
 * Options of every adapter's `mcpTaskTools(client, options)`.
 *
 * @example
 * ```ts
 * const options: McpTaskToolsOptions = { mode: 'await', tools: ['long_job'], maxWaitMs: 60_000 };
 * ```
 */
export interface McpTaskToolsOptions {
  /**
   * `await`: a tool call runs the task to its result. `background`: it starts the task and answers
   * at once; `task_status`, `task_result`, `task_cancel` and `task_respond` follow it.
   * @default 'await'
   */
  readonly mode?: 'await' | 'background';
  /** The server tools to offer (by name); an unknown name is an error. @default every tool */
  readonly tools?: readonly string[];
  /** Answers what a task asks. Without it, a question fails the call (await) or waits for `task_respond` (background). */
  readonly onInputRequest?: AgentInputHandler;
  /** Await mode: the longest one call waits; past it the task is cancelled (best effort) and the call fails. @default 600000 */
  readonly maxWaitMs?: number;
  /** Await mode: questions one call may ask; past it the task is cancelled and the call fails. @default 5 */
  readonly maxInputRequests?: number;
}

/** A failed MCP tool call, as the framework's tool error: the message is what the model reads. */
export class AgentToolError extends Error {
  override readonly name = 'AgentToolError';
  /** The task (if it was one), and the result the server gave. */
  constructor(
    message: string,
    readonly taskId: string | undefined,
    readonly result: CallToolResult | undefined,
  ) {
    super(message);
  }
}

/** One server tool as the adapters offer it. */
export interface AgentToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly inputSchema: Record<string, unknown>;
  /** The server's own listing. */
  readonly listed: ListedTool;
}

/**
 * The server tools to offer, listed through the client, filtered by `options.tools`.
 *
 * @throws Error naming a requested tool the server does not list
 * @example
 * ```ts
 * const specs = await agentToolSpecs(tasks, { tools: ['sleep'] });
 * ```
 */
export async function agentToolSpecs(client: AgentTaskClient, options: McpTaskToolsOptions = {}): Promise<AgentToolSpec[]> {
  const listed = await client.listTools();
  const wanted = options.tools;
  if (wanted !== undefined) {
    const missing = wanted.filter((name) => !listed.some((t) => t.name === name));
    if (missing.length > 0) throw new Error(`mcpTaskTools: the server lists no tool ${missing.map((m) => `'${m}'`).join(', ')} (it lists ${listed.map((t) => t.name).join(', ')})`);
  }
  return listed
    .filter((t) => wanted === undefined || wanted.includes(t.name))
    .map((t) => ({ name: t.name, description: t.description ?? t.title ?? t.name, inputSchema: t.inputSchema, listed: t }));
}

/**
 * What a result says to a model: its text blocks, anything else as JSON.
 *
 * @example
 * ```ts
 * resultText({ content: [{ type: 'text', text: 'slept 10 ms' }] }); // 'slept 10 ms'
 * ```
 */
export function resultText(result: CallToolResult): string {
  const parts = result.content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : JSON.stringify(b)));
  if (result.structuredContent !== undefined && parts.length === 0) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}

/**
 * Runs one server tool in `await` mode: as a task when the server can run it as one, followed to
 * its result; yields each update as it comes and returns the result. The `signal` (the
 * framework's abort) cancels the task on the server.
 *
 * @throws AgentToolError when the tool or the task failed, was cancelled, waited past `maxWaitMs`
 *   or asked more than `maxInputRequests` questions (the last two cancel the task first)
 * @example
 * ```ts
 * const run = followTool(tasks, 'sleep', { ms: 100 }, { signal, options: {} });
 * for (let step = await run.next(); ; step = await run.next()) if (step.done) return step.value;
 * ```
 */
export async function* followTool(
  client: AgentTaskClient,
  toolName: string,
  args: Record<string, unknown>,
  context: { readonly signal?: AbortSignal | undefined; readonly options: McpTaskToolsOptions },
): AsyncGenerator<TaskUpdate, CallToolResult> {
  const { options } = context;
  const maxWaitMs = options.maxWaitMs ?? 600_000;
  const maxInputs = options.maxInputRequests ?? 5;
  const stop = new AbortController();
  // Why this side gave up (an object: closures set it, which narrowing cannot see).
  const gaveUp: { why: string | null } = { why: null };
  const giveUp = (reason: string): void => {
    gaveUp.why ??= reason;
    stop.abort(reason);
  };
  const onAbort = (): void => giveUp('the agent aborted the call');
  context.signal?.addEventListener('abort', onAbort, { once: true });
  if (context.signal?.aborted) onAbort();
  const timer = setTimeout(() => giveUp(`it did not end within ${maxWaitMs} ms (maxWaitMs)`), maxWaitMs);
  let asked = 0;
  const handler = options.onInputRequest;
  const call = client.callTool(
    { name: toolName, arguments: args },
    {
      signal: stop.signal,
      onInputRequest: async (request, ctx) => {
        asked++;
        if (asked > maxInputs) {
          giveUp(`it asked more than ${maxInputs} questions (maxInputRequests)`);
          throw new Error(`more than ${maxInputs} questions`);
        }
        if (handler === undefined) throw new Error(`${toolName} asks (${request.method}) and mcpTaskTools has no onInputRequest to answer it`);
        return handler(request, { toolName, taskId: ctx.taskId, signal: ctx.signal });
      },
    },
  );
  try {
    const outcome = call.result();
    outcome.catch(() => undefined);
    for await (const update of call.updates()) yield update;
    let result: CallToolResult;
    try {
      result = await outcome;
    } catch (error) {
      const task = call.taskId === undefined ? '' : ` (task ${call.taskId})`;
      throw new AgentToolError(gaveUp.why !== null ? `${toolName} was cancelled${task}: ${gaveUp.why}` : `${toolName} failed${task}: ${error instanceof Error ? error.message : String(error)}`, call.taskId, undefined);
    }
    if (result.isError === true) throw new AgentToolError(resultText(result) || `${toolName} failed`, call.taskId, result);
    return result;
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener('abort', onAbort);
    // The framework stopped iterating early (its own abort): the task goes with it.
    if (gaveUp.why === null && call.task !== null && !['completed', 'failed', 'cancelled'].includes(call.task.status)) void call.cancel('the agent stopped following the call').catch(() => undefined);
  }
}

/**
 * A short line for a framework's progress channel.
 *
 * @example
 * ```ts
 * updateText({ type: 'partial', seq: 1, content: [{ type: 'text', text: 'step 1 done' }] }); // 'partial 1: step 1 done'
 * ```
 */
export function updateText(update: TaskUpdate): string {
  switch (update.type) {
    case 'status':
      return `${update.task.status}${update.task.statusMessage ? `: ${update.task.statusMessage}` : ''}`;
    case 'progress':
      return `progress ${update.progress}${update.total === undefined ? '' : `/${update.total}`}${update.message ? ` ${update.message}` : ''}`;
    case 'partial':
      return `partial ${update.seq}: ${resultText({ content: (Array.isArray(update.content) ? update.content : [update.content]) as CallToolResult['content'] })}`;
    case 'subtask':
      return `subtask ${update.taskId}: ${update.status}`;
    case 'input':
      return `asks: ${update.method}`;
  }
}
