/**
 * What every task-hosting connection needs, whichever role hosts: the open SEP-1686 requests
 * (for `notifications/cancelled`), the input requests in flight, and `notifications/tasks/status`
 * for the 2025-11-25 tasks the connection created.
 *
 * @module
 */
import { CancelledNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { isTerminalStatus, type TaskOwner } from '../../machines/index.js';
import type { TaskRuntime, TaskView } from '../../runtime/index.js';
import { renderTask2025, statusOf2025 } from '../dialects/2025-11-25/index.js';
import { requestKey, type RequestInfo, type TaskHost } from './request-context.js';
import type { ConnectionContext } from './request-handlers.js';
import { FastLane } from './fast-lane.js';
import { assertSdkInternals } from './sdk-internals-check.js';
import { sdkCancelHandler } from './sdk-internals.js';
import type { OpenTaskRequests } from './task-execution.js';

/**
 * Runs `fn` once the answer to `request` has left: on the fast lane right after it is handed to
 * the transport; on the SDK's path, which has no such moment, on the next turn of the loop.
 */
function afterReply(request: RequestInfo, fn: () => void): void {
  if (request.afterReply) request.afterReply(fn);
  else setImmediate(fn);
}

/**
 * Wires one connection of a task host to the runtime. Call before `connect()`.
 *
 * @param options - `fastLane: false` leaves every request to the SDK (see `fast-lane.ts`)
 * @throws SdkInternalsError when the SDK's internals are not the expected ones
 * @example
 * ```ts
 * const connection = wireConnection(host, runtime);
 * installTools(host, connection, tools);
 * ```
 */
export function wireConnection(host: TaskHost, runtime: TaskRuntime, options: { readonly fastLane?: boolean } = {}): ConnectionContext {
  // Every task server and client host is wired here first: a changed SDK fails at start-up.
  assertSdkInternals();
  const open: OpenTaskRequests = new Map();
  const inFlight = new Set<string>();

  // notifications/tasks/status for the 2025-11-25 tasks this connection creates, on every change;
  // each is watched on its own, from before it exists (its work starts at once, and may change it
  // before the creation returns) until it ends or the connection closes. What changes before the
  // CreateTaskResult has left waits for it: a requester hears of a task first from that reply.
  const watching = new Set<() => void>();
  const watch = (taskId: string, owner: TaskOwner): ((created: TaskView | null, request: RequestInfo) => void) => {
    const send = (params: Record<string, unknown>): void => void host.notification({ method: 'notifications/tasks/status', params }).catch(() => undefined);
    let held: Record<string, unknown>[] | null = [];
    const stop = runtime.subscribe(
      ({ task, previous }) => {
        if (previous === null) return; // the creation itself: the CreateTaskResult tells it
        if (isTerminalStatus(task.status)) {
          stop();
          watching.delete(stop);
        }
        // Rendered as it happens: the suggested interval is the task's at the time of the change.
        const params = renderTask2025(task, runtime.options.now());
        if (held) held.push(params);
        else send(params);
      },
      { taskId, owner },
    );
    watching.add(stop);
    return (created, request) => {
      if (created === null) {
        stop();
        watching.delete(stop);
        return;
      }
      // Each notification carries the whole task, so only the latest of those held is news, and
      // not even that when the reply already said as much (a task still working, same message).
      afterReply(request, () => {
        const latest = held?.[held.length - 1];
        held = null;
        const told = statusOf2025(created);
        if (latest && (latest['status'] !== told.status || (latest['statusMessage'] ?? null) !== told.statusMessage)) send(latest);
      });
    };
  };
  // Task requests are answered ahead of the SDK's Protocol (see fast-lane.ts), which hears of
  // cancels and of the connection's end at the transport itself.
  const lane = options.fastLane === false ? undefined : FastLane.for(host);
  const previousOnClose = host.onclose;
  host.onclose = () => {
    for (const stop of watching) stop();
    watching.clear();
    previousOnClose?.();
  };

  // notifications/cancelled for a SEP-1686 task request cancels its task (§4.8.1) and is ignored
  // once the task is terminal (§4.8.3). The SDK's own handling (aborting the request so that no
  // response is sent for it) must still run, so it is called after ours.
  const sdkCancel = sdkCancelHandler(host);
  host.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
    const { requestId, reason } = notification.params;
    const task = requestId === undefined ? undefined : open.get(requestKey(requestId));
    if (task) await runtime.cancel(task.taskId, task.owner, reason ?? null).catch(() => undefined);
    await sdkCancel(notification);
  });

  // Only a server knows its peer's (the client's) capabilities; a client host sends no input requests.
  const peer = host as unknown as { getClientCapabilities?: () => Record<string, unknown> | undefined };
  const peerSupports = (method: string): boolean => {
    if (typeof peer.getClientCapabilities !== 'function') return true;
    const caps = peer.getClientCapabilities();
    if (method === 'elicitation/create') return caps?.['elicitation'] !== undefined;
    if (method === 'sampling/createMessage') return caps?.['sampling'] !== undefined;
    return true;
  };

  return { host, runtime, open, inFlight, peerSupports, takeovers: new Set(), watch2025: watch, ...(lane && { lane }) };
}
