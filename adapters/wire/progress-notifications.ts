/**
 * `notifications/progress` for the requests that asked for it (`params._meta.progressToken`): a
 * plain call's own reports, and a task's for its whole life (SEP-1686 while the original request
 * stays open; 2025-11-25 keeps the token valid after the `CreateTaskResult`). What is sent comes
 * from the task itself (`view.progress`), so it reaches the requester from whichever node runs
 * the work. Reports are never throttled; those made within one turn of the event loop are
 * coalesced into the latest (each report says all there is to know).
 *
 * @module
 */
import { advancesProgress, isTerminalStatus, type TaskOwner, type TaskProgress } from '../../machines/index.js';
import { progressReport, type TaskRuntime, type TaskView } from '../../runtime/index.js';

/** A progress token as MCP defines it. */
export type ProgressToken = string | number;

/** One `notifications/progress`. */
export interface ProgressNotification {
  readonly method: 'notifications/progress';
  readonly params: { readonly progressToken: ProgressToken; readonly progress: number; readonly total?: number; readonly message?: string };
}

/** Sends one notification where the requester hears it. */
export type ProgressSend = (notification: ProgressNotification) => Promise<void>;

/**
 * The progress token a request carried in `_meta`, if it is one (a string, or an integer).
 *
 * @example
 * ```ts
 * progressTokenOf({ progressToken: 7 }); // 7
 * ```
 */
export function progressTokenOf(meta: unknown): ProgressToken | undefined {
  const token = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['progressToken'] : undefined;
  return typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token)) ? token : undefined;
}

/**
 * The notification of one report.
 *
 * @example
 * ```ts
 * progressNotification('t1', { progress: 4, total: 10 }); // { method: 'notifications/progress', params: { progressToken: 't1', progress: 4, total: 10 } }
 * ```
 */
export function progressNotification(token: ProgressToken, report: TaskProgress): ProgressNotification {
  return { method: 'notifications/progress', params: { progressToken: token, ...report } };
}

/**
 * The report of `task` that `sent` (the last report sent) has not told, or `null`.
 *
 * @example
 * ```ts
 * const news = progressNews(task, lastSent);
 * if (news) send(progressNotification(token, news));
 * ```
 */
export function progressNews(task: Pick<TaskView, 'progress'>, sent: TaskProgress | undefined): TaskProgress | null {
  const progress = task.progress;
  return progress !== undefined && advancesProgress(sent, progress.progress) ? progress : null;
}

/**
 * `ctx.progress` of a plain (not task) call: checked as a task's is, each report sent at once when
 * the request carried a token (none: checked, then dropped), a value that does not increase dropped.
 *
 * @param token - the request's progress token, if any
 * @param send - sends over the request (its own stream on HTTP)
 * @example
 * ```ts
 * const progress = plainProgress(progressTokenOf(extra._meta), (n) => host.notification(n, { relatedRequestId: extra.requestId }));
 * ```
 */
export function plainProgress(token: ProgressToken | undefined, send: ProgressSend): (progress: number, total?: number, message?: string) => boolean {
  let sent: TaskProgress | undefined;
  return (progress, total, message) => {
    const report = progressReport(progress, total, message);
    if (token === undefined || !advancesProgress(sent, report.progress)) return false;
    sent = report;
    send(progressNotification(token, report)).catch(() => undefined);
    return true;
  };
}

/**
 * `ctx.progress` of a plain call that has no way to carry progress (a stateless request, a
 * client's answer): checked, then dropped.
 *
 * @example
 * ```ts
 * return { taskId: null, signal, progress: unsentProgress(), … };
 * ```
 */
export function unsentProgress(): (progress: number, total?: number, message?: string) => boolean {
  return plainProgress(undefined, () => Promise.resolve());
}

/**
 * Follows one task's progress for a requester's token: watched from before the task exists (its
 * work may report before the creation returns), nothing sent until `release()` (a requester hears
 * of its task first), then each new report, coalesced, until the task ends or `stop()`.
 *
 * @example
 * ```ts
 * const follow = followProgress(runtime, taskId, owner, token, send);
 * await runtime.create({ taskId, owner, … });
 * follow.release();
 * ```
 */
export function followProgress(runtime: TaskRuntime, taskId: string, owner: TaskOwner, token: ProgressToken, send: ProgressSend): { release(): void; flush(): Promise<void>; stop(): void } {
  const reports = new ProgressReports(token, send);
  const stop = runtime.subscribe(({ task }) => {
    reports.saw(task);
    if (isTerminalStatus(task.status)) stop();
  }, { taskId, owner });
  return { release: () => reports.release(), flush: () => reports.flush(), stop };
}

/**
 * What one token has been told of one task, and the sending of what it has not: a report seen is
 * held until released, then sent on the next turn of the loop, the latest only.
 *
 * @example
 * ```ts
 * const reports = new ProgressReports(token, send);
 * reports.saw(task); // held
 * reports.release(); // sent
 * ```
 */
export class ProgressReports {
  readonly #token: ProgressToken;
  #send: ProgressSend;
  #sent: TaskProgress | undefined;
  #latest: TaskProgress | null = null;
  #held = true;
  #scheduled = false;

  constructor(token: ProgressToken, send: ProgressSend) {
    this.#token = token;
    this.#send = send;
  }

  /** The task as it changed: its report, if new, is sent (once released). */
  saw(task: Pick<TaskView, 'progress'>): void {
    const news = progressNews(task, this.#latest ?? this.#sent);
    if (news === null) return;
    this.#latest = news;
    if (!this.#held) this.#schedule();
  }

  /** Nothing was sent before: what came meanwhile goes now. */
  release(): void {
    this.#held = false;
    if (this.#latest !== null) this.#schedule();
  }

  /** Where the reports go from now on (a `tasks/result` stream opened, or closed). */
  route(send: ProgressSend): void {
    this.#send = send;
  }

  /**
   * Sends what is waiting now, not on the next turn: before the answer that ends the request
   * (a requester forgets the token with it).
   */
  flush(): Promise<void> {
    const latest = this.#latest;
    if (this.#held || latest === null) return Promise.resolve();
    this.#latest = null;
    this.#sent = latest;
    return this.#send(progressNotification(this.#token, latest)).catch(() => undefined);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.flush();
    });
  }
}
