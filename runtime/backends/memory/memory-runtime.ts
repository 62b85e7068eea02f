/**
 * The task runtime on the in-memory backend: the task core over a {@link MemoryStore}, in one
 * process with no services.
 *
 * @module
 */
import { auditRuntime, openAudit } from '../../audit/index.js';
import { createCoreRuntime, type RegisteredHandler } from '../../core/core-runtime.js';
import { RequesterLimiter } from '../../limits.js';
import { resolveTaskRuntimeOptions, type TaskRuntimeOptions } from '../../options.js';
import type { TaskRuntime } from '../../task-runtime.types.js';
import { MemoryStore } from './memory-store.js';
import { MemoryPushQueue } from '../../push/memory-push-queue.js';
import { MemoryPushRegistry } from '../../push/push-registry.js';
import { withPush } from '../../push/push-notifier.js';
import { openTaskMetrics } from '../../telemetry/metrics.js';
import { meterRefusals } from '../../telemetry/metered-runtime.js';
import { nodeLog } from '../../logger.js';

/**
 * Creates a task runtime on the in-memory backend (one process, no services).
 *
 * @param options - retention, polling and paging settings; see {@link TaskRuntimeOptions}
 * @throws InvalidArgumentError when an option is out of range
 * @example
 * ```ts
 * const runtime = createTaskRuntime({ maxKeepAlive: 600_000, logger: pino() }); // logger: optional, silent without
 * runtime.registerHandler('tools/call:sleep', async (params) => ({ content: [] }));
 * const owner = { session: 's1', principal: null };
 * await runtime.create({ taskId: 't1', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'tools/call:sleep', params: {} });
 * const done = await runtime.waitForTerminal('t1', owner);
 * ```
 */
export function createTaskRuntime(options: TaskRuntimeOptions = {}): TaskRuntime {
  const opts = resolveTaskRuntimeOptions(options);
  const node = options.audit?.node ?? 'local';
  const limiter = new RequesterLimiter(opts.limits, opts.now);
  const audit = openAudit(options.audit, 'local', opts.now, options.logger);
  // Now, not at import: a meter taken before the SDK is registered would measure nothing.
  const metrics = openTaskMetrics();
  const log = nodeLog(options.logger, node);
  const store = new MemoryStore(opts, limiter, audit, node, metrics, log);
  const handlers = new Map<string, RegisteredHandler>();
  const push = opts.push === null ? undefined : { registry: new MemoryPushRegistry(), queue: new MemoryPushQueue({ allow: opts.push.allow, now: opts.now, metrics, ...opts.push.options }) };
  const core = createCoreRuntime(opts, store, { limiter, handlers, hasWork: (entry) => entry.hasWork, push, metrics });
  const runtime = push === undefined ? core : withPush(core, push, opts, (error, _event, taskId) => log('warn', 'could not queue a push delivery', { taskId, error: String(error) }));
  if (!audit) return meterRefusals(runtime, metrics);
  // One process: every change is seen once, here.
  runtime.subscribe((change) => audit.changed(change.task, change.previous));
  return meterRefusals(auditRuntime(runtime, audit), metrics);
}
