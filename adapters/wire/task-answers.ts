/**
 * What `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` and `tasks/delete` answer on the
 * session-based dialects (SEP-1686 and 2025-11-25): each reads the request, calls one runtime
 * method and renders the answer in the task's own dialect. SDK-free: the SDK v1 and v2
 * embeddings install these same answers.
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import { TaskNotCompletedError, TaskTerminalError, type TaskOutcome, type TaskRuntime, type TaskView } from '../../runtime/index.js';
import { openCallOf } from '../../runtime/core/drain.js';
import { isSession2025, renderInOwnDialect, withRelatedMetaFor } from '../dialects/index.js';
import { relatedMeta } from '../dialects/sep-1686/index.js';
import { deliverInputs, type InputChannel, type InputSender } from './input-delivery.js';
import { paramsObject, taskIdParam } from './request-info.js';
import { JsonRpcCode, JsonRpcError, wireErrorOf } from './wire-errors.js';
import { partialCursor, withPartials } from '../dialects/extension-meta.js';

type Answer = Record<string, unknown>;

/** What `tasks/result` answers for an ended 2025-11-25 task: exactly what the request would have. */
function outcomeReply(outcome: TaskOutcome): Answer {
  if (outcome.hasResult) return withRelatedMetaFor(outcome.task, outcome.result);
  throw wireErrorOf(outcome);
}

/** A cursor over several owners' listings: which owner, and the cursor within its listing. */
function joinCursor(owners: number, index: number, inner: string | undefined): string | undefined {
  if (owners === 1) return inner;
  return Buffer.from(JSON.stringify([index, inner ?? null])).toString('base64url');
}

/** The owner and inner cursor a composite cursor names (none: the first owner, from the start). */
function splitCursor(cursor: string | undefined, owners: number): [number, string | undefined] {
  if (cursor === undefined) return [0, undefined];
  try {
    const [index, inner] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (Number.isInteger(index) && (index as number) >= 0 && (index as number) < owners && (inner === null || typeof inner === 'string')) return [index as number, inner ?? undefined];
  } catch {
    // Not one of ours: refused below, as any cursor this server did not give.
  }
  throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid cursor: not a cursor this server gave');
}

/** How one `tasks/result` call reaches its requester while it waits. */
export interface ResultChannel extends InputChannel {
  /** Sends one input request over this call (the spec's input_required flow). */
  readonly send: (task: TaskView) => InputSender;
  /** Aborted when the requester cancels the call or leaves. */
  readonly signal: AbortSignal;
  /** An answer told the requester how a 2025-11-25 task is: a status notification need not repeat it. */
  readonly told2025?: (task: TaskView) => void;
  /**
   * Called once the call knows the task is still running, before it waits (input channels hand
   * over); the result is called when the call ends, saying whether the task ended.
   */
  readonly waiting?: (task: TaskView) => (ended: boolean) => void;
}

/**
 * The task session dialects' answers, bound to one runtime.
 *
 * @example
 * ```ts
 * const answers = taskAnswers(runtime);
 * await answers.get({ taskId }, owner); // { taskId, status: 'working', … }
 * ```
 */
