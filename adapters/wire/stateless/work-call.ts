/**
 * `tools/call`, `prompts/get` and `resources/read` on the 2026-07-28 wire. The server, not the
 * client, decides whether a request becomes a task: it does when the request declares the tasks
 * extension and the definition allows tasks; otherwise the work runs at once. The legacy
 * `params.task` is never read here.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { TaskOwner } from '../../../machines/index.js';
import { declaredInputCapabilities, refusedInput, type TaskRuntime, type TaskView } from '../../../runtime/index.js';
import { ANONYMOUS_OWNER } from '../../../runtime/task-identity.js';
import { declaresTasks, EXT_TASKS, renderTaskExt, TASKS_EXTENSION_ID } from '../../dialects/ext/index.js';
import type { BeforeTaskOutcome, RequestWorkContext } from '../definitions.js';
import { resolveWork, type ResolvedWork, type ServedDefinitions, type TaskableMethod } from '../served-work.js';
import { toJsonRpcError } from '../wire-errors.js';
import { missingCapability, type RequestMeta } from './wire.js';
import { pushOption } from '../../dialects/extension-meta.js';
import { raceOutcome, type InlineTimer } from './inline-answer.js';
import { unsentProgress } from '../progress-notifications.js';
import { askable } from '../input-delivery.js';

/** What a stateless request knows: the runtime, the tools, who asks and how to notice they left. */
export interface StatelessCall {
  readonly runtime: TaskRuntime;
  readonly served: ServedDefinitions;
  /** No sessions on this wire: see {@link ownerOf2026}. */
  readonly owner: TaskOwner;
  readonly meta: RequestMeta;
  /** Aborted when the requester goes away (a plain call then stops). */
  readonly signal: AbortSignal;
  /** The clock of the inline window ({@link raceOutcome}); the real one unless a test injects its own. */
  readonly timer?: InlineTimer;
}

/**
 * Whom a task of the 2026-07-28 wire belongs to. The wire has no sessions: an authenticated
 * requester's tasks are its principal's; over a connection that is one requester (stdio), that
 * connection's; otherwise (anonymous HTTP) {@link ANONYMOUS_OWNER}'s, which no session and no
 * listing reaches, so each such task is reachable by its id alone: a random UUID the server chose
 * and told only its creator (the spec lets a task id serve as a bearer handle).
 *
 * @param principal - the authenticated principal, or `null`
 * @param connection - the id of a connection that is one requester (stdio), or `null`
 * @param peer - the address an anonymous request came from, when the transport knows it (see `TaskOwner.peer`)
 * @example
 * ```ts
 * ownerOf2026('alice', null);  // { session: null, principal: 'alice' }
 * ownerOf2026(null, 'c-1');    // { session: 'c-1', principal: null }
 * ownerOf2026(null, null);     // ANONYMOUS_OWNER
 * ownerOf2026(null, null, '203.0.113.7'); // ANONYMOUS_OWNER's tasks, limits of 203.0.113.7
 * ```
 */
export function ownerOf2026(principal: string | null, connection: string | null, peer?: string): TaskOwner {
  if (principal !== null) return { session: null, principal };
  if (connection !== null) return { session: connection, principal: null };
  // Still everyone's owner (a task is reachable by its id alone); the address only keeps their limits and suspicion apart.
  return peer === undefined ? ANONYMOUS_OWNER : { ...ANONYMOUS_OWNER, peer };
}

/** The extension as a required capability, for -32021 errors. */
export const TASKS_REQUIRED = { extensions: { [TASKS_EXTENSION_ID]: {} } } as const;

/**
 * The context of a plain call on this wire. With no connection held open, the server cannot ask
 * the requester mid-call: work that needs input has to run as a task (input then goes through
 * `tasks/get` + `tasks/update`), so asking here answers -32021 naming the extension.
 */
function statelessWorkContext(signal: AbortSignal, tool: string): RequestWorkContext {
  const refuse = (): Promise<never> =>
    Promise.reject(missingCapability(TASKS_REQUIRED, `${tool} asks the requester for input, which this wire allows only inside a task; declare the tasks extension`));
  // No progress notifications on this wire (and no stream to carry them): checked, then dropped.
  return { taskId: null, signal, setStatusMessage: () => undefined, progress: unsentProgress(), elicit: refuse, sample: refuse };
}


