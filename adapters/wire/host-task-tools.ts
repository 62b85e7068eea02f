/**
 * Tasks for hosts that speak none. Most chat hosts (MCP clients) declare no task support, so a
 * task-capable tool would either block them for its whole run or (`required`) be refused. For such
 * a host the server lists each task-capable tool as a plain one whose call starts the task and
 * answers at once with its id, and four more tools to follow it: `task_status`, `task_result`,
 * `task_cancel` and `task_respond`. Each of them reads and acts as the requester that made the
 * task (the owner the task methods use), so no host reaches another's task. SDK-free: both SDK
 * lines serve these same answers; the texts are in `host-task-texts.ts`.
 *
 * @module
 */
import { z } from 'zod';
import type { TaskOwner } from '../../machines/index.js';
import { InvalidArgumentError, TaskExpiredError, TaskLimitError, TaskNotFoundError, TaskTerminalError, TaskTimeoutError, type TaskRuntime, type TaskView } from '../../runtime/index.js';
import { SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { declaresTasks } from '../dialects/ext/index.js';
import { TASK_META_KEY } from '../dialects/sep-1686/index.js';
import type { CallToolResult } from './mcp-shapes.js';
import { applyAnswer } from './input-delivery.js';
import { resolveWork, type ServedDefinitions } from './served-work.js';
import { answerShapeError, hostNote, outcomeResult, shownStatus, started, statusResult, toolError } from './host-task-texts.js';
import { JsonRpcCode, JsonRpcError, toJsonRpcError } from './wire-errors.js';

/** The four tools a host that speaks no tasks follows its tasks with. */
export const HOST_TASK_TOOL_NAMES = ['task_status', 'task_result', 'task_cancel', 'task_respond'] as const;

/** The longest `task_result` waits (`waitMs`): hosts give up on a tool call after about a minute. */
export const MAX_RESULT_WAIT_MS = 60_000;

const TaskId = z.string().min(1).max(1024).describe('The task id a started task answered with');
const ARGS = {
  task_status: z.object({ taskId: TaskId }),
  task_result: z.object({ taskId: TaskId, waitMs: z.number().int().min(0).max(MAX_RESULT_WAIT_MS).optional().describe(`Wait up to this many ms for the task to end (at most ${MAX_RESULT_WAIT_MS})`) }),
  task_cancel: z.object({ taskId: TaskId }),
  task_respond: z.object({
    taskId: TaskId,
    response: z.record(z.string(), z.unknown()).describe('The answer: for a question (elicitation) {action: "accept"|"decline"|"cancel", content}; for a model request (sampling) {role, content, model}'),
    inputId: z.string().optional().describe('Which pending question, when the task asks several (default: the oldest)'),
  }),
} as const;
type HostToolName = keyof typeof ARGS;

const DESCRIPTIONS: Readonly<Record<HostToolName, string>> = {
  task_status: "Tells how a background task is doing: its status, its progress message, and the question it asks when it waits for input (answer it with task_respond).",
  task_result: "Collects a background task's result once it is done (the tool's own result); if it is not done yet, says so. waitMs waits for it a while first.",
  task_cancel: 'Stops a background task.',
  task_respond: 'Answers the question a background task asks (when task_status says input_required).',
};

const LISTED = HOST_TASK_TOOL_NAMES.map((name) => ({ name, description: DESCRIPTIONS[name], inputSchema: z.toJSONSchema(ARGS[name], { io: 'input' }) }));

/**
 * Whether a client declared no task support at all in `initialize`: neither the `tasks`
 * capability (2025-11-25, and SEP-1686 as this project serves it) nor the tasks extension
 * (`extensions["io.modelcontextprotocol/tasks"]`). Capabilities not known (no `initialize` seen,
 * as on a per-request instance) count as declared: the protocol is left as it is.
 *
 * @example
 * ```ts
 * declaresNoTasks({ elicitation: {} }); // true
 * declaresNoTasks({ tasks: { list: {} } }); // false
 * ```
 */
export function declaresNoTasks(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return false;
  return !('tasks' in capabilities) && !declaresTasks(capabilities);
}

/** Whether a request asks for a task itself (`params.task`, SEP-1686 `_meta`): then it gets one, as the protocol says. */
function asksForTask(params: Record<string, unknown>): boolean {
  const meta = params['_meta'];
  return params['task'] !== undefined || (typeof meta === 'object' && meta !== null && TASK_META_KEY in meta);
}

/** Who calls a task tool, as the SDK adapter read it from the request. */
export interface HostRequester {
  /** The owner a task started now gets (the 2025-11-25 rule: the principal alone when there is one). */
  readonly owner: TaskOwner;
  /** The owner to look a task id up under: exactly the task methods' rule. */
  ownerFor(taskId: string): TaskOwner | Promise<TaskOwner>;
  /** A task started now, and its owner (for the connection's owner binding). */
  readonly started?: (taskId: string, owner: TaskOwner) => void;
  /** Aborted when the host cancels the call or leaves (ends a `task_result` wait). */
  readonly signal: AbortSignal;
}

/** A server's task tools for hosts that speak none (see {@link hostTaskTools}). */
export interface HostTaskTools {
  /** Whether a request is served by them: its client declared no tasks, and it asks for none itself. */
  serves(capabilities: unknown, params?: Record<string, unknown>): boolean;
  /** What `tools/list` shows such a host: `listed` (the normal listing) with task-capable tools made plain, then the four. */
  list(listed: readonly unknown[]): unknown[];
  /** Answers a `tools/call` of such a host; `null` for a tool it leaves to the normal path (`forbidden`, or not a task tool). */
  call(params: Record<string, unknown>, requester: HostRequester): Promise<CallToolResult> | null;
}

/**
 * The task tools of a server that serves `served`, over `runtime`.
 *
 * @throws Error when a served tool takes one of the four tools' names
 * @example
 * ```ts
 * const host = hostTaskTools(runtime, servedDefinitions({ tools }));
 * if (host.serves(clientCapabilities, params)) return (await host.call(params, requester)) ?? normal();
 * ```
 */
export function hostTaskTools(runtime: TaskRuntime, served: ServedDefinitions): HostTaskTools {
  for (const name of HOST_TASK_TOOL_NAMES) if (served.tools.has(name)) throw new Error(`taskTools: the tool '${name}' would be hidden by the task tool of that name; rename it`);
  const taskCapable = (name: unknown): boolean => typeof name === 'string' && (served.tools.get(name)?.taskSupport ?? 'forbidden') !== 'forbidden';
  return {
    serves: (capabilities, params = {}) => declaresNoTasks(capabilities) && !asksForTask(params),
    list: (listed) => [
      ...(listed as readonly Record<string, unknown>[]).map((entry) => {
        if (!taskCapable(entry['name'])) return entry;
        // No `execution`: called plainly, a `required` tool now works, and a careful host would refuse it so listed.
        const plain = { ...entry };
        delete plain['execution'];
        return { ...plain, description: hostNote(typeof entry['description'] === 'string' ? entry['description'] : undefined) };
      }),
      ...LISTED,
    ],
    call(params, requester) {
      const name = params['name'];
      if (typeof name === 'string' && Object.hasOwn(ARGS, name)) return toolCall(runtime, name as HostToolName, params['arguments'], requester);
      if (!taskCapable(name)) return null;
      return start(runtime, served, params, requester);
    },
  };
}

/** Starts the task a plain call names, and answers at once with its id. */
async function start(runtime: TaskRuntime, served: ServedDefinitions, params: Record<string, unknown>, requester: HostRequester): Promise<CallToolResult> {
  const work = resolveWork(served, runtime, 'tools/call', params);
  const taskId = crypto.randomUUID();
  const { owner } = requester;
  requester.started?.(taskId, owner);
  try {
    // The 2025-11-25 dialect: its owner rule, and a tool's isError ends the task failed, its result kept.
    const task = await runtime.create({ taskId, owner, dialect: SPEC_2025_11_25, method: 'tools/call', label: work.label, handler: work.handler, params: work.params });
    return started(task);
  } catch (error) {
    throw toJsonRpcError(error);
  }
}

/** One call of the four tools: arguments checked as any tool's, then the look-up under the caller's owner. */
async function toolCall(runtime: TaskRuntime, name: HostToolName, rawArgs: unknown, requester: HostRequester): Promise<CallToolResult> {
  const parsed = ARGS[name].safeParse(rawArgs ?? {});
  if (!parsed.success) throw new JsonRpcError(JsonRpcCode.invalidParams, `Invalid arguments for tool ${name}: ${z.prettifyError(parsed.error)}`);
  const args = parsed.data as { taskId: string; waitMs?: number; response?: Record<string, unknown>; inputId?: string };
  const { taskId } = args;
  const found = requester.ownerFor(taskId);
  const owner = found instanceof Promise ? await found : found;
  try {
    if (name === 'task_status') return await status(runtime, taskId, owner);
    if (name === 'task_result') return await result(runtime, taskId, owner, args.waitMs ?? 0, requester.signal);
    if (name === 'task_cancel') return await cancel(runtime, taskId, owner);
    return await respond(runtime, taskId, owner, args.response!, args.inputId);
  } catch (error) {
    // Another owner's task is as unknown as one that never was: the answer never tells them apart.
    if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) return toolError(`No task ${taskId} of yours (no such task, or it expired).`);
    if (error instanceof TaskLimitError) return toolError(error.message);
    throw toJsonRpcError(error);
  }
}

