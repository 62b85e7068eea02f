/**
 * `--audit off|stderr|log|FILE` of `mcp-tasks serve`: where the audit lines go. On stderr (`stderr`
 * or `log`, the same) they go through the node's own log, the logger `serve` gives its runtime: one
 * stream, one line format, trace fields included. To a file they are pino JSON lines shaped like
 * the CLI's log lines (`level` as a word, ISO `time`, `msg`).
 *
 * @module
 */
import pino from 'pino';
import type { AuditOptions } from '../../runtime/index.js';

/**
 * Help lines of `--audit`, for `SERVE_HELP`.
 *
 * @example
 * ```ts
 * const help = `Tasks:\n${AUDIT_FLAG_HELP}\n`;
 * ```
 */
export const AUDIT_FLAG_HELP = `  --audit off|stderr|log|FILE
                             audit lines (task created, status changes, results fetched, cancels, deletes,
                             refused look-ups, suspicious requesters) as JSON, through the node's log on
                             stderr (stderr or log, the same) or appended to FILE (default stderr; never
                             stdout, which carries the protocol on stdio)`;

/**
 * The runtime's `audit` option for a `--audit` value, or `undefined` for `off`. For `stderr` (or
 * `log`) it names no logger: the lines go through the runtime's `logger` (`AuditOptions.logger`).
 *
 * @param value - the flag's value; absent means `stderr`
 * @param node - the node name for the lines (`--node-id`); absent: the runtime's own
 * @throws Error for an empty value
 * @example
 * ```ts
 * const audit = auditOption(values.audit, values['node-id']);
 * if (audit) runtimeOptions.audit = audit;
 * ```
 */
export function auditOption(value: string | undefined, node: string | undefined): AuditOptions | undefined {
  const where = value ?? 'stderr';
  if (where === 'off') return undefined;
  if (where.trim() === '') throw new Error("--audit expects off, stderr, log or a file name, got ''");
  // Through the runtime's logger, which `serve` makes the CLI's log.
  if (where === 'stderr' || where === 'log') return { ...(node !== undefined && { node }) };
  // Synchronous writes: a line is out before the process can exit.
  const destination = pino.destination({ dest: where, sync: true, mkdir: true });
  const logger = pino(
    { base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    destination,
  );
  return { logger, ...(node !== undefined && { node }) };
}
