// A task's run span on the memory runtime, with a real SDK registered: a child of the span active
// when the task was created (and linked to it), its status, status messages, input requests and
// answers, partial results and checkpoints as events, an error status when it fails; log fields
// name the trace inside it; nothing is carried with the task when no span is active.
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTaskRuntime, TaskFailure, type TaskRuntime } from '../../../runtime/index.js';
import { carrierOf, traceLogFields } from '../../../runtime/telemetry/tracing.js';
import { startInMemoryOtel, type InMemoryOtel } from './in-memory-otel.js';

const owner = { session: null, principal: null };
let otel: InMemoryOtel;
let runtime: TaskRuntime;
beforeEach(() => {
  otel = startInMemoryOtel();
  runtime = createTaskRuntime();
});
afterEach(async () => {
  await runtime.dispose();
  await otel.stop();
});

describe('task run span', () => {
  it('should be a linked child of the creating span, with what the task did as events', async () => {
    let logged: ReturnType<typeof traceLogFields> = {};
    runtime.registerHandler('work', async (_params, ctx) => {
      ctx.setStatusMessage('halfway');
      await ctx.partial({ step: 1 });
      await ctx.checkpoint({ at: 1 }, 'one');
      logged = traceLogFields();
      const answer = await ctx.requestInput('elicitation/create', { message: 'name?' });
      return { content: [{ type: 'text', text: String((answer as { name: string }).name) }] };
    });
    const creator = trace.getTracer('test').startSpan('tools/call work');
    const task = await context.with(trace.setSpan(context.active(), creator), () =>
      runtime.create({ taskId: 't1', owner, dialect: '2025-11-25', method: 'tools/call', label: 'work', handler: 'work' }),
    );
    creator.end();
    const inputId = await vi.waitFor(async () => {
      const [id] = (await runtime.get('t1', owner)).pendingInputs;
      if (id === undefined) throw new Error('no input request yet');
      return id;
    });
    await runtime.answerInput('t1', owner, inputId, { result: { name: 'Ada' } });
    await runtime.waitForOutcome(task.taskId, owner);
    const run = await vi.waitFor(() => otel.span('task tools/call work'));
    expect(run.spanContext().traceId).toBe(creator.spanContext().traceId);
    expect(run.parentSpanContext?.spanId).toBe(creator.spanContext().spanId);
    expect(run.links[0]?.context.spanId).toBe(creator.spanContext().spanId);
    expect(run.attributes).toMatchObject({ 'mcp_task_actors.task.id': 't1', 'mcp_task_actors.task.label': 'work', 'mcp_task_actors.task.status': 'completed' });
    const events = run.events.map((e) => e.name);
    for (const name of ['task.status_message', 'task.partial', 'task.checkpoint', 'task.input_requested', 'task.input_answered', 'task.status']) expect(events).toContain(name);
    expect(run.events.find((e) => e.name === 'task.checkpoint')?.attributes).toMatchObject({ 'mcp_task_actors.task.checkpoint.label': 'one' });
    expect(logged).toEqual({ trace_id: run.spanContext().traceId, span_id: run.spanContext().spanId });
  });

  it('should end with an error status when the task fails', async () => {
    runtime.registerHandler('bad', async () => {
      throw new TaskFailure('it broke');
    });
    await runtime.create({ taskId: 't2', owner, dialect: '2025-11-25', method: 'tools/call', label: 'bad', handler: 'bad' });
    const run = await vi.waitFor(() => otel.span('task tools/call bad'));
    expect(run.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'it broke' });
    expect(run.attributes['mcp_task_actors.task.status']).toBe('failed');
  });

  it('should carry nothing outside a span', () => {
    expect(carrierOf()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
  });
});
