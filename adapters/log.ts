/**
 * CLI logging: one JSON object per line on stderr. Never stdout, which carries the protocol on stdio.
 * {@link cliLogger} is the same log in the library's `Logger` shape: what `serve` gives its runtime,
 * its HTTP endpoint, its inspector and (`--audit stderr`) its audit, so that one stream carries
 * every line in one format.
 *
 * @module
 */
import type { Logger } from '../runtime/logger.js';
import { traceLogFields } from '../runtime/telemetry/tracing.js';

/** Log levels, most to least severe. */
export type LogLevel = 'error' | 'warn' | 'info';

/**
 * Writes one structured log line to stderr.
 *
 * @example
 * ```ts
 * log('info', 'listening', { url: 'http://127.0.0.1:3000/mcp' });
 * ```
 */
export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields, ...traceLogFields() })}\n`);
}

/**
 * The CLI's log as a `Logger` (pino's call shape: fields, then a message): each call writes one
 * {@link log} line. `debug` writes nothing, as pino at its default level `info`.
 *
 * @example
 * ```ts
 * const runtime = createTaskRuntime({ logger: cliLogger });
 * ```
 */
export const cliLogger: Logger = {
  debug: () => undefined,
  info: (fields, message) => log('info', message ?? '', fields as Record<string, unknown>),
  warn: (fields, message) => log('warn', message ?? '', fields as Record<string, unknown>),
  error: (fields, message) => log('error', message ?? '', fields as Record<string, unknown>),
};
