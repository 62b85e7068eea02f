/**
 * What the task tools for hosts that speak no tasks (`host-task-tools.ts`) answer, in words a model
 * reads: every text says what to call next, and `structuredContent` carries the same facts for a
 * host that reads them. Statuses are shown as 2025-11-25 shows them (`submitted` as `working`,
 * `unknown` as `failed`).
 *
 * @module
 */
import type { InputRequest, TaskOutcome, TaskView } from '../../runtime/index.js';
import { suggestedPollInterval } from '../../runtime/index.js';
import { statusOf2025 } from '../dialects/2025-11-25/index.js';
import type { CallToolResult } from './mcp-shapes.js';

const json = (value: unknown): string => JSON.stringify(value);
const named = (task: TaskView): string => `${task.taskId}${task.label === null ? '' : ` (${task.label})`}`;

/**
 * A tool error a model reads (`isError: true`).
 *
 * @example
 * ```ts
 * toolError('No task t-1 of yours (no such task, or it expired).');
 * ```
 */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A task-capable tool's description as such a host sees it: how its call behaves.
 *
 * @example
 * ```ts
 * hostNote('Works for `seconds`.'); // 'Works for `seconds`. Runs in the background: …'
 * ```
 */
export function hostNote(description: string | undefined): string {
  const note = 'Runs in the background: the call answers at once with a task id; follow it with task_status and collect its result with task_result.';
  return description === undefined ? note : `${description} ${note}`;
}

/**
 * The answer to a plain call that started a task.
 *
 * @example
 * ```ts
 * started(task); // { content: [{ type: 'text', text: 'Started task 6f1c… (long_job). …' }], structuredContent: { taskId, status } }
 * ```
 */
export function started(task: TaskView): CallToolResult {
  const id = task.taskId;
  const text =
    `Started task ${named(task)}. It runs in the background: call task_status with ${json({ taskId: id })} to follow it, ` +
    'task_result to collect its result, task_cancel to stop it, task_respond to answer a question it asks.';
  return { content: [{ type: 'text', text }], structuredContent: { taskId: id, status: statusOf2025(task).status } };
}

/** One pending question, in words: what it asks and how to answer it. */
function question(taskId: string, input: InputRequest): string {
  const p = (input.params ?? {}) as Record<string, unknown>;
  if (input.method === 'elicitation/create') {
    const example = { taskId, response: { action: 'accept', content: { '…': '…' } } };
    return `It asks: ${json(p['message'] ?? '')} Answer with task_respond ${json(example)}, the content matching this schema: ${json(p['requestedSchema'] ?? {})} (or action "decline").`;
  }
  if (input.method === 'sampling/createMessage') {
    const example = { taskId, response: { role: 'assistant', content: { type: 'text', text: '…' }, model: '…' } };
    return `It asks for a model's reply to these messages: ${json(p['messages'] ?? [])}${typeof p['systemPrompt'] === 'string' ? ` (system prompt: ${json(p['systemPrompt'])})` : ''}. Answer with task_respond ${json(example)}.`;
  }
  return `It asks ${input.method} with ${json(p)}. Answer with task_respond ${json({ taskId, response: { '…': '…' } })}.`;
}

/**
 * How a task is: `task_status`'s answer, and `task_result`'s while the task is not done.
 *
 * @param pending - its pending input requests (when `input_required`), each shown with its question
 * @param notDone - worded as `task_result`'s "not done yet"
 * @example
 * ```ts
 * statusResult(task, await runtime.pendingInputRequests(id, owner), runtime.options.now());
 * ```
 */
export function statusResult(task: TaskView, pending: readonly InputRequest[], now: number, notDone = false): CallToolResult {
  const { status, statusMessage } = statusOf2025(task);
  const pollIntervalMs = suggestedPollInterval(task, now);
  const lines = [`${notDone ? `Task ${named(task)} is not done yet: it is` : `Task ${named(task)} is`} ${status}${statusMessage === null ? '' : ` (${statusMessage})`}.`];
  if (status === 'input_required') {
    lines.push(...pending.map((input) => question(task.taskId, input)));
    if (pending.length === 0) lines.push('Call task_status to see the question it asks.');
  } else if (status === 'working') {
    lines.push(`Check again in about ${pollIntervalMs} ms with task_status, or call task_result with ${json({ taskId: task.taskId, waitMs: 30_000 })} to wait for it.`);
  } else {
    lines.push(status === 'completed' ? 'Call task_result to collect its result.' : 'Call task_result for what it left.');
  }
  const inputRequests = pending.map((input) => ({ inputId: input.inputId, method: input.method, params: input.params }));
  return {
    content: [{ type: 'text', text: lines.join(' ') }],
    structuredContent: {
      taskId: task.taskId,
      status,
      ...(statusMessage !== null && { statusMessage }),
      pollIntervalMs,
      ...(inputRequests.length > 0 && { inputRequests }),
    },
  };
}

/**
 * `task_result`'s answer for an ended task: its own tool result as it is (`isError` kept), or,
 * when it left none, a tool error saying how it ended.
 *
 * @example
 * ```ts
 * outcomeResult(await runtime.outcome(taskId, owner)); // { content: [{ type: 'text', text: 'long_job done in 1 s' }] }
 * ```
 */
export function outcomeResult(outcome: TaskOutcome): CallToolResult {
  const result = outcome.result as Partial<CallToolResult> | null | undefined;
  if (outcome.hasResult && Array.isArray(result?.content)) return result as CallToolResult;
  // A task of another method (a prompt, a resource) of the same requester: its result, as JSON.
  if (outcome.hasResult) return { content: [{ type: 'text', text: json(outcome.result) }], ...(outcome.task.status !== 'completed' && { isError: true }) };
  const { task } = outcome;
  const { status, statusMessage } = statusOf2025(task);
  const why = task.error ?? statusMessage;
  return toolError(`Task ${named(task)} ended ${status}${why === null ? '' : `: ${why}`}. It left no result.`);
}

/**
 * The error for an answer that does not have the shape its question's method needs.
 *
 * @example
 * ```ts
 * answerShapeError('elicitation/create', '✖ Invalid option …');
 * ```
 */
export function answerShapeError(method: string, detail: string): string {
  const shape = method === 'elicitation/create' ? '{action: "accept"|"decline"|"cancel", content: {…}}' : '{role: "assistant", content: {type: "text", text}, model}';
  return `That answer does not fit the question (${method} needs ${shape}): ${detail}. The question is still open: answer again with task_respond.`;
}

/**
 * A task's status as these tools show it.
 *
 * @example
 * ```ts
 * shownStatus(task); // 'working'
 * ```
 */
export function shownStatus(task: TaskView): string {
  return statusOf2025(task).status;
}
