/**
 * One soak requester: its own MCP session, a few tasks in flight at a time, each created, polled
 * with `tasks/get` until terminal, then fetched with `tasks/result` and compared with what it must
 * be. A limit refusal (-32029) is what a server under load is meant to answer: the requester waits
 * the `retryAfterMs` it was given and asks again, and counts it. Anything else that goes wrong is
 * a failure of the task, recorded with what happened.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { checkResult, soakTask, type SoakDialect, type SoakTask } from './soak-tasks.js';
import type { RpcReply, SoakSession } from './soak-wire.js';

/** JSON-RPC code of a limit refusal (see the README's limits). */
const LIMIT_EXCEEDED = -32029;
/** Statuses that end a task (SEP-1686 names all four; 2025-11-25 shows `unknown` as `failed`). */
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);
const SEP_TASK_KEY = 'modelcontextprotocol.io/task';

/** What all requesters of one run add up. */
export interface SoakTally {
  /** Tasks whose result came back exactly as expected. */
  ok: number;
  /** Create (accepted) → terminal status seen by a poll, per task, in ms. */
  readonly latenciesMs: number[];
  /** -32029 answers waited out and retried, by method. */
  readonly refusals: Record<string, number>;
  /** Tasks lost or wrong, one line each (what was seen). */
  readonly failures: string[];
  /** Round-trip time of every request, by method, in ms (how loaded the server was). */
  readonly roundTripsMs: Record<string, number[]>;
  /** Chaos run: internal errors (-32603: NATS away) and failed exchanges waited out and retried, by method. */
  readonly outageErrors: Record<string, number>;
  /** Chaos run: SEP-1686 direct replies that ended in an error; their tasks were checked by polling. */
  directLost: number;
}

/** How one requester runs. */
export interface RequesterOptions {
  readonly id: number;
  /** Its session, open already. */
  readonly session: SoakSession;
  readonly dialect: SoakDialect;
  /** How many tasks it creates. */
  readonly tasks: number;
  /** How many of its tasks it has in flight at once. */
  readonly window: number;
  /** Waits this long before its first task (requesters join one after another, see `--ramp-ms`). */
  readonly startDelayMs: number;
  /** The retention asked for each task (`ttl` / `keepAlive`). */
  readonly keepAliveMs: number;
  /** Unique per run (see {@link soakTask}). */
  readonly nonce: string;
  readonly signal: AbortSignal;
  readonly tally: SoakTally;
  /**
   * The chaos run: the cluster loses a worker and NATS restarts under the load. An internal error
   * (-32603) or a failed exchange is then what a server says while NATS is away: waited out and
   * retried, as a client should, and counted. The task mix leaves out the prompt (not re-runnable).
   */
  readonly outage?: boolean;
}

const INTERNAL_ERROR = -32603;
const OUTAGE_RETRY_MS = 250;
/** How long a requester keeps retrying through an outage before it calls the task failed. */
const OUTAGE_GIVE_UP_MS = 60_000;

/** A task that cannot go on; the message says what was seen. */
class TaskFailure extends Error {}

/**
 * Polls are spaced as the server suggests, loosely: its `pollInterval` / `pollFrequency` (1 s by
 * default) held between 50 and 200 ms so that 10k tasks finish in minutes, with ±25 % jitter so
 * that 100 requesters do not poll in lockstep.
 */
function pollGap(suggested: unknown): number {
  const base = Math.min(200, Math.max(50, typeof suggested === 'number' ? suggested : 200));
  return base * (0.75 + Math.random() * 0.5);
}

/**
 * Runs one requester to the end of its tasks. Its session stays open: the soak closes all
 * sessions together, after measuring the heap with every task retained.
 *
 * @throws the abort reason when the run is aborted (a task's failure is recorded, not thrown)
 * @example
 * ```ts
 * await runRequester({ id: 0, session, dialect: 'sep-1686', tasks: 100, window: 2, startDelayMs: 0, keepAliveMs: 5000, nonce, signal, tally });
 * ```
 */
