/**
 * CLI logging: one JSON object per line on stderr. Never stdout, which carries the protocol on stdio.
 *
 * @module
 */
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
