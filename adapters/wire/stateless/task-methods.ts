/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` of the tasks extension. `tasks/get` inlines what
 * the old dialects spread over `tasks/result` and server→client requests (the outcome, the pending
 * input requests), so nothing holds a connection open; `tasks/update` answers input requests
 * through the runtime, which on NATS reaches the task from any node.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import { InvalidArgumentError, TaskTerminalError, type TaskView } from '../../../runtime/index.js';
import { checkRequest } from '../../../runtime/task-identity.js';
import { declaresTasks, renderDetailedTask, type TaskDetail } from '../../dialects/ext/index.js';
import { taskIdParam } from '../request-info.js';
import { JsonRpcCode, JsonRpcError, toJsonRpcError, wireErrorOf } from '../wire-errors.js';
import { TASKS_REQUIRED, type StatelessCall } from './work-call.js';
import { missingCapability } from './wire.js';
import { partialCursor, withPartials } from '../../dialects/extension-meta.js';

const ACK = { resultType: 'complete' } as const;
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);

/** Reads made to complete what one read of the task showed: part of that read, never charged again. */
const SAME_READ = { countsAsPoll: false } as const;

async function detailOf(call: StatelessCall, task: TaskView): Promise<{ task: TaskView; detail: TaskDetail }> {
  const { runtime, owner } = call;
  if (task.status === 'input_required') {
    const inputs = await runtime.pendingInputRequests(task.taskId, owner);
    // Answered between the two reads: show the task as it is now rather than an empty list.
    if (inputs.length === 0) return { task: await runtime.get(task.taskId, owner, SAME_READ), detail: {} };
    return { task, detail: { inputRequests: Object.fromEntries(inputs.map((i) => [i.inputId, { method: i.method, params: i.params }])) } };
  }
  if (!TERMINAL.has(task.status)) return { task, detail: {} };
  const outcome = await runtime.outcome(task.taskId, owner, SAME_READ);
  // The request's own result, as this wire words every result (SEP-2322): with its `resultType`.
  if (outcome.task.status === 'completed') return { task: outcome.task, detail: { result: { resultType: 'complete', ...(outcome.result as Record<string, unknown>) } } };
  if (outcome.task.status === 'cancelled') return { task: outcome.task, detail: {} };
  const { code, message, data } = wireErrorOf(outcome);
  return { task: outcome.task, detail: { error: data === undefined ? { code, message } : { code, message, data } } };
}

/**
 * What `tasks/get` shows for a task now (`DetailedTask`): also the body of each `notifications/tasks`.
 *
 * @example
 * ```ts
 * await detailedTask(call, await call.runtime.get(taskId, call.owner)); // { taskId, status: 'completed', result, … }
 * ```
 */
export async function detailedTask(call: StatelessCall, task: TaskView): Promise<Record<string, unknown>> {
  const shown = await detailOf(call, task);
  return renderDetailedTask(shown.task, shown.detail, call.runtime.options.now());
}

/**
 * Refuses a `tasks/update` whose `inputResponses` is not a map of answers.
 *
 * @throws JsonRpcError -32602 saying what `inputResponses` must be
 * @example
 * ```ts
 * checkInputResponses({ taskId, inputResponses: [] }); // throws -32602
 * ```
 */
export function checkInputResponses(params: Record<string, unknown>): void {
  const responses = params['inputResponses'];
  if (responses !== undefined && (typeof responses !== 'object' || responses === null || Array.isArray(responses))) {
    throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for tasks/update: inputResponses must map input request ids to responses');
  }
}

/**
 * Answers the pending input requests named in `inputResponses`; any other key is ignored, as the
 * spec says. An answer over `maxRequestBytes` refuses the whole update before any answer is
 * applied (an update is taken whole or not at all).
 */
async function applyUpdate(call: StatelessCall, taskId: string, params: Record<string, unknown>): Promise<void> {
  checkInputResponses(params);
  // Also the existence check: an unknown task is -32602 even with nothing to answer.
  const pending = new Set((await call.runtime.pendingInputRequests(taskId, call.owner)).map((i) => i.inputId));
  const answers = Object.entries((params['inputResponses'] ?? {}) as Record<string, unknown>).filter(([inputId]) => pending.has(inputId));
  for (const [, result] of answers) checkRequest(result, call.runtime.options.limits.maxRequestBytes, 'input answer');
  for (const [inputId, result] of answers) {
    // Applied before the ack, so a tasks/get right after it sees only the keys still open. A key
    // answered concurrently by another update is superseded, which the spec says to ignore; any
    // other refusal (a store that cannot take it) is the requester's answer: never acknowledged
    // and then dropped.
    await call.runtime.answerInput(taskId, call.owner, inputId, { result }).catch((error: unknown) => {
      if (!(error instanceof InvalidArgumentError)) throw error;
    });
  }
}

/**
 * Answers one extension task method.
 *
 * @throws JsonRpcError -32021 when the request did not declare the extension (checked before the
 *   task id), -32602 for a bad or unknown task id
 * @example
 * ```ts
 * await extTaskMethod(call, 'tasks/get', { taskId }); // { resultType: 'complete', taskId, status, … }
 * ```
 */
export async function extTaskMethod(call: StatelessCall, method: 'tasks/get' | 'tasks/update' | 'tasks/cancel', params: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!declaresTasks(call.meta.clientCapabilities)) throw missingCapability(TASKS_REQUIRED, `${method} belongs to the tasks extension; declare it on the request`);
  const taskId = taskIdParam(params, method);
  try {
    if (method === 'tasks/get') {
      const after = partialCursor(params);
      const task = await call.runtime.get(taskId, call.owner);
      const answer = { resultType: 'complete', ...(await detailedTask(call, task)) };
      return after === null ? answer : withPartials(answer, task, after);
    }
    if (method === 'tasks/update') {
      await applyUpdate(call, taskId, params);
      return { ...ACK };
    }
    // Cooperative: the ack says the request was received, whatever the task does with it. A task
    // already terminal gets the same ack (the request is idempotent).
    await call.runtime.cancel(taskId, call.owner, 'The task was cancelled by request.').catch((error: unknown) => {
      if (!(error instanceof TaskTerminalError)) throw error;
    });
    return { ...ACK };
  } catch (error) {
    throw toJsonRpcError(error);
  }
}
