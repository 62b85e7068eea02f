/**
 * What every task-hosting connection needs, whichever role hosts: the open SEP-1686 requests
 * (for `notifications/cancelled`), the input requests in flight, and `notifications/tasks/status`
 * for the 2025-11-25 tasks the connection created.
 *
 * @module
 */
import { CancelledNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { declaredInputCapabilities, refusedInput, type InputRequest } from '../../runtime/index.js';
import { INPUT_REQUEST_TIMEOUT_MS } from '../wire/input-delivery.js';
import { OwnerBinding } from '../wire/owner-binding.js';
import type { TaskHost } from './request-context.js';
import { AnyResultSchema, requestKey } from '../wire/request-info.js';
import { StandaloneInputs, type StandaloneInputOptions } from '../wire/standalone-inputs.js';
import type { ConnectionContext } from './request-handlers.js';
import { FastLane } from './fast-lane.js';
import { traceConnections } from '../wire/traced-transport.js';
import type { KnownTargets } from '../wire/mcp-telemetry.js';
import { StatusNotifications } from '../wire/status-notifications.js';
import { assertSdkInternals } from './sdk-internals-check.js';
import { sdkCancelHandler } from './sdk-internals.js';
import type { OpenTaskRequests } from './task-execution.js';

/**
 * Wires one connection of a task host to the runtime. Call before `connect()`.
 *
 * @param options - `fastLane: false` leaves every request to the SDK (see `fast-lane.ts`); `targets`: the server's tools and prompts, the only names its spans and metrics keep
 * @throws SdkInternalsError when the SDK's internals are not the expected ones
 * @example
 * ```ts
 * const connection = wireConnection(host, runtime);
 * installTools(host, connection, tools);
 * ```
 */
export function wireConnection(host: TaskHost, runtime: TaskRuntime, options: { readonly fastLane?: boolean; readonly standaloneInput?: StandaloneInputOptions; readonly targets?: KnownTargets } = {}): ConnectionContext {
  // Every task server and client host is wired here first: a changed SDK fails at start-up.
  assertSdkInternals();
  const open: OpenTaskRequests = new Map();
  const inFlight = new Set<string>();

  // notifications/tasks/status for the 2025-11-25 tasks this connection creates.
  const statusNotes = new StatusNotifications(host, runtime);
  // Task requests are answered ahead of the SDK's Protocol (see fast-lane.ts), which hears of
  // cancels and of the connection's end at the transport itself.
  const lane = options.fastLane === false ? undefined : FastLane.for(host);
  // After the lane: its spans see every request first, the lane's and the SDK's alike.
  traceConnections(host, options.targets);
  const previousOnClose = host.onclose;
  host.onclose = () => {
    statusNotes.close();
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
  // Before (or without) initialize nothing was declared. A task created here keeps the list, so
  // its work is refused at once what this requester cannot answer (see `askable`).
  const declared = (): Readonly<Record<string, unknown>> | undefined => (typeof peer.getClientCapabilities === 'function' ? (peer.getClientCapabilities() ?? {}) : undefined);
  const peerSupports = (method: string): boolean => refusedInput(method, declaredInputCapabilities(declared())) === null;

  const takeovers = new Set<(request: InputRequest) => void>();
  // Only a server sends input requests to its peer, so only a server may send them unattached.
  const { afterMs, giveBackAfterMs } = options.standaloneInput ?? {};
  const standalone =
    typeof peer.getClientCapabilities === 'function' && afterMs !== false
      ? new StandaloneInputs(
          runtime,
          { inFlight, peerSupports, takeovers },
          (request, signal) => host.request(request, AnyResultSchema, { signal, timeout: INPUT_REQUEST_TIMEOUT_MS }),
          afterMs,
          giveBackAfterMs,
        )
      : undefined;
  const closeStandalone = host.onclose;
  host.onclose = () => {
    standalone?.close();
    closeStandalone?.();
  };

  return {
    host,
    runtime,
    open,
    inFlight,
    peerSupports,
    declared,
    takeovers,
    binding: new OwnerBinding(runtime),
    ...(standalone && { standalone }),
    watch2025: (taskId, owner, progressToken) => statusNotes.watch(taskId, owner, progressToken),
    routeProgress: (taskId, send) => statusNotes.routeProgress(taskId, send),
    told2025: (task) => statusNotes.told(task),
    ...(lane && { lane }),
  };
}
