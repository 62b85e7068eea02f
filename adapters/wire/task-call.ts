/**
 * The handle `TaskClient.callTool` and `TaskClient.task` give out: it negotiates the dialect,
 * follows the task with a requester actor (or makes a plain call), and gives the outcome one shape
 * on every dialect (see {@link TaskCall}).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { advancesProgress, isTerminalStatus, type RequesterDialect, type RequesterTask } from '../../machines/index.js';
import { progressOfText } from '../dialects/progress-text.js';
import type { CallToolResult } from './mcp-shapes.js';
import { checkRetention } from './dialect-choice.js';
import { TaskClientError, TaskClientErrorCode, TaskFailedError } from './task-client.errors.js';
import type { ActorPendingTask, Flight } from './task-client.pending.js';
import type { CallToolParams } from './task-client.types.js';
import type { CallDialect, CallOptions, CallStart, TaskCall, TaskRefOptions, TaskUpdate } from './task-call.types.js';
import type { InputRoutes } from './input-routes.js';
import type { ProgressOfCall, TaskWire } from './task-client.wire.js';
import { UpdateFeed } from './task-updates.js';

/** What a {@link CallHandle} needs of its task client. */
export interface CallEngine {
  /** The dialect a call goes out in (negotiated unless one was asked for). */
  callDialect(tool: string, asked: CallOptions['dialect']): Promise<CallDialect>;
  /** The dialect an existing task is read in. */
  taskDialect(asked: TaskRefOptions['dialect']): RequesterDialect;
  /** Starts following a flight; `hooks` feed the handle's updates. */
  track(flight: Flight, hooks: { readonly onInputRequest: CallOptions['onInputRequest']; readonly onProgress: (p: ProgressOfCall) => void }): { pending: ActorPendingTask; wire: TaskWire };
  /** A plain `tools/call`. */
  plain(params: CallToolParams, signal: AbortSignal, onProgress: (p: ProgressOfCall) => void): Promise<CallToolResult>;
  /** The per-call input routes of the session dialects, installed on the client at first need. */
  inputRoutes(wanted: boolean): InputRoutes | undefined;
}

/** What one handle does: a new call, or an existing task. */
export type CallJob = { readonly kind: 'call'; readonly params: CallToolParams; readonly options: CallOptions } | { readonly kind: 'task'; readonly taskId: string; readonly options: TaskRefOptions };

/**
 * The result a failed task stands for when the server kept none: its error message as text.
 *
 * @example
 * ```ts
 * failureResult(task); // { content: [{ type: 'text', text: 'Worker lost' }], isError: true }
 * ```
 */
