/**
 * Delivers a task's input requests (elicitation, sampling) to its requester and feeds the answers
 * back to the runtime. The channel depends on the dialect: SEP-1686 sends them over the original
 * request (still open), 2025-11-25 over a `tasks/result` call the requester keeps open while the
 * task needs input. A request aborted because the channel closed stays pending in the runtime and
 * is sent again on the next channel.
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import { declaredInputCapabilities, refusedInput, TaskLimitError, type InputAnswer, type InputRequest, type TaskRuntime } from '../../runtime/index.js';

/** Sends one input request to the requester and resolves with its answer. */
export type InputSender = (request: InputRequest, signal: AbortSignal) => Promise<unknown>;

/** What one connection knows about delivering input requests to its peer. */
export interface InputChannel {
  /** Input requests being delivered on this connection, so that two channels never send one twice. */
  readonly inFlight: Set<string>;
  /** Whether the peer declared the capability a method needs (`elicitation`, `sampling`). */
  readonly peerSupports: (method: string) => boolean;
  /**
   * The client capabilities the peer declared, for the tasks created on this connection to keep
   * (see {@link askable}); `undefined` when not known (a client host: its peer sends no input requests).
   */
  readonly declared?: () => Readonly<Record<string, unknown>> | undefined;
  /**
   * Deliverers on this connection that can take over a request another one gave back (its
   * channel closed before the answer came). Optional: without it, nothing is handed over.
   */
  readonly takeovers?: Set<(request: InputRequest) => void>;
}

/** The error an input request gets when the requester never declared the capability it needs (the runtime's wording). */
export function unsupportedInput(method: string): Error {
  return refusedInput(method, []) ?? new Error(`The requester cannot be sent ${method}`);
}

/**
 * The `create` option that tells a new task what its requester can be asked, from the client
 * capabilities the wire gives (`initialize`'s, or a 2026-07-28 request's own): the runtime then
 * refuses the work's request for input the requester cannot answer. Nothing when they are not
 * known (every request is then sent, and the requester may refuse it).
 *
 * @example
 * ```ts
 * await runtime.create({ taskId, owner, dialect, method, handler, params, ...askable(server.getClientCapabilities()) });
 * ```
 */
export function askable(clientCapabilities: Readonly<Record<string, unknown>> | null | undefined): { readonly requesterCapabilities?: readonly string[] } {
  const declared = declaredInputCapabilities(clientCapabilities);
  return declared === undefined ? {} : { requesterCapabilities: declared };
}

/**
 * A request to the requester that failed because the connection went away (closed, or never
 * connected), not because the requester answered with an error: the input stays pending for the
 * requester's next channel. Both SDK lines word it so (SDK v1 `McpError` -32000 "Connection
 * closed", SDK v2 "Not connected").
 */
export function isConnectionGone(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (error instanceof GiveBack || e?.code === 'CONNECTION_CLOSED' || e?.code === 'NOT_CONNECTED') return true;
  if (typeof e?.message !== 'string') return false;
  return (e.code === -32000 && e.message.includes('Connection closed')) || e.message.includes('Not connected');
}

/**
 * Thrown by a sender to give an input request back unanswered (e.g. no answer over a channel
 * that may have dropped it): it stays pending, as when the channel closes.
 *
 * @example
 * ```ts
 * throw new GiveBack('no answer on the standalone stream within 30 s');
 * ```
 */
export class GiveBack extends Error {
  override readonly name = 'GiveBack';
}

/** How long an input request may wait for a human; the SDK's own default (60 s) is too short. */
export const INPUT_REQUEST_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/**
 * Sends the task's pending and future input requests over `send` until the returned function is
 * called; then aborts the ones still unanswered (they stay pending for another channel).
 *
 * @param channel - the connection's in-flight set and its peer's capabilities; a request the peer
 *   cannot take is answered with an error at once (the MCP lifecycle forbids sending it)
 * @example
 * ```ts
 * const stop = deliverInputs(runtime, taskId, owner, (req, signal) => extra.sendRequest(…), connection);
 * try { await runtime.waitForTerminal(taskId, owner); } finally { stop(); }
 * ```
 */
export function deliverInputs(runtime: TaskRuntime, taskId: string, owner: TaskOwner, send: InputSender, channel: InputChannel): () => void {
  const { inFlight } = channel;
  const controllers = new Set<AbortController>();
  let stopped = false;

  const deliver = (request: InputRequest): void => {
    const key = `${request.owner.principal ?? ''}\u0001${request.owner.session ?? ''}\u0000${taskId}\u0000${request.inputId}`;
    if (stopped || inFlight.has(key)) return;
    inFlight.add(key);
    const controller = new AbortController();
    controllers.add(controller);
    const sent = channel.peerSupports(request.method) ? send(request, controller.signal) : Promise.reject(unsupportedInput(request.method));
    let given = false;
    let answered = false;
    sent
      .then(
        (result) => {
          answered = true;
          return applyAnswer(runtime, taskId, owner, request.inputId, { result });
        },
        (error: unknown) => {
          // Aborted because this channel closed, or the connection went: leave it pending for the next one.
          given = error instanceof GiveBack;
          if (controller.signal.aborted || stopped || isConnectionGone(error)) return undefined;
          return applyAnswer(runtime, taskId, owner, request.inputId, { error: error instanceof Error ? error : new Error(String(error)) });
        },
      )
      // Not pending any more: the task ended or another channel answered; a late answer is discarded.
      .catch(() => undefined)
      .finally(() => {
        inFlight.delete(key);
        controllers.delete(controller);
        // Given back unanswered: another open channel for this task sends it now (never one the
        // requester answered, even if this channel was stopped while the answer was applied).
        if (!answered && (controller.signal.aborted || given)) for (const takeOver of channel.takeovers ?? []) takeOver(request);
      });
  };
  const takeOver = (request: InputRequest): void => {
    const same = request.owner.session === owner.session && request.owner.principal === owner.principal;
    if (same && request.taskId === taskId) deliver(request);
  };
  channel.takeovers?.add(takeOver);

  const unsubscribe = runtime.onInputRequest(takeOver, { taskId, owner });
  runtime.pendingInputRequests(taskId, owner).then((pending) => pending.forEach(deliver), () => undefined);

  return () => {
    stopped = true;
    channel.takeovers?.delete(takeOver);
    unsubscribe();
    for (const controller of controllers) controller.abort();
  };
}

/**
 * Applies a requester's answer to a task's input request: its result, or the error it replied
 * with. An answer the task cannot take (over `maxRequestBytes`, a reply's error message too) is
 * not dropped silently: the work gets the refusal as the input's error, so the handler (or the
 * task's failure) says why.
 *
 * @throws what `answerInput` throws otherwise (not pending: answered already, or the task ended)
 * @example
 * ```ts
 * await applyAnswer(runtime, taskId, owner, input.inputId, { result });
 * ```
 */
export async function applyAnswer(runtime: TaskRuntime, taskId: string, owner: TaskOwner, inputId: string, answer: InputAnswer): Promise<unknown> {
  return runtime.answerInput(taskId, owner, inputId, answer).catch((error: unknown) => {
    if (!(error instanceof TaskLimitError)) throw error;
    return runtime.answerInput(taskId, owner, inputId, { error });
  });
}
