/**
 * The audit: structured lines for every task creation, status change, result retrieval,
 * cancellation, deletion and refused look-up, and counters of suspicious requesters. Turned on
 * by passing `audit` to `createTaskRuntime` (or `createNatsTaskRuntime`); read the counters with
 * `runtime.security()`.
 *
 * @example
 * ```ts
 * import { pino } from 'pino';
 * import { createTaskRuntime } from 'mcp-task-actors';
 * const runtime = createTaskRuntime({ audit: { logger: pino(), node: 'api-1' } });
 * console.log(runtime.security().totals.failedLookups);
 * ```
 *
 * @module
 */
export { AuditLog, openAudit } from './audit-log.js';
export type { AuditOp } from './audit-log.js';
export { auditRuntime } from './audited-runtime.js';
export { SuspicionCounters, DEFAULT_SUSPICION_THRESHOLDS, disabledSecurityReport } from './suspicion-counters.js';
export type { SuspicionFlag } from './suspicion-counters.js';
export { AuditEvent } from './audit.types.js';
export type { AuditLogger, AuditOptions, SecurityReport, SuspectRequester, SuspicionThresholds } from './audit.types.js';
