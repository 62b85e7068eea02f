/**
 * The span of a task's run: from the moment its work starts on a node to the task's end (or the
 * run's stop), on whichever node runs it. Its parent is the request that created the task (the
 * trace context kept with the task, across NATS too), which it also links, so one task's spans on
 * every node share the requester's trace id. What happens to the task while it runs is told as
 * span events, read off the actor's snapshots: status changes, status messages, input requests and
 * their answers, intermediate results, and checkpoints.
 *
 * @module
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { TaskContext, TaskStatus } from '../../machines/index.js';
import { shownTaskId } from '../secrets.js';
import { extractTraceContext, tracer, type TraceCarrier } from './tracing.js';

/** The project's attribute namespace on task spans. */
const NS = 'mcp_task_actors.task';

/** What a run tells its span when it starts. */
export interface TaskSpanStart {
  readonly context: TaskContext;
  readonly status: TaskStatus;
  /** The trace context kept with the task when it was created, if any. */
  readonly trace: TraceCarrier | undefined;
  readonly attempt: number;
  readonly node: string | null;
  /** The checkpoint the run resumes from, if any. */
  readonly resumedFrom: number | null;
}

/**
 * One run's span.
 *
 * @example
 * ```ts
 * const span = new TaskSpan({ context, status: 'working', trace: record.work.trace, attempt: 1, node: 'w1', resumedFrom: null });
 * context.with(span.context, () => runWork());
 * span.end('completed', context);
 * ```
 */
export class TaskSpan {
  readonly span: Span;
  /** The context the work runs in: the span's. */
  readonly context: Context;
  #status: TaskStatus;
  #message: string | null;
  #pending: ReadonlySet<string>;
  #partials: number;

  constructor(start: TaskSpanStart) {
    const c = start.context;
    // Over the root, not the ambient context: a run started while some other request is being
    // served (a worker's pull, a takeover) belongs to its own task's trace only.
    const parent = extractTraceContext(start.trace, ROOT_CONTEXT);
    const creator = trace.getSpanContext(parent);
    const name = c.label === null ? `task ${c.method}` : `task ${c.method} ${c.label}`;
    this.span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, ...(creator !== undefined && { links: [{ context: creator, attributes: { [`${NS}.link`]: 'created_by' } }] }) }, parent);
    // Built only for an SDK that records them: with none, building them was most of the span's cost.
    if (this.span.isRecording()) {
      this.span.setAttributes({
        // A bearer handle (an anonymous 2026-07-28 task's id) leaves the process shortened.
        [`${NS}.id`]: shownTaskId(c.taskId, c.owner),
        [`${NS}.dialect`]: c.dialect,
        [`${NS}.method`]: c.method,
        [`${NS}.attempt`]: start.attempt,
        [`${NS}.status`]: start.status,
        ...(c.label !== null && { [`${NS}.label`]: c.label }),
        ...(start.node !== null && { [`${NS}.node`]: start.node }),
        ...(start.resumedFrom !== null && { [`${NS}.resumed_from`]: start.resumedFrom }),
      });
    }
    this.context = trace.setSpan(parent, this.span);
    this.#status = start.status;
    this.#message = c.statusMessage;
    this.#pending = new Set(c.pendingInputs);
    this.#partials = c.partials?.length ?? 0;
  }

  /** A snapshot of the task's actor: what changed since the last becomes span events. */
  observe(status: TaskStatus, c: TaskContext): void {
    const span = this.span;
    if (!span.isRecording()) return;
    if (status !== this.#status) {
      span.addEvent('task.status', { [`${NS}.status.from`]: this.#status, [`${NS}.status.to`]: status });
      this.#status = status;
    }
    if (c.statusMessage !== this.#message) {
      this.#message = c.statusMessage;
      if (c.statusMessage !== null) span.addEvent('task.status_message', { [`${NS}.status_message`]: c.statusMessage });
    }
    if (c.pendingInputs.length > 0 || this.#pending.size > 0) {
      const now = new Set(c.pendingInputs);
      for (const id of now) if (!this.#pending.has(id)) span.addEvent('task.input_requested', { [`${NS}.input.id`]: id });
      for (const id of this.#pending) if (!now.has(id)) span.addEvent('task.input_answered', { [`${NS}.input.id`]: id });
      this.#pending = now;
    }
    const partials = c.partials?.length ?? 0;
    for (; this.#partials < partials; this.#partials++) span.addEvent('task.partial', { [`${NS}.partial.index`]: this.#partials });
  }

  /** The work kept a checkpoint. */
  checkpoint(seq: number, label: string | null): void {
    if (this.span.isRecording()) this.span.addEvent('task.checkpoint', { [`${NS}.checkpoint.seq`]: seq, ...(label !== null && { [`${NS}.checkpoint.label`]: label }) });
  }

  /**
   * The run is over: the task ended in `status` (an error status when it did not complete), or
   * (`null`) the run was stopped on this node with the task still going (lease lost, node stops).
   */
  end(status: TaskStatus | null, c: TaskContext): void {
    const span = this.span;
    span.setAttribute(`${NS}.status`, status ?? 'stopped');
    if (status === 'failed' || status === 'unknown') span.setStatus({ code: SpanStatusCode.ERROR, ...(c.error !== null && { message: c.error }) });
    span.end();
  }
}