/** How the task is, with the questions it asks when it waits for input. */
async function status(runtime: TaskRuntime, taskId: string, owner: TaskOwner, known?: TaskView, notDone = false): Promise<CallToolResult> {
  const task = known ?? (await runtime.get(taskId, owner));
  const pending = task.status === 'input_required' ? await runtime.pendingInputRequests(taskId, owner) : [];
  return statusResult(task, pending, runtime.options.now(), notDone);
}

/** The outcome when ended; else, after waiting up to `waitMs` (less when the task asks a question meanwhile), how it is. */
async function result(runtime: TaskRuntime, taskId: string, owner: TaskOwner, waitMs: number, signal: AbortSignal): Promise<CallToolResult> {
  const now = await runtime.peek(taskId, owner);
  if ('ended' in now) return outcomeResult(now.ended);
  if (waitMs === 0 || now.running.status === 'input_required') return status(runtime, taskId, owner, now.running, true);
  // A question ends the wait: nobody answers it while this call waits.
  const asked = new AbortController();
  const unsubscribe = runtime.subscribe((change) => {
    if (change.task.status === 'input_required') asked.abort();
  }, { taskId, owner });
  try {
    return outcomeResult(await runtime.waitForOutcome(taskId, owner, { timeout: waitMs, signal: AbortSignal.any([signal, asked.signal]), countsAsPoll: false }));
  } catch (error) {
    if (!(error instanceof TaskTimeoutError) && !asked.signal.aborted) throw error;
    return status(runtime, taskId, owner, await runtime.get(taskId, owner, { countsAsPoll: false }), true);
  } finally {
    unsubscribe();
  }
}

