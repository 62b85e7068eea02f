/**
 * `--audit off|stderr|FILE` of `mcp-tasks serve`: where the audit lines go. They are pino JSON
 * lines shaped like the CLI's other log lines (`level` as a word, ISO `time`, `msg`), so one
 * stderr stream reads as one log.
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
export const AUDIT_FLAG_HELP = `  --audit off|stderr|FILE    audit lines (task created, status changes, results fetched, cancels, deletes,
                             refused look-ups, suspicious requesters) as JSON, to stderr or appended to
                             FILE (default stderr; never stdout, which carries the protocol on stdio)`;

/**
 * The runtime's `audit` option for a `--audit` value, or `undefined` for `off`.
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
  if (where.trim() === '') throw new Error("--audit expects off, stderr or a file name, got ''");
  // Synchronous writes: a line is out before the process can exit (stderr on a pipe is
  // synchronous on Linux anyway, as the CLI's other log lines are).
  const destination = pino.destination(where === 'stderr' ? { dest: 2, sync: true } : { dest: where, sync: true, mkdir: true });
  const logger = pino(
    { base: null, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    destination,
  );
  return { logger, ...(node !== undefined && { node }) };
}
