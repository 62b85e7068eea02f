/**
 * The task metrics, through the OpenTelemetry metrics API (the library's only OpenTelemetry
 * dependency). The API has no proxy meter provider: a meter taken before an SDK is registered is
 * a no-op for ever. So nothing here runs at import time: a runtime opens its metrics when it is
 * created ({@link openTaskMetrics}), and gets `null` when no SDK is registered then, which every
 * hook checks first (the hot path pays a null check, no attribute object, no call).
 *
 * Names follow the semantic conventions' guidance (dotted, namespaced, the unit in `unit` and not
 * in the name, no `total`, `count` for an up-down counter); the Prometheus exporter writes them
 * with underscores for dots and the total suffix after a counter. The list, with the node that reports each, is in
 * the operator documentation.
 *
 * @module
 */
import { metrics, type Attributes, type Counter, type Histogram, type Meter, type MeterProvider, type UpDownCounter } from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE, isNoopMeter } from './tracing.js';
import { boundedDialect, boundedLimit, boundedMethod } from './metric-labels.js';
import type { TaskStatus } from '../../machines/index.js';

/** The instrumentation scope of every metric of this package. */
export const METER_NAME = INSTRUMENTATION_SCOPE;

/** The metric names (see the module comment). */
export const TaskMetricName = {
  created: 'mcp_task_actors.task.created',
  ended: 'mcp_task_actors.task.ended',
  duration: 'mcp_task_actors.task.duration',
  queueDuration: 'mcp_task_actors.task.queue.duration',
  runs: 'mcp_task_actors.run.count',
  leaseLost: 'mcp_task_actors.lease.lost',
  workerLost: 'mcp_task_actors.task.worker_lost',
  pushAttempts: 'mcp_task_actors.push.attempts',
  limitRefused: 'mcp_task_actors.limit.refused',
} as const;

/** The attribute names (low cardinality only: never a task id, a requester or a URL; each value bounded by `metric-labels.ts`). */
export const TaskMetricAttribute = {
  /** The MCP method that created the task (`tools/call`, …): the semantic conventions' own name. */
  method: 'mcp.method.name',
  dialect: 'mcp_task_actors.task.dialect',
  status: 'mcp_task_actors.task.status',
  /** What became of a task whose worker was lost: `start`, `restart`, `resume`, `lost`. */
  action: 'mcp_task_actors.recovery.action',
  /** A push attempt: `delivered`, `retrying` (another attempt follows), `gave_up`. */
  outcome: 'mcp_task_actors.push.outcome',
  limit: 'mcp_task_actors.limit.name',
} as const;

/** Bucket bounds in seconds: a task may run from milliseconds to hours. */
const TASK_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Bucket bounds in seconds of a wait in the work queue: milliseconds when healthy. */
const QUEUE_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** What a push attempt's record says, as far as the metric needs it. */
export interface PushAttemptFacts {
  readonly delivered: boolean;
  readonly final: boolean;
}

/**
 * The instruments of one runtime, and the one place each fact is turned into a measurement.
 *
 * @example
 * ```ts
 * const metrics = openTaskMetrics(); // null without an SDK
 * metrics?.created('tools/call', '2025-11-25');
 * ```
 */
export class TaskMetrics {
  readonly #created: Counter;
  readonly #ended: Counter;
  readonly #duration: Histogram;
  readonly #queued: Histogram;
  readonly #runs: UpDownCounter;
  readonly #leaseLost: Counter;
  readonly #workerLost: Counter;
  readonly #push: Counter;
  readonly #refused: Counter;
  /** Attribute sets by their values: a handful each, made once rather than on every measurement. */
  readonly #attributes = new Map<string, Attributes>();

