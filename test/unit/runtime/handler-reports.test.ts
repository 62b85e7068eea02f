/**
 * What a handler may report of its machine (`ctx.handlerState`), and how a run shares its graph:
 * the report's bounds (state ids, step, the graph's ids), each refused with an error naming the
 * field; a graph over MAX_SHARED_GRAPH_BYTES is not shared (the backend is told once per run), yet
 * the position moves; on the memory backend the observer then has no picture of it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { longJobMachine } from '../../../adapters/cli/long-job.machine.js';
import { handlerReport, HandlerReports, MAX_HANDLER_ID_CHARS, MAX_HANDLER_STATES, type HandlerState } from '../../../runtime/core/handler-reports.js';
import { graphShare, MAX_SHARED_GRAPH_BYTES } from '../../../runtime/core/machine-graphs.js';
import { machineGraph } from '../../../runtime/handlers/machine-graph.js';
import type { MachineGraph } from '../../../runtime/handlers/machine-graph.types.js';
import { createTaskRuntime, InvalidArgumentError, type TaskRuntime } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };
const state: HandlerState = { states: ['long_job.working'], status: 'active', step: 1, checkpoint: false };
const graph = machineGraph(longJobMachine);

/** A machine whose graph's JSON is over MAX_SHARED_GRAPH_BYTES: 600 states of 500-character names. */
function hugeGraph(): MachineGraph {
  const states = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`s${i}_${'x'.repeat(500)}`, {}]));
  return machineGraph(setup({}).createMachine({ id: 'huge', initial: Object.keys(states)[0]!, states }));
}

const refusal = (g: MachineGraph, s: HandlerState): string => {
  try {
    handlerReport(g, s);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('handlerReport', () => {
  it('should take a report within its bounds', () => {
    expect(handlerReport(graph, state)).toEqual([graph, state]);
    const many = Array.from({ length: MAX_HANDLER_STATES }, () => 'x'.repeat(MAX_HANDLER_ID_CHARS));
    expect(() => handlerReport(graph, { ...state, states: many, step: Number.MAX_SAFE_INTEGER })).not.toThrow();
    expect(() => handlerReport(graph, { ...state, step: 0 })).not.toThrow();
  });

  it('should refuse, naming the field, too many or too long state ids and a step that is not a non-negative safe integer', () => {
    expect(refusal(graph, { ...state, states: Array.from({ length: MAX_HANDLER_STATES + 1 }, () => 's') })).toMatch(/states must name at most 256 state ids \(MAX_HANDLER_STATES\), got 257/);
    expect(refusal(graph, { ...state, states: ['a', 'x'.repeat(MAX_HANDLER_ID_CHARS + 1)] })).toMatch(/states\[1\] must be at most 1024 characters \(MAX_HANDLER_ID_CHARS\), got 1025/);
    expect(refusal(graph, { ...state, states: ['a', 3 as unknown as string] })).toMatch(/states\[1\] must be a string/);
    for (const step of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN]) expect(refusal(graph, { ...state, step })).toMatch(/step must be a non-negative safe integer/);
  });

  it('should refuse a graph whose id or a node id is too long, naming it', () => {
    expect(refusal({ ...graph, id: 'g'.repeat(MAX_HANDLER_ID_CHARS + 1) }, state)).toMatch(/graph\.id must be at most 1024 characters/);
    const nodes = [...graph.nodes];
    nodes[2] = { ...nodes[2]!, id: 'n'.repeat(MAX_HANDLER_ID_CHARS + 1) };
    expect(refusal({ ...graph, nodes }, state)).toMatch(/graph\.nodes\[2\]\.id must be at most 1024 characters/);
  });
});

describe('HandlerReports', () => {
  it('should share a graph once per run and move the task at every report', () => {
    const shared: string[] = [];
    const reports = new HandlerReports({ shareMachine: (key) => shared.push(key), unsharedMachine: () => expect.unreachable() });
    const moves = [1, 2, 3].map((step) => reports.move(graph, { ...state, step }, 1_000 + step));
    expect(shared).toEqual([graphShare(graph).key]);
    expect(moves.map((m) => m.type === 'task.handler' && [m.position.graph, m.position.step])).toEqual([1, 2, 3].map((step) => [graphShare(graph).key, step]));
  });

  it('should not share a graph over MAX_SHARED_GRAPH_BYTES, say so once per run, and still move the task', () => {
    const huge = hugeGraph();
    const { key, bytes } = graphShare(huge);
    expect(bytes).toBeGreaterThan(MAX_SHARED_GRAPH_BYTES);
    const told: [string, number][] = [];
    const reports = new HandlerReports({ shareMachine: () => expect.unreachable(), unsharedMachine: (k, b) => told.push([k, b]) });
    const first = huge.nodes[1]!.id;
    const moves = [1, 2].map((step) => reports.move(huge, { ...state, states: [first], step }, 1_000));
    expect(told).toEqual([[key, bytes]]);
    expect(moves.map((m) => m.type === 'task.handler' && m.position)).toEqual([1, 2].map((step) => ({ machine: 'huge', graph: key, states: [first], status: 'active', step, checkpoint: false })));
  });
});

describe('a graph too large to share on the memory backend', () => {
  let runtime: TaskRuntime | null = null;
  afterEach(async () => {
    await runtime?.dispose();
    runtime = null;
  });

  it('should move the task’s position, and leave the observer without its picture', async () => {
    const rt = (runtime = createTaskRuntime());
    const huge = hugeGraph();
    const at = huge.nodes[1]!.id;
    rt.registerHandler('work', (_params, ctx) => {
      ctx.handlerState!(huge, { states: [at], status: 'active', step: 1, checkpoint: false });
      ctx.handlerState!(graph, state);
      return Promise.resolve('ok');
    });
    const observer = rt.observe();
    await rt.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'work' });
    expect((await rt.waitForOutcome('t', owner)).task.status).toBe('completed');
    const [task] = await observer.list();
    const moves = (await observer.timeline(task!.key)).filter((e) => e.event === 'task.handler').map((e) => e.handler!);
    expect(moves.map((h) => [h.machine, h.graph])).toEqual([
      ['huge', graphShare(huge).key],
      ['long_job', graphShare(graph).key],
    ]);
    expect(await observer.machine(graphShare(huge).key)).toBeNull();
    expect(await observer.machine(graphShare(graph).key)).toEqual(graph);
  });
});
