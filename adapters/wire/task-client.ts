/**
 * `TaskClient`: task-augmented tool calls over a connected SDK `Client`, each driven by a
 * requester actor (`machines/requester.machine.ts`) whose effects are bound here to the wire.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from './mcp-shapes.js';
import { createActor, fromPromise, type Actor } from 'xstate';
import {
  DEFAULT_MAX_CANCEL_POLLS,
  DEFAULT_REQUESTER_POLL_FREQUENCY,
  requesterEvents,
  requesterMachine,
  type RequesterDialect,
  type RequesterEvent,
  type RequesterMachine,
  type RequesterOutput,
  type RequesterTask,
} from '../../machines/index.js';
import { TaskCancelledError, TaskClientError, TaskClientErrorCode, TaskFailedError, TaskProtocolError } from './task-client.errors.js';
import type {
  BeginCallOptions,
  CallToolParams,
  PendingTask,
  ResolvedTaskClientOptions,
  ResultOptions,
  ResumeOptions,
  TaskClientOptions,
} from './task-client.types.js';
import { ExtensionPeer } from './task-client.ext-peer.js';
import { TaskWire, type CreateOutcome, type RequesterPeer } from './task-client.wire.js';

/** Routes SEP-1686's `notifications/tasks/created` to whoever waits for that task (one per client). */
export interface CreatedRoutes {
  route(taskId: string, onCreated: () => void): () => void;
}

/**
 * Applies the defaults of `TaskClientOptions`.
 *
 * @example
 * ```ts
 * resolveTaskClientOptions({}); // { dialect: 'sep-1686', pollFrequency: 1000, maxCancelPolls: 10 }
 * ```
 */
export function resolveTaskClientOptions(options: TaskClientOptions = {}): ResolvedTaskClientOptions {
  return {
    dialect: options.dialect ?? 'sep-1686',
    pollFrequency: options.pollFrequency ?? DEFAULT_REQUESTER_POLL_FREQUENCY,
    maxCancelPolls: options.maxCancelPolls ?? DEFAULT_MAX_CANCEL_POLLS,
  };
}

/** Who a 2026-07-28 requester says it is, unless `options.clientInfo` says otherwise. */
const CLIENT_INFO = { name: 'mcp-task-actors', version: '0.1.0' };

const rpcCodeOf = (error: unknown): number | null =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number' ? error.code : null;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// The pause between polls; resolves early when the actor leaves the waiting state.
const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

function toError(output: RequesterOutput): TaskClientError {
  if (output.outcome === 'cancelled') return new TaskCancelledError(output.task);
  if (output.outcome === 'failed' || output.outcome === 'unknown') return new TaskFailedError(output.task);
  const error = output.error;
  return new TaskProtocolError(error?.code ?? TaskClientErrorCode.requestFailed, error?.message ?? 'The task ended without a result', error?.rpcCode ?? null);
}

interface Flight {
  readonly dialect: RequesterDialect;
  readonly taskId: string | undefined;
  readonly call: { readonly params: CallToolParams; readonly options: BeginCallOptions } | undefined;
}

/** One task in flight: the actor, its original request, and the promises handed to the caller. */
class ActorPendingTask implements PendingTask {
  readonly dialect: RequesterDialect;
  readonly taskId: Promise<string>;
  readonly #actor: Actor<RequesterMachine>;
  readonly #request = new AbortController();
  /** Aborted once the requester stops answering what a 2026-07-28 server asks before any task (cancel, stop). */
  readonly #asking = new AbortController();
  readonly #hasRequest: boolean;
  #requestSettled = false;
  readonly #unroute: () => void;