  constructor(meter: Meter) {
    const counter = (name: string, unit: string, description: string): Counter => meter.createCounter(name, { unit, description });
    this.#created = counter(TaskMetricName.created, '{task}', 'Tasks created through this node');
    this.#ended = counter(TaskMetricName.ended, '{task}', "Tasks ended, by status, counted by the node whose write ended the task");
    this.#duration = meter.createHistogram(TaskMetricName.duration, {
      unit: 's',
      description: 'Time from a task’s creation to its end, by status',
      advice: { explicitBucketBoundaries: TASK_SECONDS },
    });
    this.#queued = meter.createHistogram(TaskMetricName.queueDuration, {
      unit: 's',
      description: 'Time from a task’s creation to its first run starting on a worker',
      advice: { explicitBucketBoundaries: QUEUE_SECONDS },
    });
    this.#runs = meter.createUpDownCounter(TaskMetricName.runs, { unit: '{run}', description: 'Handler runs live on this node, by the status of their task (working, input_required)' });
    this.#leaseLost = counter(TaskMetricName.leaseLost, '{lease}', 'Runs this worker stopped because another node took their lease over');
    this.#workerLost = counter(TaskMetricName.workerLost, '{task}', 'Tasks whose worker was lost or stopped, by what this node decided for them');
    this.#push = counter(TaskMetricName.pushAttempts, '{attempt}', 'Webhook delivery attempts made by this node, by outcome');
    this.#refused = counter(TaskMetricName.limitRefused, '{request}', 'Calls refused over a limit, by limit');
  }

  #attrs(key: string, make: () => Attributes): Attributes {
    let attributes = this.#attributes.get(key);
    if (attributes === undefined) {
      attributes = make();
      // Bounded by the values an attribute takes; a stray one is measured without being kept.
      if (this.#attributes.size < 256) this.#attributes.set(key, attributes);
    }
    return attributes;
  }

  /** A task was created through this node. */
  created(taskMethod: string, taskDialect: string): void {
    const method = boundedMethod(taskMethod);
    const dialect = boundedDialect(taskDialect);
    this.#created.add(1, this.#attrs(`c\u0000${method}\u0000${dialect}`, () => ({ [TaskMetricAttribute.method]: method, [TaskMetricAttribute.dialect]: dialect })));
  }

  /** A task ended, by the write of this node: counted, and its duration (creation to end) measured. */
  ended(status: TaskStatus, task: { readonly method: string; readonly createdAt: number; readonly updatedAt: number }): void {
    const method = boundedMethod(task.method);
    const attributes = this.#attrs(`e\u0000${status}\u0000${method}`, () => ({ [TaskMetricAttribute.status]: status, [TaskMetricAttribute.method]: method }));
    this.#ended.add(1, attributes);
    this.#duration.record(Math.max(0, task.updatedAt - task.createdAt) / 1000, attributes);
  }

  /** A task's first run started on this node, `ms` after the task was created (clocks of two nodes: never below 0). */
  queued(taskMethod: string, ms: number): void {
    const method = boundedMethod(taskMethod);
    this.#queued.record(Math.max(0, ms) / 1000, this.#attrs(`q\u0000${method}`, () => ({ [TaskMetricAttribute.method]: method })));
  }

  /** A live run of this node entered (`+1`) or left (`-1`) a status. */
  run(status: 'working' | 'input_required', delta: 1 | -1): void {
    this.#runs.add(delta, this.#attrs(`r\u0000${status}`, () => ({ [TaskMetricAttribute.status]: status })));
  }

  /** A run of this worker was stopped because its lease was taken over. */
  leaseLost(): void {
    this.#leaseLost.add(1);
  }

  /** This node decided the fate of a task whose worker was lost. */
  workerLost(action: 'start' | 'restart' | 'resume' | 'lost'): void {
    this.#workerLost.add(1, this.#attrs(`w\u0000${action}`, () => ({ [TaskMetricAttribute.action]: action })));
  }

  /** This node made a webhook delivery attempt. */
  pushAttempted(attempt: PushAttemptFacts): void {
    const outcome = attempt.delivered ? 'delivered' : attempt.final ? 'gave_up' : 'retrying';
    this.#push.add(1, this.#attrs(`p\u0000${outcome}`, () => ({ [TaskMetricAttribute.outcome]: outcome })));
  }

  /** A call was refused over limit `limit` (the name a `TaskLimitError` carries). */
  refused(name: string): void {
    const limit = boundedLimit(name);
    this.#refused.add(1, this.#attrs(`l\u0000${limit}`, () => ({ [TaskMetricAttribute.limit]: limit })));
  }
}

/**
 * The task metrics of a runtime being created: on the global meter provider (or `provider`),
 * `null` when it is the API's no-op one (no SDK registered: nothing would be measured, so nothing
 * is done). Register the SDK before creating the runtime.
 *
 * @param provider - the meter provider @default the global one
 * @example
 * ```ts
 * const metrics = openTaskMetrics();
 * ```
 */
export function openTaskMetrics(provider: MeterProvider = metrics.getMeterProvider()): TaskMetrics | null {
  const meter = provider.getMeter(METER_NAME);
  return isNoopMeter(meter) ? null : new TaskMetrics(meter);
}
