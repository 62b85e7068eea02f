/**
 * The fast lane: task requests answered at the transport, ahead of the SDK's `Protocol`.
 *
 * The SDK 1.x server spends about 30 µs of CPU on every incoming request before and after its
 * handler runs (three zod type guards on the message, an AbortController, a dozen closures for
 * `extra`, a promise chain, and on `tools/call` two more schema parses); its client spends about
 * 6 µs. A task lifecycle is two requests in 2025-11-25, so that overhead was most of what a task
 * cost. The requests whose answer the task runtime produces (task-augmented `tools/call`,
 * `prompts/get`, `resources/read`, `elicitation/create`, `sampling/createMessage` and the `tasks/*`
 * methods) are taken off the transport here and answered with exactly the JSON-RPC messages the
 * SDK would send; every other message (plain calls, notifications, responses, anything this lane
 * does not recognise as a well-formed request) goes to the SDK as before.
 *
 * What the SDK did per request and the lane keeps: the request's `AbortSignal` (made only when a
 * handler reads it), aborted by `notifications/cancelled` for its id and when the connection
 * closes; no answer to a cancelled request; error replies shaped as the SDK shapes them; a
 * handler set on the transport before `connect` still sees every message. What the SDK checks
 * before a handler runs is checked by the routes (or the request is left to the SDK), and a
 * method whose handler the application replaced after installing it is the SDK's again.
 *
 * @module
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { TaskHost } from './request-context.js';
import type { RequestInfo } from '../wire/request-info.js';
import { requestHandlers } from './sdk-internals.js';

/** A request taken by the lane, as its route sees it. */
export type LaneRequest = RequestInfo & { readonly afterReply: (fn: () => void) => void };

/**
 * Answers one request, or returns `null` (before any effect) to leave it to the SDK's handler.
 * A rejection becomes the JSON-RPC error reply.
 */
export type LaneRoute = (params: Record<string, unknown> | undefined, request: LaneRequest) => Promise<Record<string, unknown>> | null;

/** One request in flight on the lane. */
class LaneCall implements LaneRequest {
  readonly requestId: RequestId;
  readonly sessionId: string | undefined;
  readonly authInfo: RequestInfo['authInfo'];
  readonly _meta: RequestInfo['_meta'];
  #controller: AbortController | null = null;
  #aborted = false;
  #after: (() => void)[] | null = null;

  constructor(requestId: RequestId, sessionId: string | undefined, extra: MessageExtraInfo | undefined, meta: RequestInfo['_meta']) {
    this.requestId = requestId;
    this.sessionId = sessionId;
    this.authInfo = extra?.authInfo;
    this._meta = meta;
  }

  /** Made on first read: most task requests never wait, and an AbortController costs. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  abort(): void {
    this.#aborted = true;
    this.#controller?.abort();
  }

  afterReply(fn: () => void): void {
    (this.#after ??= []).push(fn);
  }

  /** The reply has been handed to the transport (or will never be sent). */
  replied(): void {
    const after = this.#after;
    this.#after = null;
    if (after) for (const fn of after) fn();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRequestId = (v: unknown): v is RequestId => typeof v === 'string' || Number.isSafeInteger(v);
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether the SDK would take `m` as a request (its `JSONRPCRequestSchema`: strict keys, an id,
 * params an object whose `_meta` holds a valid progress token and related-task key). Anything
 * else is left to the SDK, so that what it does with malformed messages stays exactly as it was.
 */
function isSdkRequest(m: Record<string, unknown>): boolean {
  if (m['jsonrpc'] !== '2.0' || !isRequestId(m['id']) || typeof m['method'] !== 'string') return false;
  for (const key in m) if (!REQUEST_KEYS.has(key)) return false;
  const params = m['params'];
  if (params === undefined) return true;
  if (!isObject(params)) return false;
  const meta = params['_meta'];
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  const token = meta['progressToken'];
  if (token !== undefined && !isRequestId(token)) return false;
  const related = meta['io.modelcontextprotocol/related-task'];
  return related === undefined || (isObject(related) && typeof related['taskId'] === 'string');
}

/** The error reply the SDK sends for what a handler threw. */
function errorReply(id: RequestId, error: unknown): JSONRPCMessage {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(e.code) ? (e.code as number) : -32603,
      message: typeof e.message === 'string' ? e.message : 'Internal error',
      ...(e.data !== undefined && { data: e.data }),
    },
  };
}

const lanes = new WeakMap<object, FastLane>();

/** A route and the SDK handler that was installed with it. */
interface Installed {
  readonly route: LaneRoute;
  readonly handler: unknown;
}

/**
 * The lane of one SDK peer (`Server` or `Client`): routes by method, and the requests in flight.
 *
 * @example
 * ```ts
 * server.setRequestHandler(TasksGetSchema, answerGet);
 * FastLane.for(server).route('tasks/get', (params, request) => answerGet(params, request));
 * await server.connect(transport); // the lane sits in front of the SDK from here on
 * ```
 */