async function cancel(runtime: TaskRuntime, taskId: string, owner: TaskOwner): Promise<CallToolResult> {
  try {
    const task = await runtime.cancel(taskId, owner, 'Cancelled by the host (task_cancel).');
    return { content: [{ type: 'text', text: `Cancelled task ${taskId}${task.label === null ? '' : ` (${task.label})`}.` }], structuredContent: { taskId, status: 'cancelled' } };
  } catch (error) {
    if (!(error instanceof TaskTerminalError)) throw error;
    const task = await runtime.get(taskId, owner, { countsAsPoll: false });
    return toolError(`Task ${taskId} already ended (${shownStatus(task)}): there is nothing to cancel. Call task_result to collect what it left.`);
  }
}

const ElicitAnswer = z.looseObject({ action: z.enum(['accept', 'decline', 'cancel']), content: z.record(z.string(), z.unknown()).optional() });
const SamplingAnswer = z.looseObject({ role: z.enum(['user', 'assistant']), content: z.looseObject({ type: z.string() }), model: z.string() });
const ANSWERS: Readonly<Record<string, z.ZodType>> = { 'elicitation/create': ElicitAnswer, 'sampling/createMessage': SamplingAnswer };

/** Hands the host's answer to the runtime, as a requester's answer over the wire is (`applyAnswer`). */
async function respond(runtime: TaskRuntime, taskId: string, owner: TaskOwner, response: Record<string, unknown>, inputId: string | undefined): Promise<CallToolResult> {
  const pending = await runtime.pendingInputRequests(taskId, owner);
  const input = inputId === undefined ? pending[0] : pending.find((p) => p.inputId === inputId);
  if (input === undefined) {
    const task = await runtime.get(taskId, owner, { countsAsPoll: false });
    const what = inputId === undefined ? 'is not waiting for an answer' : `asks no question ${inputId}`;
    return toolError(`Task ${taskId} ${what} (it is ${shownStatus(task)}). Call task_status to see what it needs.`);
  }
  // Checked here, so that a malformed answer is the host's to fix rather than the task's failure.
  const shape = ANSWERS[input.method]?.safeParse(response);
  if (shape && !shape.success) return toolError(answerShapeError(input.method, z.prettifyError(shape.error)));
  try {
    await applyAnswer(runtime, taskId, owner, input.inputId, { result: response });
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    return toolError(`Task ${taskId} is no longer waiting for that answer (answered already, or it ended). Call task_status to see how it is.`);
  }
  const task = await runtime.get(taskId, owner, { countsAsPoll: false });
  return { content: [{ type: 'text', text: `Answered task ${taskId}; it is ${shownStatus(task)} now. Call task_status to follow it, task_result to collect its result.` }], structuredContent: { taskId, status: shownStatus(task) } };
}
