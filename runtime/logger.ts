/**
 * The library's one logger type, and the node log built from it. Every line the library writes
 * (a runtime's task runs and failures, an HTTP front's 500s, the audit) goes to the `logger` its
 * embedder passed, and nowhere without one: library code never writes to the process's stderr.
 *
 * @module
 */
import { traceLogFields } from './telemetry/tracing.js';

/**
 * Where the library logs: a pino logger, or anything with pino's call shape (an object of fields,
 * then a message) for `debug`, `info`, `warn` and `error`. Typed structurally so that `runtime/`
 * needs no pino import. Absent: the library writes no line at all.
 *
 * @example
 * ```ts
 * import { pino } from 'pino';
 * const logger: Logger = pino({ level: 'info' }, pino.destination(2));
 * const runtime = createTaskRuntime({ logger, audit: {} }); // audit lines through the same logger
 * ```
 */
export interface Logger {
  /** Detail for debugging; the library logs nothing at this level today. */
  debug(fields: object, message?: string): void;
  /** What a node did (a task run, its end, an expiry; the audit's lines). */
  info(fields: object, message?: string): void;
  /** What went wrong and was handled (a lost worker, a lease lost, a delivery not queued). */
  warn(fields: object, message?: string): void;
  /** What went wrong and was not (a request answered 500, an outcome not stored). */
  error(fields: object, message?: string): void;
}

/** A level of {@link Logger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The internal log call of a node's parts: a level, a message, fields. Built from a
 * {@link Logger} by {@link nodeLog}; silent without one.
 */
export type NodeLog = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/**
 * The node log writing through `logger`: every line says its node and, inside a request or a
 * task's run, its trace (see `traceLogFields`). A logger that throws never fails the caller.
 *
 * @param logger - the embedder's logger; absent or `null`: a log that writes nothing
 * @param node - the node name put in every line
 * @example
 * ```ts
 * const log = nodeLog(options.logger, 'local');
 * log('warn', 'could not queue a push delivery', { taskId });
 * ```
 */
export function nodeLog(logger: Logger | null | undefined, node: string): NodeLog {
  if (!logger) return () => undefined;
  return (level, message, fields) => {
    try {
      logger[level]({ node, ...fields, ...traceLogFields() }, message);
    } catch {
      // A log sink that fails (a full disk) must not fail the work it reports on.
    }
  };
}