export function failureResult(task: RequesterTask | null): CallToolResult {
  const text = task?.error ?? task?.statusMessage ?? `Task ${task?.taskId ?? ''} failed`.replace('  ', ' ');
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A call in flight. See {@link TaskCall}.
 *
 * @example
 * ```ts
 * const call = new CallHandle(engine, { kind: 'call', params: { name: 'sleep', arguments: { ms: 500 } }, options: {} });
 * console.log(await call.result());
 * ```
 */
export class CallHandle implements TaskCall {
  taskId: string | undefined;
  dialect: CallDialect | undefined;
  readonly started: Promise<CallStart>;
  readonly #feed = new UpdateFeed();
  readonly #outcome: Promise<CallToolResult>;
  #pending: ActorPendingTask | undefined;
  #plain: AbortController | undefined;
  #cancelAsked: string | null = null;
  #ended = false;
  #start!: { resolve: (s: CallStart) => void; reject: (e: unknown) => void };

  constructor(engine: CallEngine, job: CallJob) {
    this.started = new Promise<CallStart>((resolve, reject) => (this.#start = { resolve, reject }));
    this.started.catch(() => undefined);
    this.#outcome = this.#run(engine, job);
    this.#outcome.catch(() => undefined);
    const signal = job.options.signal;
    if (signal?.aborted) void this.cancel('aborted by the signal');
    else signal?.addEventListener('abort', () => void this.cancel('aborted by the signal').catch(() => undefined), { once: true });
  }

  get task(): RequesterTask | null {
    return this.#completed ?? this.#pending?.task ?? null;
  }

  result(options: { readonly signal?: AbortSignal } = {}): Promise<CallToolResult> {
    const { signal } = options;
    if (signal === undefined) return this.#outcome;
    return new Promise<CallToolResult>((resolve, reject) => {
      const stop = (): void => reject(new TaskClientError(TaskClientErrorCode.aborted, 'Stopped waiting for the call', { cause: signal.reason }));
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.#outcome.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
    });
  }

  updates(): AsyncIterableIterator<TaskUpdate> {
    return this.#feed.iterate();
  }

  async cancel(reason?: string): Promise<void> {
    if (this.#ended) return;
    const why = reason ?? 'cancelled by the requester';
    if (this.#pending !== undefined) this.#pending.cancel(why);
    else if (this.#plain !== undefined) this.#plain.abort(why);
    // Not out yet (the dialect is being chosen): cancelled as soon as it is.
    else this.#cancelAsked = why;
  }

  async #run(engine: CallEngine, job: CallJob): Promise<CallToolResult> {
    let unroute = (): void => undefined;
    try {
      const dialect = job.kind === 'task' ? engine.taskDialect(job.options.dialect) : await engine.callDialect(job.params.name, job.options.dialect);
      this.dialect = dialect;
      const push = (update: TaskUpdate): void => this.#push(update);
      const onProgress = (p: ProgressOfCall): void => push({ type: 'progress', ...p });
      if (job.kind === 'call') checkRetention(dialect, job.options);
      if (dialect === 'plain') {
        if (job.kind === 'task') throw new TypeError('A task is read in a task dialect, not plain');
        this.#plain = new AbortController();
        if (this.#cancelAsked !== null) this.#plain.abort(this.#cancelAsked);
        this.#start.resolve({ kind: 'direct' });
        return await engine.plain(job.params, this.#plain.signal, onProgress);
      }
      const onInputRequest = job.options.onInputRequest;
      const routes = dialect === '2026-07-28' ? undefined : engine.inputRoutes(onInputRequest !== undefined);
      const route = (taskId: string): void => {
        if (routes !== undefined) unroute = routes.route(taskId, onInputRequest, push, AbortSignal.any([]));
      };
      const sepId = dialect === 'sep-1686' && job.kind === 'call' ? (job.options.taskId ?? randomUUID()) : undefined;
      const taskId = job.kind === 'task' ? job.taskId : sepId;
      // Routed before the request goes out: a question may come before the first poll.
      if (taskId !== undefined) {
        this.taskId = taskId;
        route(taskId);
      }
      const flight: Flight = {
        dialect,
        taskId,
        call: job.kind === 'call' ? { params: job.params, options: { ...(job.options.keepAlive !== undefined && { keepAlive: job.options.keepAlive }), ...(job.options.ttl !== undefined && { ttl: job.options.ttl }) } } : undefined,
        observe: {
          push,
          onTaskId: (id) => {
            if (this.taskId === undefined) route(id);
            this.taskId = id;
          },
          onEnd: () => undefined,
        },
      };
      const { pending, wire } = engine.track(flight, { onInputRequest, onProgress });
      this.#pending = pending;
      if (this.#cancelAsked !== null) pending.cancel(this.#cancelAsked);
      // What came after the last poll (a task may end between two; a SEP-1686 result comes
      // without one): read once more, so that updates() ends with every partial and subtask.
      const lastRead = async (): Promise<void> => {
        if (this.#sawTask && this.taskId !== undefined) await wire.getTask(this.taskId).catch(() => undefined);
      };
      try {
        const result = await pending.result();
        await lastRead();
        this.#start.resolve(this.#sawTask ? { kind: 'task', taskId: this.taskId! } : { kind: 'direct' });
        // SEP-1686 answers the original request: the last poll may have seen the task still working.
        const last = pending.task;
        if (this.#sawTask && last !== null && last.status !== 'completed') {
          this.#completed = { ...last, status: 'completed', statusMessage: null };
          this.#feed.push({ type: 'status', task: this.#completed });
        }
        return result;
      } catch (error) {
        await lastRead();
        if (!(error instanceof TaskFailedError)) throw error;
        // A failed task is an answer: the server's own error result when it kept one.
        const kept = this.taskId === undefined ? null : await pending.failedResult(wire, this.taskId);
        return kept === null ? failureResult(error.task) : { ...kept, isError: true };
      }
    } catch (error) {
      this.#start.reject(error);
      throw error;
    } finally {
      this.#ended = true;
      unroute();
      this.#feed.end();
    }
  }

  #sawTask = false;
  /** The task as its result showed it ended, when the last poll had not seen it yet. */
  #completed: RequesterTask | null = null;

  #push(update: TaskUpdate): void {
    if (update.type === 'status' && !this.#sawTask) {
      this.#sawTask = true;
      this.#start.resolve({ kind: 'task', taskId: update.task.taskId });
    }
    this.#feed.push(update);
    // The 2026-07-28 wire has no progress notifications: a server writes progress into the status message.
    if (update.type === 'status' && this.dialect === '2026-07-28') this.#progressOf(update.task);
  }

  /** The last progress pushed, read off status messages: each later one only if it increased. */
  #lastProgress: { readonly progress: number } | undefined;

  #progressOf(task: RequesterTask): void {
    const progress = isTerminalStatus(task.status) ? null : progressOfText(task.statusMessage);
    if (progress === null || !advancesProgress(this.#lastProgress, progress.progress)) return;
    this.#lastProgress = progress;
    this.#feed.push({ type: 'progress', ...progress });
  }
}