export async function runRequester(o: RequesterOptions): Promise<void> {
  const { session } = o;

  /**
   * Sends until the answer is not a limit refusal; the refusals are counted and waited out.
   * Returns the answer and when the request that got it was sent.
   */
  /** In the chaos run: waits out one outage answer (or throws once the outage lasts too long). */
  const outageRetry = async (method: string, since: number, what: unknown): Promise<void> => {
    if (performance.now() - since > OUTAGE_GIVE_UP_MS) throw new TaskFailure(`${method}: still failing after ${OUTAGE_GIVE_UP_MS} ms: ${JSON.stringify(what)}`);
    o.tally.outageErrors[method] = (o.tally.outageErrors[method] ?? 0) + 1;
    await delay(OUTAGE_RETRY_MS, undefined, { signal: o.signal });
  };
  const askTimed = async (method: string, params: Record<string, unknown>): Promise<{ reply: RpcReply; sentAt: number }> => {
    const since = performance.now();
    for (;;) {
      const sentAt = performance.now();
      let reply: RpcReply;
      try {
        reply = await session.request(method, params);
      } catch (error) {
        if (!o.outage || o.signal.aborted) throw error;
        await outageRetry(method, since, String(error));
        continue;
      }
      (o.tally.roundTripsMs[method] ??= []).push(performance.now() - sentAt);
      if (o.outage && 'error' in reply && reply.error.code === INTERNAL_ERROR) {
        await outageRetry(method, since, reply.error);
        continue;
      }
      if (!('error' in reply) || reply.error.code !== LIMIT_EXCEEDED) return { reply, sentAt };
      o.tally.refusals[method] = (o.tally.refusals[method] ?? 0) + 1;
      const after = (reply.error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
      // null: the running-tasks limit, which says "when one of your tasks has ended".
      await delay(typeof after === 'number' ? Math.max(after, 1) : 100, undefined, { signal: o.signal });
    }
  };
  const ask = async (method: string, params: Record<string, unknown>): Promise<RpcReply> => (await askTimed(method, params)).reply;
  const resultOf = (what: string, reply: RpcReply): Record<string, unknown> => {
    if ('error' in reply) throw new TaskFailure(`${what}: error ${reply.error.code} ${reply.error.message}`);
    return reply.result;
  };

  /** SEP-1686: the requester names the task; the reply comes when the work is done. */
  const createSep = async (task: SoakTask, taskId: string): Promise<{ sentAt: number; direct: Promise<RpcReply> | undefined }> => {
    const params = { ...task.params, _meta: { [SEP_TASK_KEY]: { taskId, keepAlive: o.keepAliveMs } } };
    const since = performance.now();
    let tried = false;
    for (;;) {
      const sentAt = performance.now();
      let created!: () => void;
      const announced = new Promise<void>((resolve) => (created = resolve));
      // The created notification comes ahead of the result on the request's own stream; only
      // then may the task be polled. A refusal or an early result ends the stream instead.
      const direct = session.request(task.method, params, (n) => n['method'] === 'notifications/tasks/created' && created());
      // Handled here so that a task failing before its direct reply is read leaves no stray rejection.
      direct.catch(() => undefined);
      let first: RpcReply | null;
      try {
        first = await Promise.race([announced.then(() => null), direct]);
      } catch (error) {
        if (!o.outage || o.signal.aborted) throw error;
        first = { error: { code: INTERNAL_ERROR, message: String(error) } };
      }
      if (first === null || !('error' in first)) return { sentAt, direct };
      // Chaos run: an earlier try that failed may have created it after all. It is then polled
      // like any other; its direct reply went with the failed try.
      if (o.outage && tried && first.error.message.startsWith('Task ID already exists')) return { sentAt, direct: undefined };
      if (o.outage && first.error.code === INTERNAL_ERROR) {
        tried = true;
        await outageRetry(task.method, since, first.error);
        continue;
      }
      if (first.error.code !== LIMIT_EXCEEDED) throw new TaskFailure(`${task.label} (${taskId}): create answered ${first.error.code} ${first.error.message}`);
      o.tally.refusals[task.method] = (o.tally.refusals[task.method] ?? 0) + 1;
      const after = (first.error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
      await delay(typeof after === 'number' ? Math.max(after, 1) : 100, undefined, { signal: o.signal });
    }
  };

  const runTask = async (index: number): Promise<void> => {
    const task = soakTask(o.id, index, o.dialect, o.nonce, o.outage ? 2 : 3);
    let taskId = `soak-${o.nonce}-r${o.id}-${index}`;
    let sentAt: number;
    let direct: Promise<RpcReply> | undefined;
    let gap: unknown;
    if (o.dialect === 'sep-1686') {
      ({ sentAt, direct } = await createSep(task, taskId));
    } else {
      // 2025-11-25: the server names the task and answers at once. A refused create made no task,
      // so the clock starts at the accepted one.
      const accepted = await askTimed(task.method, { ...task.params, task: { ttl: o.keepAliveMs } });
      sentAt = accepted.sentAt;
      const created = resultOf(`${task.label}: create`, accepted.reply);
      const shown = created['task'] as { taskId?: unknown; pollInterval?: unknown } | undefined;
      if (typeof shown?.taskId !== 'string') throw new TaskFailure(`${task.label}: CreateTaskResult without a task id: ${JSON.stringify(created)}`);
      taskId = shown.taskId;
      gap = shown.pollInterval;
    }
    for (;;) {
      await delay(pollGap(gap), undefined, { signal: o.signal });
      const seen = resultOf(`${task.label} (${taskId}): tasks/get`, await ask('tasks/get', { taskId }));
      gap = seen['pollInterval'] ?? seen['pollFrequency'];
      if (!TERMINAL.has(String(seen['status']))) continue;
      o.tally.latenciesMs.push(performance.now() - sentAt);
      if (seen['status'] !== task.status) throw new TaskFailure(`${task.label} (${taskId}): ended '${String(seen['status'])}', expected '${task.status}' (${JSON.stringify(seen).slice(0, 300)})`);
      break;
    }
    const result = resultOf(`${task.label} (${taskId}): tasks/result`, await ask('tasks/result', { taskId }));
    const wrong = checkResult(task, o.dialect, taskId, result);
    if (wrong !== null) throw new TaskFailure(`tasks/result: ${wrong}`);
    const directReply = direct === undefined ? undefined : await direct.catch((error: unknown) => ({ error: { code: INTERNAL_ERROR, message: String(error) } }));
    // Chaos run: a direct reply cut by the outage is counted; the task's result was checked above.
    if (o.outage && directReply !== undefined && 'error' in directReply && directReply.error.code === INTERNAL_ERROR) o.tally.directLost++;
    else if (directReply !== undefined) {
      const wrongDirect = checkResult(task, o.dialect, taskId, resultOf(`${task.label} (${taskId}): direct reply`, directReply));
      if (wrongDirect !== null) throw new TaskFailure(`direct reply: ${wrongDirect}`);
    }
    o.tally.ok++;
  };

  let next = 0;
  await delay(o.startDelayMs, undefined, { signal: o.signal });
  const lane = async (): Promise<void> => {
    while (next < o.tasks) {
      const index = next++;
      try {
        await runTask(index);
      } catch (error) {
        if (o.signal.aborted) throw error;
        o.tally.failures.push(`requester ${o.id} (${o.dialect}) task ${index}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.window, o.tasks) }, lane));
}
