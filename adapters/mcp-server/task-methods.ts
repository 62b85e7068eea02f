/**
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/delete` (SEP-1686 §3.2–3.6): each reads the
 * request, calls one runtime method and renders the answer.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';
import type { TaskRuntime } from '../../runtime/index.js';
import { relatedMeta, renderTask, withRelatedMeta } from '../dialects/sep-1686/index.js';
import { ownerOf, paramsObject, taskIdParam, type ServerExtra } from './request-context.js';
import { JsonRpcCode, JsonRpcError, toJsonRpcError } from './wire-errors.js';

type Answer = Record<string, unknown>;

/** A request schema that accepts any params, so that we, not a schema library, word the errors. */
const looseRequest = <M extends string>(method: M) => z.object({ method: z.literal(method), params: z.unknown().optional() });

function handle<M extends string>(
  server: Server,
  method: M,
  answer: (params: unknown, extra: ServerExtra) => Promise<Answer>,
): void {
  server.setRequestHandler(looseRequest(method), async (request, extra) => {
    try {
      return await answer(request.params, extra);
    } catch (error) {
      throw toJsonRpcError(error);
    }
  });
}

/**
 * Installs the task methods on an SDK server. The server must declare the `tasks` capability.
 *
 * @param server - the SDK server (one per connection)
 * @param runtime - where the tasks live
 * @example
 * ```ts
 * server.registerCapabilities({ tasks: { list: {} } });
 * installTaskMethods(server, runtime);
 * ```
 */
export function installTaskMethods(server: Server, runtime: TaskRuntime): void {
  handle(server, 'tasks/get', async (params, extra) => {
    const taskId = taskIdParam(params, 'tasks/get');
    const task = await runtime.get(taskId, ownerOf(extra));
    return { ...renderTask(task), _meta: relatedMeta(taskId) };
  });

  handle(server, 'tasks/result', async (params, extra) => {
    const taskId = taskIdParam(params, 'tasks/result');
    const { result } = await runtime.result(taskId, ownerOf(extra));
    return withRelatedMeta(result, taskId);
  });

  handle(server, 'tasks/list', async (params, extra) => {
    const { cursor } = paramsObject(params, 'tasks/list');
    if (cursor !== undefined && typeof cursor !== 'string') {
      throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid cursor: expected a string');
    }
    const page = await runtime.list(ownerOf(extra), { cursor });
    const tasks = page.tasks.map(renderTask);
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  });

  handle(server, 'tasks/delete', async (params, extra) => {
    const taskId = taskIdParam(params, 'tasks/delete');
    await runtime.delete(taskId, ownerOf(extra));
    return { _meta: relatedMeta(taskId) };
  });
}
