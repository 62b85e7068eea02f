/**
 * A runtime `logger` that hands each line to a function, for the soak runs that keep a few lines.
 *
 * @module
 */
import type { Logger, LogLevel } from '../../runtime/logger.js';

/**
 * A {@link Logger} calling `line(level, message, fields)` for every line.
 *
 * @example
 * ```ts
 * const logger = lineLogger((level, message) => void kept.push(`${level} ${message}`));
 * ```
 */
export function lineLogger(line: (level: LogLevel, message: string, fields: Record<string, unknown>) => void): Logger {
  const at =
    (level: LogLevel) =>
    (fields: object, message?: string): void =>
      line(level, message ?? '', fields as Record<string, unknown>);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
