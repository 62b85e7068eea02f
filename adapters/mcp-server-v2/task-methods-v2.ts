/**
 * The task methods on an SDK v2 server. `tasks/get` and `tasks/cancel` exist on both eras (the
 * SDK passes them to a handler registered with schemas): the extension's answer on 2026-07-28,
 * the session dialects' answer on 2025-11-25. `tasks/update` is the extension's; `tasks/result`
 * and `tasks/list` are 2025-11-25 only (the SDK refuses them on 2026-07-28, as the spec does).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { TaskOwner } from '../../machines/index.js';
import { declaredInputCapabilities, refusedInput, type InputRequest, type TaskRuntime, type TaskView } from '../../runtime/index.js';
import { SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { withRelatedMetaFor } from '../dialects/index.js';
import { INPUT_REQUEST_TIMEOUT_MS, type InputChannel } from '../wire/input-delivery.js';
import { taskAnswers } from '../wire/task-answers.js';
import { JsonRpcCode, JsonRpcError } from '../wire/wire-errors.js';
import { extTaskMethod } from '../wire/stateless/task-methods.js';
import { isModern, ownerOfV2, statelessCall, withInputResponses } from './request-v2.js';
import { registerWithSchema } from './schema-handler.js';

/** Registers a task method on the server. */
export const register = (server: Server, method: string, handler: (params: Record<string, unknown>, ctx: ServerContext) => unknown): void => registerWithSchema<ServerContext>(server, method, handler);
import { StandaloneInputs, type StandaloneInputOptions } from '../wire/standalone-inputs.js';
import { StatusNotifications } from '../wire/status-notifications.js';
import { servedDefinitions, type ServedDefinitions } from '../wire/served-work.js';
import type { StatelessCall } from '../wire/stateless/work-call.js';

/** What a connection (a session, or stdio) keeps between its requests. */
export interface HeldConnection {
  /** `notifications/tasks/status` for the 2025-11-25 tasks it creates. */
  readonly notes: StatusNotifications;
  /** Input of 2025-11-25 tasks for requesters that keep no `tasks/result` open. */
  readonly standalone?: StandaloneInputs;
}

const NO_DEFINITIONS = servedDefinitions({});

/** What the installed task methods tell the rest of the adapter about a request. */
export interface TaskMethodsV2 {
  /** What the request's connection keeps between requests (none on a per-request instance). */
  connection(ctx: ServerContext): HeldConnection | undefined;
  /** Whom the request's tasks belong to (see `ownerOfV2`). */
  ownerOf(ctx: ServerContext): TaskOwner;
  /** The request as the shared 2026-07-28 code reads it. */
  call(ctx: ServerContext, served: ServedDefinitions): StatelessCall;
  /** What the client declared at `initialize`, for its legacy-era tasks to keep; `undefined` when not known (a stateless instance). */
  declared(): Readonly<Record<string, unknown>> | undefined;
}

/**
 * Installs the task methods on one v2 server instance.
 *
 * @param standaloneInput - see `AttachTaskServerV2Options.standaloneInput`
 * @returns what a request's connection keeps between requests (its standalone input deliverer
 *   and its status notifications; none on a stateless per-request instance, which keeps nothing),
 *   and whom its tasks belong to
 * @example
 * ```ts
 * const methods = installTaskMethodsV2(server, runtime, { afterMs: 300 });
 * ```
 */
