/**
 * Public types of a runtime's graceful close and readiness (see `TaskRuntime.close` and
 * `TaskRuntime.readiness`).
 *
 * @module
 */

/**
 * How `runtime.close` drains.
 *
 * @example
 * ```ts
 * await runtime.close({ drainMs: 30_000 });
 * ```
 */
export interface CloseOptions {
  /**
   * How long tasks running on this node may take to finish, ms. Past it, what still runs is
   * handed to another node (NATS: re-run or resumed as its retry policy allows, else ended
   * `failed`) or, with no other node (memory), ended `failed` with a status message saying the
   * node shut down. `0` ends (or hands over) at once.
   * @default 30_000
   */
  readonly drainMs?: number;
  /**
   * What a requester refused meanwhile is told to wait before retrying, ms (`RuntimeDrainingError.retryAfterMs`).
   * @default 1_000
   */
  readonly retryAfterMs?: number;
  /**
   * After the drain, how long at most the runtime keeps answering requesters that poll, ms: until
   * the last one expected back by the interval it was suggested (and `retryAfterMs` for a call the
   * drain ended) has come, so that each reads how its task ended (or, NATS, that it goes on) instead
   * of finding no server. A host that closes its listener after the drain sets it (`mcp-tasks serve`
   * does, `--drain-linger`).
   * @default 0
   */
  readonly lingerMs?: number;
}

/**
 * Whether a node can take new work now, and why not (a readiness probe's answer).
 *
 * @example
 * ```ts
 * const { ready, reasons } = await runtime.readiness();
 * if (!ready) console.warn(reasons.join('; '));
 * ```
 */
export interface Readiness {
  /** True when the node can take new work. */
  readonly ready: boolean;
  /** Why it is not ready, one line each (empty when ready). */
  readonly reasons: readonly string[];
}
