/**
 * One task in flight, driven by a requester actor (`machines/requester.machine.ts`) whose effects
 * are bound here to the wire: the handle `beginCallTool` / `resume` give out, and the engine under
 * every `TaskCall`.
 *
 * @module
 */
import { createActor, fromPromise, type Actor } from 'xstate';
import type { CallToolResult } from './mcp-shapes.js';
import { requesterEvents, requesterMachine, type RequesterDialect, type RequesterEvent, type RequesterMachine, type RequesterOutput, type RequesterTask } from '../../machines/index.js';
import { TaskCancelledError, TaskClientError, TaskClientErrorCode, TaskFailedError, TaskProtocolError } from './task-client.errors.js';
import type { BeginCallOptions, CallToolParams, PendingTask, ResolvedTaskClientOptions, ResultOptions } from './task-client.types.js';
import type { TaskWire, CreateOutcome } from './task-client.wire.js';
import type { TaskUpdate } from './task-call.types.js';

/** Routes SEP-1686's `notifications/tasks/created` to whoever waits for that task (one per client). */
export interface CreatedRoutes {
  route(taskId: string, onCreated: () => void): () => void;
}

const rpcCodeOf = (error: unknown): number | null =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number' ? error.code : null;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// The pause between polls; resolves early when the actor leaves the waiting state.
const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export function toError(output: RequesterOutput): TaskClientError {
  if (output.outcome === 'cancelled') return new TaskCancelledError(output.task);
  if (output.outcome === 'failed' || output.outcome === 'unknown') return new TaskFailedError(output.task);
  const error = output.error;
  return new TaskProtocolError(error?.code ?? TaskClientErrorCode.requestFailed, error?.message ?? 'The task ended without a result', error?.rpcCode ?? null);
}

/** What to follow: a new call (its params) or an existing task (its id), in one dialect. */
export interface Flight {
  readonly dialect: RequesterDialect;
  readonly taskId: string | undefined;
  readonly call: { readonly params: CallToolParams; readonly options: BeginCallOptions } | undefined;
  /** Where the handle of `callTool` / `task` hears of each change (and of the task id once known). */
  readonly observe?: FlightObserver;
}

/** Told of a flight's changes, for a `TaskCall`. */
export interface FlightObserver {
  /** Each update (status changes, 2026-07-28 input requests). */
  readonly push: (update: TaskUpdate) => void;
  /** Once, when the task id becomes known. */
  readonly onTaskId: (taskId: string) => void;
  /** Once, when the actor is done or stopped. */
  readonly onEnd: () => void;
}

/** One task in flight: the actor, its original request, and the promises handed to the caller. */
export class ActorPendingTask implements PendingTask {
  readonly dialect: RequesterDialect;
  readonly taskId: Promise<string>;
  readonly #actor: Actor<RequesterMachine>;
  readonly #request = new AbortController();
  /** Aborted once the requester stops answering what a 2026-07-28 server asks before any task (cancel, stop). */
  readonly #asking = new AbortController();
  readonly #hasRequest: boolean;
  #requestSettled = false;
  readonly #unroute: () => void;
  #observer: FlightObserver | undefined;

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
    if (flight.observe !== undefined) this.#observe(flight.observe);
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

  /**
   * The error result a failed task kept, read with `tasks/result` (2025-11-25 keeps the tool's
   * `isError` result there; SEP-1686 answers the original request with it), or `null` when the
   * dialect has none or the read fails.
   */
  async failedResult(wire: TaskWire, taskId: string): Promise<CallToolResult | null> {
    if (this.dialect !== '2025-11-25') return null;
    try {
      const result = await wire.getResult(taskId, AbortSignal.timeout(10_000));
      return Array.isArray(result['content']) ? (result as CallToolResult) : null;
    } catch {
      return null;
    }
  }

  // Each status change, each 2026-07-28 input request (once per key), the id once known, the end.
  #observe(observe: FlightObserver): void {
    this.#observer = observe;
    let seen: string | undefined;
    let idTold = false;
    const asked = new Set<string>();
    const check = (): void => {
      const snapshot = this.#actor.getSnapshot();
      const { task, taskId } = snapshot.context;
      if (taskId !== null && !idTold) {
        idTold = true;
        observe.onTaskId(taskId);
      }
      const key = task === null ? undefined : `${task.status}\u0000${task.statusMessage ?? ''}`;
      if (task !== null && key !== seen) {
        seen = key;
        observe.push({ type: 'status', task });
      }
      for (const [k, request] of Object.entries(task?.inputRequests ?? {})) {
        if (asked.has(k)) continue;
        asked.add(k);
        observe.push({ type: 'input', method: request.method, ...(request.params !== undefined && { params: request.params }) });
      }
    };
    this.#actor.subscribe({ next: check, complete: () => (check(), observe.onEnd()), error: () => observe.onEnd() });
  }

  /** Stops following the task (not the task itself), and answering what its server asks. */
  stop(): void {
    this.#asking.abort();
    this.#actor.stop();
    this.#finish();
    this.#observer?.onEnd();
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

