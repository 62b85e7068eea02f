/**
 * A task store that does not answer, as the core meets it: which failures are an outage is the
 * backend's to say (`TaskStore.isTransient`, a positive list), and the core does two things with
 * them. A requester's call fails at once with {@link StoreUnavailableError} (retryable, with
 * `retryAfterMs`), never with the backend's bare timeout; a server's own wait rides the outage
 * out, and says so once in the log when it starts.
 *
 * @module
 */
import { StoreUnavailableError } from '../errors.js';
import type { TaskRuntime } from '../task-runtime.types.js';

/** When a requester may try again after the store did not answer, in ms (a reconnect attempt's period). */
export const STORE_RETRY_AFTER_MS = 1_000;

/** How often a wait re-reads a store that did not answer. */
const UNREACHABLE_RETRY_MS = 250;

/** How long a wait rides an outage out at most, before its caller gets the store's unavailability. */
export const UNREACHABLE_GIVE_UP_MS = 120_000;

/** Where the core logs: the backend's node log (the same `(level, message, fields)` shape). */
export type CoreLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/** What a wait through an outage checks between its reads. */
export interface OutageWait {
  /** The wait's own abort. */
  readonly signal: AbortSignal | undefined;
  /** The wait's deadline on the runtime's clock (`now()`), `Infinity` for none. */
  readonly deadline: number;
  /** The runtime's clock. */
  readonly now: () => number;
  /** True once the runtime is disposed. */
  readonly stopped: () => boolean;
  /** The task waited for, for the log line. */
  readonly taskId: string;
}

/**
 * One runtime's view of its store's outages.
 *
 * @example
 * ```ts
 * const outage = new StoreOutage((e) => store.isTransient(e), log);
 * const state = await outage.rideOut(() => store.read(key), { signal, deadline: Infinity, now, stopped: () => disposed, taskId });
 * ```
 */
export class StoreOutage {
  readonly #isTransient: (error: unknown) => boolean;
  readonly #log: CoreLog;
  /** Waits riding an outage out now: the first one logs, the others join it silently. */
  #riding = 0;

  constructor(isTransient: (error: unknown) => boolean, log: CoreLog = () => undefined) {
    this.#isTransient = isTransient;
    this.#log = log;
  }

  /**
   * `error` as a requester gets it: a transient failure of the store becomes
   * {@link StoreUnavailableError}; anything else is returned as it is.
   */
  unavailable(error: unknown): unknown {
    return this.#isTransient(error) ? new StoreUnavailableError(STORE_RETRY_AFTER_MS, { cause: error }) : error;
  }

  /**
   * Runs `read` again while the store does not answer (NATS restarting, a leader being elected),
   * for up to {@link UNREACHABLE_GIVE_UP_MS}: the task and its result are still there, so a
   * server's own wait reads again shortly rather than fail, or, worse, answer an end without its
   * result. An answer about the task (not found, expired…) is final; so are the wait's abort, its
   * deadline and the runtime's disposal. The first wait that starts riding an outage out logs one
   * `warn`; waits that join it while it lasts log nothing, and neither does any retry.
   *
   * @throws StoreUnavailableError once it gives up; the read's own error when it is not an outage
   */
  async rideOut<T>(read: () => Promise<T>, wait: OutageWait): Promise<T> {
    // Wall time, not the runtime's clock: a test's frozen clock must not make this endless.
    const giveUp = Date.now() + UNREACHABLE_GIVE_UP_MS;
    let riding = false;
    try {
      for (;;) {
        try {
          return await read();
        } catch (error) {
          if (!this.#isTransient(error) || wait.stopped() || wait.signal?.aborted || wait.now() >= wait.deadline) throw error;
          if (Date.now() >= giveUp) throw this.unavailable(error);
          if (!riding) {
            riding = true;
            if (this.#riding++ === 0) {
              this.#log('warn', 'task store unreachable: waiting for it', { taskId: wait.taskId, giveUpMs: UNREACHABLE_GIVE_UP_MS, error: String(error) });
            }
          }
          await new Promise((resolve) => setTimeout(resolve, UNREACHABLE_RETRY_MS));
        }
      }
    } finally {
      if (riding) this.#riding--;
    }
  }
}

/** The calls of a runtime a requester makes that read or write the store. */
const STORE_CALLS = ['create', 'get', 'list', 'result', 'outcome', 'update', 'waitForOutcome', 'waitForTerminal', 'cancel', 'delete', 'pendingInputRequests', 'answerInput'] as const;

/**
 * `runtime` with every call that reaches the store answering a transient failure as
 * {@link StoreUnavailableError} (see {@link StoreOutage.unavailable}); other errors and results
 * pass unchanged. Every other member (symbols included) is carried over as it is.
 *
 * @example
 * ```ts
 * const runtime = reportingOutages(core, outage);
 * ```
 */
export function reportingOutages<R extends TaskRuntime>(runtime: R, outage: StoreOutage): R {
  const out: R = { ...runtime };
  const calls = runtime as unknown as Record<(typeof STORE_CALLS)[number], (this: R, ...args: unknown[]) => Promise<unknown>>;
  for (const name of STORE_CALLS) {
    (out as Record<string, unknown>)[name] = (...args: unknown[]): Promise<unknown> =>
      calls[name].apply(runtime, args).catch((error: unknown) => {
        throw outage.unavailable(error);
      });
  }
  return out;
}
