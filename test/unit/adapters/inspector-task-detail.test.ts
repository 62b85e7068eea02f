/**
 * The detail's parts that come from the runtime's contract: the handler machine from the task's
 * own position (drawn from the graph a node shared, by graph key, drawn once), the questions a task
 * waits on (hidden like results), and the actions an operator may take.
 */
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { machineGraph, type MachineGraph } from '../../../adapters/inspector/diagram/index.js';
import { pendingInputView } from '../../../adapters/inspector/pending-inputs.js';
import { HandlerDrawings, MAX_HANDLER_DRAWINGS, taskDetail } from '../../../adapters/inspector/task-detail.js';
import type { InputRequest, ObservedTask, TaskObserver } from '../../../runtime/index.js';

const job = setup({}).createMachine({ id: 'job', initial: 'working', states: { working: { on: { next: 'done' } }, done: { type: 'final' } } });
const graph = machineGraph(job);

function observerWith(graphs: Record<string, MachineGraph>, reads: string[] = []): TaskObserver {
  return {
    list: async () => [],
    timeline: async () => [],
    result: async () => ({ hasResult: false }),
    machine: async (key) => {
      reads.push(key);
      return graphs[key] ?? null;
    },
    watch: () => () => undefined,
    close: async () => undefined,
  };
}

const task: ObservedTask = {
  key: 'k1', taskId: 't1', status: 'input_required', method: 'tools/call', label: 'ask_name', dialect: '2025-11-25',
  owner: { session: 's1', principal: null }, node: 'w1', createdAt: 1, updatedAt: 2, statusMessage: null, progress: null,
  handler: { machine: 'job', graph: 'g1', states: ['job.working'], status: 'active', step: 2, checkpoint: true },
  error: null, pendingInputs: ['input-1'], expiresAt: null, hasResult: false, parentId: null, depth: 0, children: [], partials: [],
};

const elicitation: InputRequest = {
  taskId: 't1', owner: task.owner, dialect: '2025-11-25', inputId: 'input-1', method: 'elicitation/create',
  params: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};

describe('taskDetail', () => {
  it("should show the handler where the task says it is, drawn from the graph its node shared", async () => {
    const reads: string[] = [];
    const observer = observerWith({ g1: graph }, reads);
    const drawings = new HandlerDrawings(observer);
    const detail = await taskDetail(observer, task, { showResults: true, reveal: false, operator: true, drawings, inputs: async () => [elicitation] });
    expect(detail.handler).toMatchObject({ key: 'k1', machine: 'job', graph: 'g1', states: ['job.working'], status: 'active', step: 2, checkpoint: true });
    expect(detail.handler!.svg).toContain('data-state="job.working"');
    expect(detail.inputs).toEqual([{ inputId: 'input-1', method: 'elicitation/create', kind: 'elicitation', redacted: false, message: 'What is your name?', requestedSchema: elicitation.params && (elicitation.params as { requestedSchema: unknown }).requestedSchema }]);
    expect(detail.actions).toEqual(['cancel']);
    await taskDetail(observer, task, { showResults: true, reveal: false, operator: false, drawings });
    expect(reads).toEqual(['g1']);
  });

  it('should give svg null while no node shared the graph, and offer no action on an ended task or without an operator', async () => {
    const observer = observerWith({});
    const drawings = new HandlerDrawings(observer);
    const ended = await taskDetail(observer, { ...task, status: 'completed' }, { showResults: false, reveal: false, operator: true, drawings });
    expect(ended.handler).toMatchObject({ graph: 'g1', svg: null });
    expect(ended.actions).toEqual([]);
    expect(ended.inputs).toEqual([]);
    expect((await taskDetail(observer, task, { showResults: false, reveal: false, operator: false, drawings })).actions).toEqual([]);
    expect((await taskDetail(observer, { ...task, handler: null }, { showResults: false, reveal: false, operator: false, drawings })).handler).toBeNull();
  });

  it('should show the machine of a task that ended while it was active as stopped where it was', async () => {
    const observer = observerWith({ g1: graph });
    const drawings = new HandlerDrawings(observer);
    const cancelled = await taskDetail(observer, { ...task, status: 'cancelled' }, { showResults: false, reveal: false, operator: false, drawings });
    expect(cancelled.handler).toMatchObject({ states: ['job.working'], status: 'stopped', step: 2 });
    const done = { ...task, status: 'completed' as const, handler: { ...task.handler!, states: ['job.done'], status: 'done' as const } };
    expect((await taskDetail(observer, done, { showResults: false, reveal: false, operator: false, drawings })).handler).toMatchObject({ status: 'done' });
  });

  it('should keep at most MAX_HANDLER_DRAWINGS drawings, forgetting the least recently used', async () => {
    const graphs = Object.fromEntries(Array.from({ length: MAX_HANDLER_DRAWINGS + 1 }, (_, i) => [`g${i}`, graph]));
    const reads: string[] = [];
    const drawings = new HandlerDrawings(observerWith(graphs, reads));
    for (let i = 0; i <= MAX_HANDLER_DRAWINGS; i++) await drawings.svg(`g${i}`);
    await drawings.svg(`g${MAX_HANDLER_DRAWINGS}`);
    await drawings.svg('g0');
    expect(reads.filter((k) => k === 'g0')).toHaveLength(2);
    expect(reads.filter((k) => k === `g${MAX_HANDLER_DRAWINGS}`)).toHaveLength(1);
  });
});

describe('pendingInputView', () => {
  it('should hide the question like results when results are not shown', () => {
    expect(pendingInputView(elicitation, false, true)).toEqual({ inputId: 'input-1', method: 'elicitation/create', kind: 'elicitation', redacted: true });
  });

  it("should show a sampling request's messages and system prompt, and another request's params without _meta unless revealed", () => {
    const sampling = { ...elicitation, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'sum up' } }], systemPrompt: 'be brief', maxTokens: 10 } };
    expect(pendingInputView(sampling, true, false)).toEqual({ inputId: 'input-1', method: 'sampling/createMessage', kind: 'sampling', redacted: false, messages: sampling.params.messages, systemPrompt: 'be brief' });
    const other = { ...elicitation, method: 'roots/list', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'bearer' } }, x: 1 } };
    expect(pendingInputView(other, true, false)).toEqual({ inputId: 'input-1', method: 'roots/list', kind: 'other', redacted: false, params: { x: 1 } });
    expect(pendingInputView(other, true, true).params).toEqual(other.params);
  });
});