export function installTaskMethodsV2(server: Server, runtime: TaskRuntime, standaloneInput: StandaloneInputOptions): TaskMethodsV2 {
  const answers = taskAnswers(runtime);
  const declared = (): Readonly<Record<string, unknown>> | undefined => server.getClientCapabilities();
  const channel: InputChannel = {
    inFlight: new Set(),
    takeovers: new Set(),
    // What the client declared at initialize; unknown (a stateless instance) lets the client say no.
    peerSupports: (method) => refusedInput(method, declaredInputCapabilities(declared())) === null,
    declared,
  };
  const unattached = (request: { method: string; params: Record<string, unknown> }, signal: AbortSignal) => server.request(request as never, { signal, timeout: INPUT_REQUEST_TIMEOUT_MS });
  const { afterMs, giveBackAfterMs } = standaloneInput;
  const deliverer = afterMs === false ? undefined : new StandaloneInputs(runtime, channel, unattached, afterMs, giveBackAfterMs);
  const held: HeldConnection = { notes: new StatusNotifications(server, runtime), ...(deliverer && { standalone: deliverer }) };
  const previousOnClose = server.onclose;
  server.onclose = () => {
    deliverer?.close();
    held.notes.close();
    previousOnClose?.();
  };
  // A session (Streamable HTTP) or no HTTP at all (stdio) lasts beyond one request; a stateless
  // per-request instance does not.
  const connection = (ctx: ServerContext): HeldConnection | undefined => (ctx.sessionId !== undefined || ctx.http === undefined ? held : undefined);
  const standalone = (ctx: ServerContext): StandaloneInputs | undefined => connection(ctx)?.standalone;
  // One instance per connection on stdio, whose channel names no session: the instance names it.
  const connectionId = randomUUID();
  const ownerOf = (ctx: ServerContext): TaskOwner => ownerOfV2(ctx, connectionId);
  const call = (ctx: ServerContext, served: ServedDefinitions): StatelessCall => statelessCall(ctx, runtime, served, connectionId);

  register(server, 'tasks/get', async (params, ctx) => {
    if (isModern(ctx)) return extTaskMethod(call(ctx, NO_DEFINITIONS), 'tasks/get', params);
    const owner = ownerOf(ctx);
    const { answer, task } = await answers.get(params, owner);
    connection(ctx)?.notes.told(task);
    // A 2025-11-25 task followed here (created on this connection or another) gets its input here.
    if (task.dialect === SPEC_2025_11_25) standalone(ctx)?.watch(task, owner);
    return answer;
  });
  register(server, 'tasks/cancel', (params, ctx) =>
    isModern(ctx) ? extTaskMethod(call(ctx, NO_DEFINITIONS), 'tasks/cancel', params) : answers.cancel(params, ownerOf(ctx)),
  );
  register(server, 'tasks/update', (params, ctx) => {
    // The extension's method: on 2025-11-25 there is no such method (input goes over tasks/result).
    if (!isModern(ctx)) throw new JsonRpcError(JsonRpcCode.methodNotFound, 'Method not found: tasks/update (the tasks extension, protocol 2026-07-28)');
    return extTaskMethod(call(ctx, NO_DEFINITIONS), 'tasks/update', withInputResponses(params, ctx));
  });
  register(server, 'tasks/list', (params, ctx) => answers.list(params, ownerOf(ctx)));
  register(server, 'tasks/result', (params, ctx) => {
    const owner = ownerOf(ctx);
    const aside = standalone(ctx);
    const notes = connection(ctx)?.notes;
    return answers.result(params, owner, {
      ...channel,
      signal: ctx.mcpReq.signal,
      ...(notes && { told2025: (task: TaskView) => notes.told(task) }),
      send: (task: TaskView) => (input: InputRequest, signal: AbortSignal) =>
        ctx.mcpReq.send({ method: input.method, params: withRelatedMetaFor(task, input.params) } as never, { signal, timeout: INPUT_REQUEST_TIMEOUT_MS }),
      ...((aside || notes) && {
        waiting: (task: TaskView) => {
          // While it waits, this call's stream is one the requester surely listens on: the task's progress goes there.
          const unroute = notes?.routeProgress(task.taskId, (n) => ctx.mcpReq.notify(n));
          const handedOver = aside?.stepAside(task, owner);
          return (ended: boolean) => {
            unroute?.();
            handedOver?.(ended);
          };
        },
      }),
    });
  });
  return { connection, ownerOf, call, declared };
}