  constructor(wire: TaskWire, router: CreatedRoutes, options: ResolvedTaskClientOptions, flight: Flight) {
    this.dialect = flight.dialect;
    this.#hasRequest = flight.call !== undefined;
    const machine = requesterMachine.provide({
      actions: {
        sendRequest: () => this.#send(wire, flight),
        sendCancelNotification: () => this.#abortRequest('Cancelled by the requester'),
        stopAsking: () => this.#asking.abort(),
      },
      actors: {
        getTask: fromPromise(({ input }) => wire.getTask(input.taskId)),
        getResult: fromPromise(({ input, signal }) => wire.getResult(input.taskId, signal)),
        cancelTask: fromPromise(({ input }) => wire.cancelTask(input.taskId)),
        answerInput: fromPromise(({ input, signal }) => wire.answerInput(input.taskId, input.inputRequests, signal)),
        wait: fromPromise(({ input, signal }) => delay(input.ms, signal)),
      },
    });
    this.#actor = createActor(machine, {
      input: {
        dialect: flight.dialect,
        ...(flight.taskId === undefined ? {} : { taskId: flight.taskId }),
        pollFrequency: options.pollFrequency,
        maxCancelPolls: options.maxCancelPolls,
        resume: flight.call === undefined,
      },
    });
    // Routed before the request goes out, so an early notification is not missed.
    this.#unroute = flight.taskId === undefined ? () => undefined : router.route(flight.taskId, () => this.#deliver(requesterEvents.created(null)));
    this.taskId = this.#whenTaskId();
    this.#actor.subscribe({ complete: () => this.#finish(), error: () => this.#finish() });
    this.#actor.start();
  }

  get task(): RequesterTask | null {
    return this.#actor.getSnapshot().context.task;
  }

  result(options: ResultOptions = {}): Promise<CallToolResult> {
    const { onTaskStatus, signal } = options;
    return new Promise<CallToolResult>((resolve, reject) => {
      let seen: string | undefined;
      const subscription = this.#actor.subscribe({
        next: check,
        complete: check,
        error: (error: unknown) => settle(() => reject(error instanceof Error ? error : new Error(String(error)))),
      });
      const onAbort = (): void => settle(() => reject(new TaskClientError(TaskClientErrorCode.aborted, 'Stopped waiting for the task', { cause: signal?.reason })));
      signal?.addEventListener('abort', onAbort, { once: true });
      function settle(fn: () => void): void {
        subscription.unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        fn();
      }
      const actor = this.#actor;
      function check(): void {
        const snapshot = actor.getSnapshot();
        const task = snapshot.context.task;
        const key = task === null ? undefined : `${task.status}\u0000${task.statusMessage ?? ''}`;
        if (task !== null && key !== seen && onTaskStatus !== undefined) {
          seen = key;
          try {
            onTaskStatus(task);
          } catch (error) {
            settle(() => reject(error instanceof Error ? error : new Error(String(error))));
            return;
          }
        }
        if (snapshot.status === 'done') {
          const output = snapshot.output;
          settle(() => (output.outcome === 'completed' && output.result !== null ? resolve(output.result as CallToolResult) : reject(toError(output))));
        } else if (snapshot.status === 'error') {
          const error = snapshot.error;
          settle(() => reject(error instanceof Error ? error : new Error(String(error))));
        } else if (snapshot.status !== 'active') {
          settle(() => reject(new TaskClientError(TaskClientErrorCode.disposed, 'The task client was disposed')));
        }
      }
      if (signal?.aborted) onAbort();
      else check();
    });
  }

  cancel(reason?: string): void {
    if (this.#actor.getSnapshot().status !== 'active') return;
    if (this.dialect === 'sep-1686' && !this.#hasRequest) {
      throw new TaskClientError(
        TaskClientErrorCode.cancelUnsupported,
        'A resumed SEP-1686 task cannot be cancelled: cancellation names the original request id, which this client never sent',
      );
    }
    this.#actor.send(requesterEvents.cancel(reason ?? null));
  }

  /** Stops following the task (not the task itself), and answering what its server asks. */
  stop(): void {
    this.#asking.abort();
    this.#actor.stop();
    this.#finish();
  }

  #deliver(event: RequesterEvent): void {
    if (this.#actor.getSnapshot().status === 'active') this.#actor.send(event);
  }

  #send(wire: TaskWire, flight: Flight): void {
    if (flight.call === undefined) return;
    const { params, options } = flight.call;
    const signal = this.#request.signal;
    const created = (o: CreateOutcome): RequesterEvent => ('task' in o ? requesterEvents.created(o.task) : requesterEvents.response(o.result));
    const sent =
      flight.dialect === 'sep-1686'
        ? wire.callSep(params, flight.taskId ?? '', options, signal).then((r) => requesterEvents.response(r))
        : flight.dialect === '2026-07-28'
          ? wire.callExt(params, signal, this.#asking.signal).then(created)
          : wire.call2025(params, options, signal).then(created);
    sent.then(
      (event) => {
        this.#requestSettled = true;
        this.#deliver(event);
      },
      (error: unknown) => {
        this.#requestSettled = true;
        // A rejection we caused ourselves (cancel, cleanup) is not news to the machine.
        if (signal.aborted) return;
        const unanswered = error instanceof TaskClientError && error.code === TaskClientErrorCode.inputFailed;
        this.#deliver(requesterEvents.requestFailed(messageOf(error), rpcCodeOf(error), unanswered ? 'input_failed' : undefined));
      },
    );
  }

  // Aborting an SDK request sends `notifications/cancelled` with its JSON-RPC id: exactly the
  // SEP-1686 cancellation of a task-augmented request.
  #abortRequest(reason: string): void {
    if (this.#hasRequest && !this.#requestSettled && !this.#request.signal.aborted) this.#request.abort(reason);
  }

  #finish(): void {
    this.#unroute();
    const snapshot = this.#actor.getSnapshot();
    if (snapshot.status !== 'done') return;
    // A SEP-1686 receiver never answers the original request of a task that ended without a
    // result; abort it so the SDK drops its handler. The resulting notifications/cancelled names a
    // terminal task, which receivers ignore (§4.8.3). After an `error` the task may still run, so
    // the request is left alone.
    const { outcome } = snapshot.output;
    if (this.dialect === 'sep-1686' && (outcome === 'failed' || outcome === 'cancelled' || outcome === 'unknown')) {
      this.#abortRequest('The task has ended');
    }
  }

  #whenTaskId(): Promise<string> {
    const promise = new Promise<string>((resolve, reject) => {
      const check = (): boolean => {
        const snapshot = this.#actor.getSnapshot();
        if (snapshot.context.taskId !== null) resolve(snapshot.context.taskId);
        else if (snapshot.status !== 'active') {
          reject(new TaskClientError(TaskClientErrorCode.noTask, 'The receiver answered without creating a task'));
        } else return false;
        return true;
      };
      if (check()) return;
      const subscription = this.#actor.subscribe({
        next: () => void (check() && subscription.unsubscribe()),
        complete: () => void (check() && subscription.unsubscribe()),
      });
    });
    // Nobody has to await the id; an unobserved rejection must not crash the process.
    promise.catch(() => undefined);
    return promise;
  }
}

