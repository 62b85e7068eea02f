/**
 * The library's one `Logger` type: pino itself fits it (and every place that takes a logger:
 * both runtime factories, the HTTP endpoint and handler, the inspector, the audit), as does any
 * object with pino's `debug`/`info`/`warn`/`error(fields, message)`.
 */
import pino from 'pino';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createTaskRuntime, type AuditOptions, type Logger, type TaskRuntimeOptions } from '../../index.js';
import type { HttpEndpointOptions, HttpHandlerOptions } from '../../adapters/http/index.js';
import type { InspectorOptions } from '../../adapters/inspector/index.js';
import type { NatsTaskRuntimeOptions } from '../../runtime/backends/nats/index.js';

describe('Logger', () => {
  it('should take pino itself wherever the library takes a logger', async () => {
    const logger = pino({ level: 'silent' });
    expectTypeOf(logger).toExtend<Logger>();
    expectTypeOf<TaskRuntimeOptions['logger']>().toEqualTypeOf<Logger | undefined>();
    expectTypeOf<NatsTaskRuntimeOptions['logger']>().toEqualTypeOf<Logger | undefined>();
    expectTypeOf<HttpEndpointOptions['logger']>().toEqualTypeOf<Logger | undefined>();
    expectTypeOf<HttpHandlerOptions['logger']>().toEqualTypeOf<Logger | undefined>();
    expectTypeOf<InspectorOptions['logger']>().toEqualTypeOf<Logger | undefined>();
    expectTypeOf<AuditOptions['logger']>().toEqualTypeOf<Logger | null | undefined>();
    const runtime = createTaskRuntime({ logger, audit: { logger: pino({ level: 'silent' }) } });
    expect(runtime.security().enabled).toBe(true);
    await runtime.dispose();
  });

  it('should take any object of pino\'s call shape, and refuse one that lacks a level', () => {
    const lines: string[] = [];
    const own: Logger = {
      debug: (_fields, message) => void lines.push(`debug ${message ?? ''}`),
      info: (_fields, message) => void lines.push(`info ${message ?? ''}`),
      warn: (_fields, message) => void lines.push(`warn ${message ?? ''}`),
      error: (_fields, message) => void lines.push(`error ${message ?? ''}`),
    };
    own.warn({ taskId: 't1' }, 'lease lost');
    expect(lines).toEqual(['warn lease lost']);
    // @ts-expect-error a logger must have every level the library logs at (here no `error`)
    const partial: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined };
    // @ts-expect-error the NATS runtime's old `log` function is not an option any more: pass `logger`
    const old: NatsTaskRuntimeOptions = { log: () => undefined };
    expect([partial, old]).toHaveLength(2);
  });
});