export class FastLane {
  readonly #host: TaskHost;
  readonly #routes = new Map<string, Installed>();
  readonly #inFlight = new Map<RequestId, LaneCall>();
  #transport: Transport | null = null;

  private constructor(host: TaskHost) {
    this.#host = host;
  }

  /** The lane of `host`, if one was made. */
  static of(host: object): FastLane | undefined {
    return lanes.get(host);
  }

  /**
   * The lane of `host`, made on first use: it takes its place in front of the SDK when the host
   * connects (the SDK installs its own message handler in `connect`, so the lane wraps it after).
   *
   * @throws SdkInternalsError when the SDK's internals are not the expected ones
   */
  static for(host: TaskHost): FastLane {
    const known = lanes.get(host);
    if (known) return known;
    const lane = new FastLane(host);
    lanes.set(host, lane);
    // A Client's connect takes request options too: passed on whatever they are.
    const connect: (transport: Transport, ...rest: unknown[]) => Promise<void> = host.connect.bind(host);
    host.connect = async (transport: Transport, ...rest: unknown[]): Promise<void> => {
      // A handler set before connect sees every message, as the SDK's connect keeps it.
      const before = transport.onmessage;
      await connect(transport, ...rest);
      lane.#attach(transport, before);
    };
    return lane;
  }

  /**
   * Answers `method` on this lane, as long as the SDK still holds the handler installed for it
   * just before (an application that replaces or removes it later gets its own handler back).
   */
  route(method: string, route: LaneRoute): void {
    this.#routes.set(method, { route, handler: requestHandlers(this.#host).get(method) });
  }

  /** Whether the lane is answering the request `requestId` now. */
  handles(requestId: unknown): boolean {
    return this.#inFlight.has(requestId as RequestId);
  }

  /** `notifications/cancelled` for `requestId`: its signal aborts, and it gets no answer. */
  cancel(requestId: unknown): void {
    this.#inFlight.get(requestId as RequestId)?.abort();
  }

  /** The connection closed: every request in flight is aborted, as the SDK aborts its own. */
  closed(): void {
    for (const call of this.#inFlight.values()) call.abort();
    this.#inFlight.clear();
  }

  #attach(transport: Transport, before: Transport['onmessage']): void {
    this.#transport = transport;
    const handlers = requestHandlers(this.#host);
    const sdk = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as Record<string, unknown> | null;
      if (typeof m !== 'object' || m === null) return sdk?.(message, extra);
      // Before the SDK's own handling, which runs on a later microtask: an answer already on its
      // way (a request refused at once) is not sent once its cancel has arrived.
      if (m['method'] === 'notifications/cancelled') this.cancel((m['params'] as { requestId?: unknown } | undefined)?.requestId);
      if (this.#take(m, extra, handlers)) before?.(message, extra);
      else sdk?.(message, extra);
    };
    // Whatever the application does with the host's onclose: the lane's requests end with the connection.
    const onclose = transport.onclose;
    transport.onclose = () => {
      this.closed();
      onclose?.();
    };
  }

  #take(m: Record<string, unknown>, extra: MessageExtraInfo | undefined, handlers: ReadonlyMap<string, unknown>): boolean {
    const method = m['method'];
    const installed = typeof method === 'string' && 'id' in m ? this.#routes.get(method) : undefined;
    if (installed === undefined || handlers.get(method as string) !== installed.handler || !isSdkRequest(m)) return false;
    const id = m['id'] as RequestId;
    const params = m['params'] as Record<string, unknown> | undefined;
    const call = new LaneCall(id, this.#transport?.sessionId, extra, params?.['_meta'] as RequestInfo['_meta']);
    let answer: Promise<Record<string, unknown>> | null;
    try {
      answer = installed.route(params, call);
    } catch (error) {
      // A route refusing the params synchronously answers with that error, as a handler's would.
      answer = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (answer === null) return false;
    // A second request under an id still in flight is the requester's mistake; as in the SDK, a
    // cancel for that id then reaches the latest.
    this.#inFlight.set(id, call);
    const transport = this.#transport;
    // One reaction for all of it (a promise per step cost as much as the step): the reply unless
    // the request was cancelled, the request out of the in-flight map, then what waited for the
    // reply to have left, in the same turn.
    const settle = (reply: JSONRPCMessage): void => {
      if (this.#inFlight.get(id) === call) this.#inFlight.delete(id);
      if (!call.aborted && transport) {
        transport.send(reply).catch((error: unknown) => transport.onerror?.(new Error(`Failed to send response: ${String(error)}`)));
      }
      call.replied();
    };
    answer.then(
      (result) => settle({ jsonrpc: '2.0', id, result }),
      (error: unknown) => settle(errorReply(id, error)),
    );
    return true;
  }
}