/**
 * Task-augmented tool calls over a connected SDK client, in the SEP-1686, 2025-11-25 or
 * 2026-07-28 (tasks extension) dialect: the SDK-free core of `TaskClient` (SDK v1) and
 * `TaskClientV2` (SDK v2), each of which passes its SDK's way to hear `notifications/tasks/created`.
 * Each call is driven by a requester actor: SEP-1686 races the direct response against
 * `notifications/tasks/created` (so a receiver without task support just answers), then polls
 * `tasks/get` and fetches `tasks/result`; 2025-11-25 polls the task from `CreateTaskResult`;
 * 2026-07-28 sends its requests through `options.rawDispatch`, polls the task from the flat
 * `CreateTaskResult`, answers what it asks with `options.onInputRequest` (`tasks/update`) and
 * reads the result inlined in `tasks/get`.
 *
 * @param client - a connected SDK client; a `notifications/tasks/created` handler is installed on it
 * @param options - dialect and polling defaults
 * @example
 * ```ts
 * import { TaskClient } from 'mcp-task-actors/adapters/mcp-client';
 * const tasks = new TaskClient(client, { dialect: 'sep-1686' });
 * const pending = tasks.beginCallTool({ name: 'sleep', arguments: { ms: 2000 } }, { keepAlive: 60_000 });
 * const result = await pending.result({ onTaskStatus: (t) => console.log(t.status, t.statusMessage) });
 * ```
 */
