/**
 * `subscriptions/listen` for task status (SEP-2575 + the tasks extension): a long-lived stream on
 * which the server pushes `notifications/tasks`, each the full `DetailedTask` that `tasks/get`
 * would return at that moment. Only tasks the client names, only when it declared the extension.
 * A notification also carries the task's intermediate results the stream has not carried yet
 * (`_meta["io.github.mcp-task-actors/partial"]`), and a task nothing was pushed about for the
 * runtime's `heartbeatMs` is pushed again (a heartbeat for clients with short idle timeouts).
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import type { Implementation } from '../mcp-shapes.js';
import { TaskLimitError } from '../../../runtime/index.js';
import { declaresTasks } from '../../dialects/ext/index.js';
import { JsonRpcCode, JsonRpcError } from '../wire-errors.js';
import { detailedTask } from './task-methods.js';
import { TASKS_REQUIRED, type StatelessCall } from './work-call.js';
import { missingCapability, RequestMetaKey, type StatelessReply } from './wire.js';
import { withPartials } from '../../dialects/extension-meta.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The `notifications.taskIds` asked for, or `undefined` when the client asked for none. */
function requestedTaskIds(params: Record<string, unknown>): string[] | undefined {
  const notifications = params['notifications'];
  if (typeof notifications !== 'object' || notifications === null || Array.isArray(notifications)) {
    throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for subscriptions/listen: notifications must be an object');
  }
  const ids = (notifications as { taskIds?: unknown }).taskIds;
  if (ids === undefined) return undefined;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new JsonRpcError(JsonRpcCode.invalidParams, 'Invalid params for subscriptions/listen: notifications.taskIds must be an array of task ids');
  }
  return ids;
}

/**
 * The task ids a `subscriptions/listen` asks status notifications for (`undefined`: none), refused
 * unless the request declared the tasks extension (the extension's MUST).
 *
 * @throws JsonRpcError -32021 when task ids are asked for without the extension, -32602 for bad params
 * @example
 * ```ts
 * checkTaskSubscription({ notifications: { taskIds: ['t1'] } }, { extensions: { 'io.modelcontextprotocol/tasks': {} } }); // ['t1']
 * ```
 */
export function checkTaskSubscription(params: Record<string, unknown>, clientCapabilities: Record<string, unknown>): string[] | undefined {
  const requested = requestedTaskIds(params);
  if (requested !== undefined && !declaresTasks(clientCapabilities)) throw missingCapability(TASKS_REQUIRED, 'task status notifications belong to the tasks extension');
  return requested;
}

/**
 * Opens a task status subscription. The acknowledgement names the tasks accepted (those the
 * requester may see); each then gets its current state and every later change; the stream ends
 * with the listen result once all of them are terminal. Other notification types are not offered.
 *
 * @throws JsonRpcError -32021 when task ids are asked for without the extension, -32602 for bad params
 * @example
 * ```ts
 * const reply = await listenForTasks(call, 12, { notifications: { taskIds: [taskId] } }, info);
 * ```
 */
export async function listenForTasks(call: StatelessCall, id: string | number, params: Record<string, unknown>, info: Implementation): Promise<Extract<StatelessReply, { stream: unknown }>> {
  const requested = checkTaskSubscription(params, call.meta.clientCapabilities);
  const accepted: string[] = [];
  for (const taskId of new Set(requested ?? [])) {
    // The requester's own reads, charged like tasks/get; over its poll rate the listen is refused
    // (-32029), not answered as if the tasks did not exist. Unknown or foreign ids are left out of
    // the acknowledgement, not refused: the client learns which stick.
    if (await call.runtime.get(taskId, call.owner).then(() => true, (error: unknown) => (error instanceof TaskLimitError ? Promise.reject(error) : false))) accepted.push(taskId);
  }
  const meta = { [SUBSCRIPTION_ID]: id };
  return {
    status: 200,
    stream: async (emit, signal) => {
      emit({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: requested === undefined ? {} : { taskIds: accepted }, _meta: meta } });
      const open = new Set(accepted);
      let chain = Promise.resolve();
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      // The last intermediate result sent of each task, and when each was last pushed (heartbeat).
      const sentPartial = new Map<string, number>();
      const pushedAt = new Map<string, number>();
      // One at a time, in order: each notification is the task as tasks/get shows it then, with
      // the intermediate results this stream has not carried yet.
      const push = (taskId: string): void => {
        pushedAt.set(taskId, Date.now());
        chain = chain.then(async () => {
          if (!open.has(taskId) || signal.aborted) return;
          // Pushed on the server's own account: never charged to the requester's polls nor refused.
          const view = await call.runtime.get(taskId, call.owner, { countsAsPoll: false });
          const task = await detailedTask(call, view);
          const sent = sentPartial.get(taskId) ?? 0;
          const latest = view.partials?.at(-1)?.seq ?? 0;
          const params: Record<string, unknown> = { ...task, _meta: meta };
          if (latest > sent) sentPartial.set(taskId, latest);
          emit({ jsonrpc: '2.0', method: 'notifications/tasks', params: latest > sent ? withPartials(params, view, sent) : params });
          if (TERMINAL.has(String(task['status']))) open.delete(taskId);
          if (open.size === 0) finish();
        }).catch(() => {
          open.delete(taskId); // expired or deleted meanwhile: nothing more will come
          if (open.size === 0) finish();
        });
      };
      const stops = accepted.map((taskId) => call.runtime.subscribe(() => push(taskId), { taskId, owner: call.owner }));
      for (const taskId of accepted) push(taskId);
      if (accepted.length === 0) finish();
      // Heartbeat: a task nothing was pushed about for `heartbeatMs` is pushed again, so the
      // stream never idles that long (the first push is the task's state at subscription).
      const every = call.runtime.options.heartbeatMs;
      const beat = every === null ? null : setInterval(() => {
        for (const taskId of open) if (Date.now() - (pushedAt.get(taskId) ?? 0) >= every) push(taskId);
      }, Math.max(10, Math.floor(every / 2)));
      beat?.unref();
      signal.addEventListener('abort', finish, { once: true });
      await finished;
      if (beat !== null) clearInterval(beat);
      for (const stop of stops) stop();
      if (!signal.aborted) emit({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { ...meta, [RequestMetaKey.serverInfo]: { name: info.name, version: info.version } } } });
    },
  };
}
