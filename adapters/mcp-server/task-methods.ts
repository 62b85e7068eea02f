/**
 * `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` and `tasks/delete`: each reads the
 * request, calls one runtime method and renders the answer in the task's own dialect, whichever
 * dialect the asking requester speaks.
 *
 * @module
 */
import { TaskNotCompletedError, TaskTerminalError, type TaskOutcome, type TaskRuntime, type TaskView } from '../../runtime/index.js';
import { SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { renderInOwnDialect, withRelatedMetaFor } from '../dialects/index.js';
import { relatedMeta } from '../dialects/sep-1686/index.js';
import { deliverInputs, INPUT_REQUEST_TIMEOUT_MS, type InputChannel } from './input-delivery.js';
import type { FastLane } from './fast-lane.js';
import { AnyResultSchema, ownerOf, paramsObject, taskIdParam, type RequestInfo, type TaskHost } from './request-context.js';
import { looseRequest } from './request-handlers.js';
import { endedOutcome } from './task-execution.js';
import { JsonRpcCode, JsonRpcError, toJsonRpcError, wireErrorOf } from './wire-errors.js';

type Answer = Record<string, unknown>;

/** Installs `method` on the SDK and, when the connection has one, on its fast lane. */
function handle(server: TaskHost, lane: FastLane | undefined, method: string, answer: (params: unknown, extra: RequestInfo) => Promise<Answer>): void {
  const answered = async (params: unknown, extra: RequestInfo): Promise<Answer> => {
    try {
      return await answer(params, extra);
    } catch (error) {
      throw toJsonRpcError(error);
    }
  };
  server.setRequestHandler(looseRequest(method), (request, extra) => answered(request.params, extra));
  lane?.route(method, answered);
}

/** What `tasks/result` answers for an ended 2025-11-25 task: exactly what the request would have. */
function outcomeReply(outcome: TaskOutcome): Record<string, unknown> {
  if (outcome.hasResult) return withRelatedMetaFor(outcome.task, outcome.result);
  throw wireErrorOf(outcome);
}



/**
 * Installs the task methods on an SDK server. The server must declare the `tasks` capability.
 *
 * @param server - the SDK server (one per connection)
 * @param runtime - where the tasks live
 * @example
 * ```ts
 * server.registerCapabilities({ tasks: { list: {}, cancel: {} } });
 * installTaskMethods(server, runtime);
 * ```
 */
export function installTaskMethods(
  server: TaskHost,
  runtime: TaskRuntime,
  channel: InputChannel & { readonly lane?: FastLane; readonly told2025?: (task: TaskView) => void } = { inFlight: new Set(), peerSupports: () => true },
): void {
  const { lane, told2025 } = channel;
  /** What an answer says of a 2025-11-25 task, a status notification need not repeat. */
  const telling = (task: TaskView): void => {
    if (task.dialect === SPEC_2025_11_25) told2025?.(task);
  };
  handle(server, lane, 'tasks/get', async (params, extra) => {
    const task = await runtime.get(taskIdParam(params, 'tasks/get'), ownerOf(extra));
    telling(task);
    return renderInOwnDialect(task, { withMeta: true }, runtime.options.now());
  });

  handle(server, lane, 'tasks/result', async (params, extra) => {
    const taskId = taskIdParam(params, 'tasks/result');
    const owner = ownerOf(extra);
    // One request, one poll: the look-up is charged, the reads that complete it are not. Ended
    // already (the usual case for short work): that one look-up gives the whole answer.
    const now = await endedOutcome(runtime, taskId, owner, true);
    if ('ended' in now) {
      const ended = now.ended;
      telling(ended.task);
      if (ended.task.dialect === SPEC_2025_11_25) return outcomeReply(ended);
      // SEP-1686 answers only for completed tasks (§4.6).
      if (ended.task.status !== 'completed') throw new TaskNotCompletedError(taskId, ended.task.status);
      return withRelatedMetaFor(ended.task, ended.result);
    }
    const task = now.running;
    // SEP-1686 answers at once and only for completed tasks (§4.6): this one is still running.
    if (task.dialect !== SPEC_2025_11_25) throw new TaskNotCompletedError(taskId, task.status);
    // 2025-11-25 blocks until the task is terminal, then returns exactly what the request would
    // have. Meanwhile the task's input requests travel over this call (the spec's input_required flow).
    const stopInputs = deliverInputs(
      runtime,
      taskId,
      owner,
      (input, signal) =>
        // Through the host, not extra.sendRequest: the SDK would divert a request whose incoming
        // message carried a related-task key into a task message queue (the spec says to ignore it).
        server.request({ method: input.method, params: withRelatedMetaFor(task, input.params) }, AnyResultSchema, {
          relatedRequestId: extra.requestId,
          signal,
          timeout: INPUT_REQUEST_TIMEOUT_MS,
        }),
      channel,
    );
    let outcome;
    try {
      outcome = await runtime.waitForOutcome(taskId, owner, { signal: extra.signal, countsAsPoll: false });
    } finally {
      stopInputs();
    }
    telling(outcome.task);
    return outcomeReply(outcome);
  });

  handle(server, lane, 'tasks/list', async (params, extra) => {
    const { cursor } = paramsObject(params, 'tasks/list');
    if (cursor !== undefined && typeof cursor !== 'string') {
      throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid cursor: expected a string');
    }
    const page = await runtime.list(ownerOf(extra), { cursor });
    const now = runtime.options.now();
    const tasks = page.tasks.map((t) => renderInOwnDialect(t, { withMeta: false }, now));
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  });

  handle(server, lane, 'tasks/cancel', async (params, extra) => {
    const taskId = taskIdParam(params, 'tasks/cancel');
    const owner = ownerOf(extra);
    try {
      const task = await runtime.cancel(taskId, owner, 'The task was cancelled by request.');
      return renderInOwnDialect(task, { withMeta: true }, runtime.options.now());
    } catch (error) {
      if (error instanceof TaskTerminalError) {
        // Name the status as the requester knows it (2025-11-25 shows `unknown` as `failed`).
        // (The server's own read, to word the error: not a poll, never refused for the poll rate.)
        const shown = renderInOwnDialect(await runtime.get(taskId, owner, { countsAsPoll: false }), { withMeta: false }, runtime.options.now())['status'];
        throw new JsonRpcError(JsonRpcCode.invalidParams, `Cannot cancel task: already in terminal status '${String(shown)}'`);
      }
      throw error;
    }
  });

  handle(server, lane, 'tasks/delete', async (params, extra) => {
    const taskId = taskIdParam(params, 'tasks/delete');
    await runtime.delete(taskId, ownerOf(extra));
    return { _meta: relatedMeta(taskId) };
  });
}
