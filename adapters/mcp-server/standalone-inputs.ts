/**
 * Input requests of 2025-11-25 tasks for requesters that never keep a `tasks/result` open while a
 * task waits (the official `@modelcontextprotocol/ext-tasks` requester polls `tasks/get`, and
 * calls `tasks/result` only once the task has ended). After a grace period with no `tasks/result`
 * open for the task, the request goes out unattached to any request, which a Streamable HTTP
 * session carries on its standalone GET stream (and stdio on the pipe). A `tasks/result` opened
 * later takes the request over: the spec's own channel always wins.
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import type { TaskRuntime, TaskView } from '../../runtime/index.js';
import { withRelatedMetaFor } from '../dialects/index.js';
import { deliverInputs, type InputChannel } from './input-delivery.js';

/** Sends one request to the peer unattached to any request of its own (SDK-specific). */
export type UnattachedSender = (request: { readonly method: string; readonly params: Record<string, unknown> }, signal: AbortSignal) => Promise<unknown>;

/** How long an input request waits for a `tasks/result` to carry it before it goes out alone. */
export const STANDALONE_INPUT_GRACE_MS = 300;

/** Waits `ms`, or rejects when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted', { cause: signal.reason }))), { once: true });
  });
}

/**
 * One connection's standalone input deliverers, one per task it watches.
 *
 * @example
 * ```ts
 * const standalone = new StandaloneInputs(runtime, channel, (request, signal) => server.request(request, { signal }));
 * standalone.watch(task, owner); // on create, and on each tasks/get of a running task
 * const resume = standalone.stepAside(task, owner); // a tasks/result carries the input now
 * ```
 */
export class StandaloneInputs {
  private readonly stops = new Map<string, () => void>();

  constructor(
    private readonly runtime: TaskRuntime,
    private readonly channel: InputChannel,
    private readonly sendUnattached: UnattachedSender,
    private readonly graceMs = STANDALONE_INPUT_GRACE_MS,
  ) {}

  /** Starts delivering the task's input requests alone, unless it ended or is watched already. */
  watch(task: TaskView, owner: TaskOwner): void {
    const key = `${owner.principal ?? ''}\u0001${owner.session ?? ''}\u0000${task.taskId}`;
    if (TERMINAL.has(task.status)) {
      this.stops.get(key)?.();
      this.stops.delete(key);
      return;
    }
    if (this.stops.has(key)) return;
    const send = (input: { method: string; params: unknown }, signal: AbortSignal): Promise<unknown> =>
      pause(this.graceMs, signal).then(() => this.sendUnattached({ method: input.method, params: withRelatedMetaFor(task, input.params) }, signal));
    this.stops.set(key, deliverInputs(this.runtime, task.taskId, owner, send, this.channel));
  }

  /**
   * A `tasks/result` for the task is about to carry its input: this deliverer steps aside (what it
   * was sending is handed over) until the returned function is called, when it resumes.
   */
  stepAside(task: TaskView, owner: TaskOwner): () => void {
    const key = `${owner.principal ?? ''}\u0001${owner.session ?? ''}\u0000${task.taskId}`;
    const stop = this.stops.get(key);
    if (!stop) return () => undefined;
    this.stops.delete(key);
    stop();
    // Resumed only for a task still running once the call ends (its requester left).
    return () => void this.runtime.get(task.taskId, owner, { countsAsPoll: false }).then((now) => this.watch(now, owner), () => undefined);
  }

  /** Stops every deliverer (the connection closed). */
  close(): void {
    for (const stop of this.stops.values()) stop();
    this.stops.clear();
  }
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);
