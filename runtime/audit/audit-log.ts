/**
 * The audit of one runtime (one node): writes one structured line per task creation, status
 * change, result retrieval, cancellation, deletion and refused look-up, each naming the task, the
 * requester (session, principal) and the node, and keeps the suspicion counters.
 *
 * @module
 */
import type { TaskOwner, TaskStatus } from '../../machines/index.js';
import { TaskLimitError, TaskNotFoundError } from '../errors.js';
import type { TaskView } from '../task-runtime.types.js';
import { suggestedPollInterval } from '../core/poll-pacing.js';
import { AuditEvent, type AuditOptions, type SecurityReport } from './audit.types.js';
import type { Logger } from '../logger.js';
import { SuspicionCounters, type SuspicionFlag } from './suspicion-counters.js';
import { traceLogFields } from '../telemetry/tracing.js';
import { shownSession, shownTaskId } from '../secrets.js';

/**
 * The runtime calls the audit names in its lines (`op`).
 *
 * @example
 * ```ts
 * audit.failed('get' satisfies AuditOp, taskId, owner, error);
 * ```
 */
export type AuditOp =
  | 'create'
  | 'get'
  | 'peek'
  | 'list'
  | 'result'
  | 'outcome'
  | 'waitForOutcome'
  | 'waitForTerminal'
  | 'update'
  | 'cancel'
  | 'delete'
  | 'pendingInputRequests'
  | 'answerInput';

/**
 * Writes audit lines and counts suspicious patterns. Made by {@link openAudit}; the runtimes feed
 * it from their own status changes and through {@link auditRuntime}.
 *
 * @example
 * ```ts
 * const audit = openAudit({ logger: pino() }, 'node-1', Date.now);
 * audit?.changed(view, 'working');
 * ```
 */
export class AuditLog {
  readonly node: string;
  readonly counters: SuspicionCounters;
  readonly #logger: Logger | null;
  readonly #now: () => number;

  /** @param runtimeLogger - the runtime's `logger`: where the lines go when `options.logger` is absent */
  constructor(options: AuditOptions, node: string, now: () => number, runtimeLogger: Logger | null = null) {
    this.node = options.node ?? node;
    // Absent: through the runtime's logger; `null`: no lines at all (counters only).
    this.#logger = options.logger === undefined ? runtimeLogger : options.logger;
    this.#now = now;
    this.counters = new SuspicionCounters(options.suspicion, now);
  }

  /**
   * A task was created (`previous === null`) or changed status. A change of the status message
   * alone is not logged. `previous === undefined`: a change whose prior status is not known (a
   * retried write recognised after its reply was lost).
   */
  changed(task: TaskView, previous: TaskStatus | null | undefined): void {
    if (!this.#logger) return;
    if (previous === null) {
      this.#line('info', AuditEvent.created, task.taskId, task.owner, {
        method: task.method,
        label: task.label,
        dialect: task.dialect,
        status: task.status,
        keepAlive: task.keepAlive,
      });
    } else if (previous !== task.status) {
      this.#line('info', AuditEvent.status, task.taskId, task.owner, {
        from: previous ?? null,
        to: task.status,
        statusMessage: task.statusMessage,
        ...(task.error !== null && { error: task.error }),
      });
    }
  }

  /**
   * A requester polled a task (`get`): its next poll is judged against the interval this answer
   * suggests (the runtime's clock, as the dialects render it).
   */
  polled(task: TaskView, owner: TaskOwner): void {
    this.#flag(this.counters.poll(owner, task.taskId, task.status, suggestedPollInterval(task, this.#now())));
  }

  /** A requester fetched what a terminal task produced. */
  retrieved(op: AuditOp, task: TaskView, owner: TaskOwner, hasResult: boolean): void {
    this.#line('info', AuditEvent.result, task.taskId, owner, { op, status: task.status, hasResult });
  }

  /** A requester cancelled a task. */
  cancelled(task: TaskView, owner: TaskOwner): void {
    this.#line('info', AuditEvent.cancelled, task.taskId, owner, { op: 'cancel', status: task.status, statusMessage: task.statusMessage });
  }

  /** A requester deleted a task. */
  deleted(taskId: string, owner: TaskOwner): void {
    this.counters.forgetTask(owner, taskId);
    this.#line('info', AuditEvent.deleted, taskId, owner, { op: 'delete' });
  }

  /**
   * A call failed: a not-found is a refused look-up (the requester's answer says only "not
   * found", whether the id is unknown or another requester's; this line is where an operator
   * sees it), a limit refusal is counted; anything else is the caller's business.
   */
  failed(op: AuditOp, taskId: string | null, owner: TaskOwner, error: unknown): void {
    if (error instanceof TaskNotFoundError) {
      this.#line('warn', AuditEvent.refused, taskId, owner, { op, reason: 'not-found' });
      this.#flag(this.counters.failedLookup(owner));
    } else if (error instanceof TaskLimitError) {
      this.counters.limitRefused(owner, error.limit);
    }
  }

  /** This node's counters now. */
  report(): SecurityReport {
    const report = this.counters.report(this.node);
    // Served (/status, `mcp-tasks status`, the inspector) and published with every heartbeat on
    // NATS: a suspect's session id goes shortened, as in the audit lines.
    return { ...report, top: report.top.map((r) => ({ ...r, session: shownSession(r.session) })) };
  }

  #flag(flag: SuspicionFlag | null): void {
    if (flag === null) return;
    const { reason, count, threshold, windowMs } = flag;
    this.#write('warn', { event: AuditEvent.suspicious, session: shownSession(flag.requester.session), principal: flag.requester.principal, ...(flag.requester.peer !== null && { peer: flag.requester.peer }), node: this.node, reason, count, threshold, windowMs }, AuditEvent.suspicious);
  }

  #line(level: 'info' | 'warn', event: AuditEvent, taskId: string | null, owner: TaskOwner, fields: Record<string, unknown>): void {
    if (!this.#logger) return;
    // Audit lines are shipped and kept: a session id and a bearer task id (credentials) go shortened.
    const shownId = taskId === null ? null : shownTaskId(taskId, owner);
    this.#write(level, { event, taskId: shownId, session: shownSession(owner.session), principal: owner.principal, node: this.node, ...fields }, event);
  }

  #write(level: 'info' | 'warn', fields: object, message: string): void {
    try {
      // Inside a request or a task's run, the line names its trace (see `traceLogFields`).
      this.#logger?.[level]({ ...fields, ...traceLogFields() }, message);
    } catch {
      // A failing log sink must not fail the request or the task write that is being audited.
    }
  }
}

/**
 * The audit of a runtime, or `null` when `options` is absent (no audit, no cost).
 *
 * @param options - `TaskRuntimeOptions.audit`
 * @param node - the node name unless `options.node` says otherwise
 * @param now - the runtime's clock
 * @param runtimeLogger - the runtime's `logger` (`TaskRuntimeOptions.logger`): where the lines go
 *   unless `options.logger` names another (or is `null`: no lines)
 * @throws InvalidArgumentError for a suspicion threshold that is not a positive number
 * @example
 * ```ts
 * const audit = openAudit(options.audit, 'local', opts.now, options.logger);
 * ```
 */
export function openAudit(options: AuditOptions | undefined, node: string, now: () => number, runtimeLogger?: Logger | null): AuditLog | null {
  return options === undefined ? null : new AuditLog(options, node, now, runtimeLogger ?? null);
}