/**
 * One SEP-2322 round of a tool's `beforeTask` hook: an `InputRequiredResult` (no task yet, so no
 * `taskId`), or the arguments to create the task with.
 */
function gatherBeforeTask(call: StatelessCall, work: ResolvedWork, args: unknown, inputResponses: unknown): Record<string, unknown> | { args: unknown } {
  const answers = typeof inputResponses === 'object' && inputResponses !== null && !Array.isArray(inputResponses) ? (inputResponses as Record<string, unknown>) : undefined;
  const next: BeforeTaskOutcome = work.beforeTask!(args as Record<string, unknown>, answers);
  if ('args' in next) return { args: next.args };
  for (const request of Object.values(next.inputRequests)) {
    const needed = refusedInput(request.method, declaredInputCapabilities(call.meta.clientCapabilities))?.capability;
    if (needed !== undefined) throw missingCapability({ [needed]: {} }, `${work.label} needs ${request.method} before it can start`);
  }
  return { resultType: 'input_required', inputRequests: next.inputRequests, ...(next.requestState !== undefined && { requestState: next.requestState }) };
}

/**
 * Answers one `tools/call`, `prompts/get` or `resources/read`: a flat `CreateTaskResult`
 * (`resultType: "task"`) stored durably before the reply, or the work's result with
 * `resultType: "complete"`: run at once without the extension, or, with it and an inline window
 * (`inlineWithinMs`), a task that completed within the window. This is the one place where that
 * race is run, for SDK v1's stateless handler and the SDK v2 embedding alike.
 *
 * @throws JsonRpcError -32602 for bad requests, -32021 for a required-task definition without the extension
 * @example
 * ```ts
 * await callStateless(call, 'tools/call', { name: 'sleep', arguments: { ms: 10 } }); // { resultType: 'task', taskId, … }
 * ```
 */
export async function callStateless(call: StatelessCall, method: TaskableMethod, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const work = resolveWork(call.served, call.runtime, method, params);
  let args = work.params;
  const declared = declaresTasks(call.meta.clientCapabilities);
  if (declared && work.taskSupport !== 'forbidden') {
    if (work.beforeTask) {
      const next = gatherBeforeTask(call, work, args, params['inputResponses']);
      if ('inputRequests' in next) return next;
      args = next.args;
    }
    let task: TaskView;
    try {
      // `create` resolves once tasks/get can find the task, on any node: the spec's "durable before reply".
      task = await call.runtime.create({
        taskId: randomUUID(),
        owner: call.owner,
        dialect: EXT_TASKS,
        method,
        label: work.label,
        handler: work.handler,
        params: args,
        ...pushOption(params),
        // This wire's capabilities are the request's own: what the work may ask is fixed now.
        ...askable(call.meta.clientCapabilities),
      });
    } catch (error) {
      throw toJsonRpcError(error, 'Failed to create task');
    }
    // Waited on, never run here: on NATS the work runs on a worker and this front hears its end.
    const { taskId } = task;
    const within = work.inlineWithinMs ?? 0;
    const outcome =
      within > 0
        ? await raceOutcome((signal) => call.runtime.waitForOutcome(taskId, call.owner, { signal, countsAsPoll: false }), within, {
            signal: call.signal,
            ...(call.timer !== undefined && { timer: call.timer }),
          })
        : null;
    // Inline only a result: any other end (failed, cancelled, a result too large to keep) is the
    // task's to tell through tasks/get, as it would have been without the window.
    if (outcome?.task.status === 'completed' && outcome.hasResult) return { ...(outcome.result as Record<string, unknown>), resultType: 'complete' };
    return { resultType: 'task', ...renderTaskExt(outcome?.task ?? task, call.runtime.options.now()) };
  }
  if (work.taskSupport === 'required') throw missingCapability(TASKS_REQUIRED, `${work.label} must run as a task`);
  try {
    const result = (await work.direct(statelessWorkContext(call.signal, work.label))) as Record<string, unknown>;
    return { ...result, resultType: 'complete' };
  } catch (error) {
    throw toJsonRpcError(error);
  }
}
