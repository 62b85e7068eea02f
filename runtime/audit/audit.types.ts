/**
 * Public types of the audit: what an embedder passes (`TaskRuntimeOptions.audit`) and what
 * `runtime.security()` reports.
 *
 * @module
 */

import type { Logger } from '../logger.js';

/**
 * Where audit lines go: the library's one {@link Logger} type (pino fits).
 *
 * @deprecated use `Logger`; kept so that code naming it still compiles
 * @example
 * ```ts
 * const logger: AuditLogger = pino();
 * ```
 */
export type AuditLogger = Logger;

/**
 * The names of audit lines (the `event` field of each line).
 *
 * @example
 * ```ts
 * const refused = lines.filter((line) => line.event === AuditEvent.refused);
 * ```
 */
export const AuditEvent = {
  /** A task was created (logged by the node that stored it). */
  created: 'task.created',
  /** A task's status changed (logged once, by the node that wrote the change). */
  status: 'task.status',
  /** A requester fetched a terminal task's result or outcome. */
  result: 'task.result',
  /** A requester cancelled a task. */
  cancelled: 'task.cancelled',
  /** A requester deleted a task. */
  deleted: 'task.deleted',
  /** A look-up of an id the requester has no task under (unknown, or another requester's). */
  refused: 'task.refused',
  /** A requester crossed a suspicion threshold (once per window and reason). */
  suspicious: 'suspicious',
  /** An operator cancelled a task from the inspector (the line names the operator). */
  operatorCancel: 'operator.cancel',
} as const;
/** One audit line name. */
export type AuditEvent = (typeof AuditEvent)[keyof typeof AuditEvent];

/**
 * When a requester (session + principal) is flagged as suspicious. Counts are over a sliding
 * window of `windowMs`; a requester is flagged when a count goes above its threshold.
 *
 * @example
 * ```ts
 * const thresholds: SuspicionThresholds = { ...DEFAULT_SUSPICION_THRESHOLDS, failedLookups: 5 };
 * ```
 */
export interface SuspicionThresholds {
  /** The sliding window, in ms. @default 60_000 */
  readonly windowMs: number;
  /** Failed look-ups (unknown or foreign task ids) per window above which a requester is flagged. @default 20 */
  readonly failedLookups: number;
  /**
   * Polls (`get`) of one task sooner than half its suggested poll interval after the previous one,
   * per window, above which a requester is flagged. @default 20
   */
  readonly fastPolls: number;
  /** Requesters (and polled tasks) tracked at most; the least recently seen are forgotten first. @default 10_000 */
  readonly maxTracked: number;
  /** Requesters listed in a report's `top`. @default 10 */
  readonly topRequesters: number;
}

/**
 * Audit settings of a runtime (`TaskRuntimeOptions.audit`). Absent: no audit at all, at no cost.
 * Given: the audit lines go through the runtime's own `logger` unless `logger` here names another.
 *
 * @example
 * ```ts
 * import { pino } from 'pino';
 * const logger = pino();
 * const runtime = createTaskRuntime({ logger, audit: { node: 'api-1' } }); // audit lines through `logger`
 * const apart = createTaskRuntime({ logger, audit: { logger: pino(pino.destination('audit.log')) } });
 * ```
 */
export interface AuditOptions {
  /**
   * Where the audit lines go. Absent: through the runtime's `logger` (`TaskRuntimeOptions.logger`;
   * without one, no lines). `null`: counters only (see `runtime.security()`), no lines.
   * @default the runtime's `logger`
   */
  readonly logger?: Logger | null;
  /** The node name in every line and report. @default the NATS node id; `'local'` on the memory backend */
  readonly node?: string;
  /** When a requester counts as suspicious; see {@link SuspicionThresholds}. */
  readonly suspicion?: Partial<SuspicionThresholds>;
}

/**
 * One requester in a {@link SecurityReport}, with its counts since it was first tracked.
 *
 * @example
 * ```ts
 * for (const r of runtime.security().top) if (r.flagged) console.warn(r.session, r.failedLookups);
 * ```
 */
export interface SuspectRequester {
  /** Its session; `null` for an authenticated requester (one line for all its sessions). */
  readonly session: string | null;
  readonly principal: string | null;
  /** Its network address, for an anonymous 2026-07-28 caller over HTTP (one line per address); else `null`. */
  readonly peer: string | null;
  readonly failedLookups: number;
  readonly fastPolls: number;
  readonly limitRefusals: number;
  /** How many times it crossed a threshold. */
  readonly flags: number;
  /** True while a flag raised within the last window holds. */
  readonly flagged: boolean;
  /** Epoch ms of its last counted act. */
  readonly lastSeen: number;
}

/**
 * What `runtime.security()` returns: this node's counters of suspicious patterns since it started.
 *
 * @example
 * ```ts
 * const report = runtime.security();
 * if (report.flagged > 0) console.warn(report.top[0]);
 * ```
 */
export interface SecurityReport {
  /** False when the runtime was created without `audit` (every count is then 0). */
  readonly enabled: boolean;
  readonly node: string;
  /** Epoch ms the counting began. */
  readonly since: number;
  readonly thresholds: { readonly windowMs: number; readonly failedLookups: number; readonly fastPolls: number };
  readonly totals: {
    readonly failedLookups: number;
    readonly fastPolls: number;
    readonly limitRefusals: number;
    /** Thresholds crossed (each is one `suspicious` audit line). */
    readonly flags: number;
  };
  /** Requests refused by a limit (`TaskLimitError`), by limit name. */
  readonly limitRefusals: Readonly<Record<string, number>>;
  /** Requesters flagged within the last window. */
  readonly flagged: number;
  /** Requesters tracked now (bounded by `maxTracked`). */
  readonly tracked: number;
  /** The requesters with most failed look-ups and fast polls, worst first. */
  readonly top: readonly SuspectRequester[];
}
