/**
 * `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` and `tasks/delete`: each reads the
 * request, calls one runtime method and renders the answer in the task's own dialect, whichever
 * dialect the asking requester speaks.
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import type { TaskRuntime, TaskView } from '../../runtime/index.js';
import { SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { withRelatedMetaFor } from '../dialects/index.js';
import { INPUT_REQUEST_TIMEOUT_MS, type InputChannel } from '../wire/input-delivery.js';
import type { FastLane } from './fast-lane.js';
import type { OwnerBinding } from '../wire/owner-binding.js';
import type { TaskHost } from './request-context.js';
import { AnyResultSchema, ownerOf, taskIdParam, type RequestInfo } from '../wire/request-info.js';
import type { StandaloneInputs } from '../wire/standalone-inputs.js';
import { looseRequest } from './request-handlers.js';
import { taskAnswers } from '../wire/task-answers.js';
import { toJsonRpcError } from '../wire/wire-errors.js';
import type { ProgressSend } from '../wire/progress-notifications.js';

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
  channel: InputChannel & {
    readonly lane?: FastLane;
    readonly told2025?: (task: TaskView) => void;
    readonly binding?: OwnerBinding;
    readonly standalone?: StandaloneInputs;
    readonly routeProgress?: (taskId: string, send: ProgressSend) => () => void;
  } = { inFlight: new Set(), peerSupports: () => true },
): void {
  const { lane, told2025 } = channel;
  /** What an answer says of a 2025-11-25 task, a status notification need not repeat. */
  const telling = (task: TaskView): void => {
    if (task.dialect === SPEC_2025_11_25) told2025?.(task);
  };
  const answers = taskAnswers(runtime);
  const { binding, standalone, routeProgress } = channel;
  /** Whom the task a request names belongs to; a look-up only for an authenticated session (see OwnerBinding). */
  const ownerOfTask = (method: string, params: unknown, extra: RequestInfo): TaskOwner | Promise<TaskOwner> => {
    const owner = ownerOf(extra);
    return binding && owner.principal !== null && owner.session !== null ? binding.ownerFor(taskIdParam(params, method), extra) : owner;
  };
  handle(server, lane, 'tasks/get', async (params, extra) => {
    const found = ownerOfTask('tasks/get', params, extra);
    const owner = found instanceof Promise ? await found : found;
    const { answer, task } = await answers.get(params, owner);
    telling(task);
    // A 2025-11-25 task asked about here (created on this connection or another) gets its input here.
    if (task.dialect === SPEC_2025_11_25) standalone?.watch(task, owner);
    return answer;
  });
  const { inFlight, peerSupports, takeovers } = channel;
  handle(server, lane, 'tasks/result', async (params, extra) => {
    const found = ownerOfTask('tasks/result', params, extra);
    const owner = found instanceof Promise ? await found : found;
    return answers.result(params, owner, {
      inFlight,
      peerSupports,
      ...(takeovers && { takeovers }),
      // Read only when the call waits: the fast lane makes a request's signal on first read.
      get signal() {
        return extra.signal;
      },
      ...(told2025 && { told2025 }),
      send: (task) => (input, signal) =>
        // Through the host, not extra.sendRequest: the SDK would divert a request whose incoming
        // message carried a related-task key into a task message queue (the spec says to ignore it).
        server.request({ method: input.method, params: withRelatedMetaFor(task, input.params) }, AnyResultSchema, {
          relatedRequestId: extra.requestId,
          signal,
          timeout: INPUT_REQUEST_TIMEOUT_MS,
        }),
      ...((standalone || routeProgress) && {
        waiting: (task: TaskView) => {
          // While it waits, this call's stream is one the requester surely listens on: the task's progress goes there.
          const unroute = routeProgress?.(task.taskId, (n) => server.notification(n, { relatedRequestId: extra.requestId }));
          const handedOver = standalone?.stepAside(task, owner);
          return (ended: boolean) => {
            unroute?.();
            handedOver?.(ended);
          };
        },
      }),
    });
  });
  handle(server, lane, 'tasks/list', (params, extra) => answers.list(params, binding ? binding.listOwners(extra) : ownerOf(extra)));
  handle(server, lane, 'tasks/cancel', async (params, extra) => answers.cancel(params, await ownerOfTask('tasks/cancel', params, extra)));
  handle(server, lane, 'tasks/delete', async (params, extra) => answers.delete(params, await ownerOfTask('tasks/delete', params, extra)));
}