export function taskAnswers(runtime: TaskRuntime) {
  const now = (): number => runtime.options.now();
  return {
    async get(params: unknown, owner: TaskOwner): Promise<{ answer: Answer; task: TaskView }> {
      const after = partialCursor(params);
      const task = await runtime.get(taskIdParam(params, 'tasks/get'), owner);
      const answer = renderInOwnDialect(task, { withMeta: true }, now());
      return { answer: after === null ? answer : withPartials(answer, task, after), task };
    },

    async result(params: unknown, owner: TaskOwner, channel: ResultChannel): Promise<Answer> {
      const taskId = taskIdParam(params, 'tasks/result');
      const telling = (task: TaskView): void => {
        if (isSession2025(task)) channel.told2025?.(task);
      };
      // One request, one poll: the look-up is charged, the reads that complete it are not. Ended
      // already (the usual case for short work): that one look-up gives the whole answer.
      const first = await runtime.peek(taskId, owner);
      if ('ended' in first) {
        const ended = first.ended;
        telling(ended.task);
        if (isSession2025(ended.task)) return outcomeReply(ended);
        // SEP-1686 answers only for completed tasks (§4.6).
        if (ended.task.status !== 'completed') throw new TaskNotCompletedError(taskId, ended.task.status);
        return withRelatedMetaFor(ended.task, ended.result);
      }
      const task = first.running;
      // SEP-1686 answers at once and only for completed tasks (§4.6): this one is still running.
      if (!isSession2025(task)) throw new TaskNotCompletedError(taskId, task.status);
      // 2025-11-25 blocks until the task is terminal, then returns exactly what the request would
      // have. Meanwhile the task's input requests travel over this call (the spec's input_required flow).
      const stopInputs = deliverInputs(runtime, taskId, owner, channel.send(task), channel);
      const handedOver = channel.waiting?.(task);
      // A drain's deadline ends the wait with -32030 (see OpenCall): never a cut connection.
      const open = openCallOf(runtime);
      let outcome;
      try {
        outcome = await runtime.waitForOutcome(taskId, owner, { signal: AbortSignal.any([channel.signal, open.signal]), countsAsPoll: false });
      } finally {
        open.close();
        stopInputs();
        handedOver?.(outcome !== undefined);
      }
      telling(outcome.task);
      return outcomeReply(outcome);
    },

    /**
     * One page of the requester's tasks. With several owners (an authenticated requester's session
     * tasks and its principal's), their listings follow one another; the cursor says where.
     */
    async list(params: unknown, owner: TaskOwner | readonly TaskOwner[]): Promise<Answer> {
      const { cursor } = paramsObject(params, 'tasks/list');
      if (cursor !== undefined && typeof cursor !== 'string') {
        throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid cursor: expected a string');
      }
      const owners = Array.isArray(owner) ? (owner as readonly TaskOwner[]) : [owner as TaskOwner];
      let [index, inner] = owners.length === 1 ? [0, cursor] : splitCursor(cursor, owners.length);
      for (;;) {
        const page = await runtime.list(owners[index]!, { cursor: inner });
        const at = now();
        const tasks = page.tasks.map((t) => renderInOwnDialect(t, { withMeta: false }, at));
        const last = index === owners.length - 1;
        const next = page.nextCursor !== undefined ? joinCursor(owners.length, index, page.nextCursor) : last ? undefined : joinCursor(owners.length, index + 1, undefined);
        // Nothing more from this owner: go on to the next one rather than answer an empty page.
        if (tasks.length === 0 && page.nextCursor === undefined && !last) {
          [index, inner] = [index + 1, undefined];
          continue;
        }
        return next === undefined ? { tasks } : { tasks, nextCursor: next };
      }
    },

    async cancel(params: unknown, owner: TaskOwner): Promise<Answer> {
      const taskId = taskIdParam(params, 'tasks/cancel');
      try {
        const task = await runtime.cancel(taskId, owner, 'The task was cancelled by request.');
        return renderInOwnDialect(task, { withMeta: true }, now());
      } catch (error) {
        if (error instanceof TaskTerminalError) {
          // Name the status as the requester knows it (2025-11-25 shows `unknown` as `failed`).
          // (The server's own read, to word the error: not a poll, never refused for the poll rate.)
          const shown = renderInOwnDialect(await runtime.get(taskId, owner, { countsAsPoll: false }), { withMeta: false }, now())['status'];
          throw new JsonRpcError(JsonRpcCode.invalidParams, `Cannot cancel task: already in terminal status '${String(shown)}'`);
        }
        throw error;
      }
    },

    async delete(params: unknown, owner: TaskOwner): Promise<Answer> {
      const taskId = taskIdParam(params, 'tasks/delete');
      await runtime.delete(taskId, owner);
      return { _meta: relatedMeta(taskId) };
    },
  };
}