export class TaskClientCore {
  readonly options: ResolvedTaskClientOptions;
  readonly #client: RequesterPeer;
  readonly #routes: () => CreatedRoutes;
  #router: CreatedRoutes | undefined;
  readonly #live = new Set<ActorPendingTask>();
  readonly #extension: RequesterPeer | undefined;
  readonly #onInputRequest: TaskClientOptions['onInputRequest'];

  /**
   * @param routes - the client's `notifications/tasks/created` routes (SDK-specific: each SDK
   *   line's entry passes its own); made on the first call
   * @throws TypeError when the dialect is 2026-07-28 and `options.rawDispatch` is missing
   */
  constructor(client: RequesterPeer, options: TaskClientOptions, routes: () => CreatedRoutes) {
    this.#client = client;
    this.options = resolveTaskClientOptions(options);
    this.#routes = routes;
    this.#onInputRequest = options.onInputRequest;
    if (options.rawDispatch !== undefined) {
      const clientCapabilities = options.clientCapabilities ?? (options.onInputRequest === undefined ? {} : { elicitation: {}, sampling: {} });
      this.#extension = new ExtensionPeer(options.rawDispatch, { clientInfo: options.clientInfo ?? CLIENT_INFO, clientCapabilities });
    }
    // Refuses the 2026-07-28 dialect without a raw dispatch now, not at the first call.
    this.#peer(this.options.dialect);
  }

  /**
   * Starts a task-augmented `tools/call`.
   *
   * @param params - tool name and arguments
   * @param options - `keepAlive` and `taskId` (SEP-1686), `ttl` (2025-11-25)
   * @returns the task in flight
   * @example
   * ```ts
   * const pending = tasks.beginCallTool({ name: 'long_job', arguments: { seconds: 3 } });
   * setTimeout(() => pending.cancel(), 500);
   * ```
   */
  beginCallTool(params: CallToolParams, options: BeginCallOptions = {}): PendingTask {
    const dialect = this.options.dialect;
    const taskId = dialect === 'sep-1686' ? (options.taskId ?? randomUUID()) : undefined;
    return this.#track({ dialect, taskId, call: { params, options } });
  }

  /**
   * Picks up an existing task by id: polls `tasks/get`, then fetches `tasks/result`. Use it after
   * a reconnect; over Streamable HTTP, `new StreamableHTTPClientTransport(url, { sessionId })`
   * keeps the session, so the receiver still recognises the requester.
   *
   * @param taskId - the task to follow
   * @param options - the dialect it was created in
   * @throws TypeError for the 2026-07-28 dialect when the client has no `options.rawDispatch`
   * @example
   * ```ts
   * const result = await new TaskClient(reconnected).resume(taskId).result();
   * ```
   */
  resume(taskId: string, options: ResumeOptions = {}): PendingTask {
    return this.#track({ dialect: options.dialect ?? this.options.dialect, taskId, call: undefined });
  }

  /**
   * Stops following every task of this client (the tasks themselves go on); pending `result()`
   * calls reject with code `disposed`.
   *
   * @example
   * ```ts
   * tasks.dispose();
   * ```
   */
  dispose(): void {
    for (const pending of this.#live) pending.stop();
    this.#live.clear();
  }

  // The 2026-07-28 wire goes through the raw dispatch: SDK clients refuse its task results.
  #peer(dialect: RequesterDialect): RequesterPeer {
    if (dialect !== '2026-07-28') return this.#client;
    if (this.#extension === undefined) {
      throw new TypeError('The 2026-07-28 dialect needs options.rawDispatch (e.g. createRawDispatch(url) from mcp-task-actors/adapters/mcp-client-v2): SDK clients refuse resultType "task"');
    }
    return this.#extension;
  }

  #track(flight: Flight): PendingTask {
    const wire = new TaskWire(this.#peer(flight.dialect), flight.dialect, this.#onInputRequest);
    const pending = new ActorPendingTask(wire, (this.#router ??= this.#routes()), this.options, flight);
    this.#live.add(pending);
    void pending.result().then(
      () => this.#live.delete(pending),
      () => this.#live.delete(pending),
    );
    return pending;
  }
}
