/**
 * How handler machines' graphs are named and held: a content key (the same machine definition
 * gives the same key on every node, a changed one a new key), a bounded table, and how a NATS
 * event or record of a handler move reads in the operator's view (its position and attempt).
 */
import { describe, expect, it } from 'vitest';
import { createActor, setup } from 'xstate';
import { longJobMachine } from '../../../adapters/cli/long-job.machine.js';
import { taskEvents, taskMachine, type HandlerPosition } from '../../../machines/index.js';
import { GraphTable, graphShare } from '../../../runtime/core/machine-graphs.js';
import { viewOf } from '../../../runtime/core/view.js';
import { entryOfEvent, observedOfView, sameObserved } from '../../../runtime/backends/nats/observed-record.js';
import { machineGraph } from '../../../runtime/handlers/machine-graph.js';
import { inferTimelineEvent } from '../../../runtime/observer-timeline.js';
import { INPUT } from '../machines/task.reference-model.js';

const at = (step: number): HandlerPosition => ({ machine: 'long_job', graph: 'g', states: ['long_job.working'], status: 'active', step, checkpoint: true });

/** A graph's content key. */
const key = (graph: Parameters<typeof graphShare>[0]): string => graphShare(graph).key;

describe('graphShare(graph).key', () => {
  it('should name a graph by its content: the same for equal graphs, another for another machine', () => {
    const first = key(machineGraph(longJobMachine));
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Read again (another object, as on another node): the same key.
    expect(key(JSON.parse(JSON.stringify(machineGraph(longJobMachine))))).toBe(first);
    const other = setup({}).createMachine({ id: 'long_job', initial: 'a', states: { a: { on: { go: 'b' } }, b: {} } });
    expect(key(machineGraph(other))).not.toBe(first);
  });
});

describe('GraphTable', () => {
  it('should keep a key’s first graph and drop the oldest past its bound', () => {
    const table = new GraphTable(2);
    const [a, b, c] = [machineGraph(longJobMachine), machineGraph(taskMachine), machineGraph(longJobMachine)];
    table.set('a', a);
    table.set('a', b);
    expect(table.get('a')).toBe(a);
    table.set('b', b);
    table.set('c', c);
    expect([table.has('a'), table.has('b'), table.has('c'), table.size]).toEqual([false, true, true, 2]);
    expect(table.get('a')).toBeNull();
  });
});

describe('a handler move in the NATS operator view', () => {
  const started = (): ReturnType<typeof createActor<typeof taskMachine>> => {
    const actor = createActor(taskMachine, { input: INPUT }).start();
    actor.send(taskEvents.start(2_000));
    return actor;
  };

  it('should read an event of a handler move as a task.handler entry with its position and attempt, and the task as moved', () => {
    const actor = started();
    const before = viewOf({ context: actor.getSnapshot().context, status: 'working', expiresAt: null, hasResult: false, failure: undefined });
    actor.send(taskEvents.handler(at(3), 2_001));
    const view = viewOf({ context: actor.getSnapshot().context, status: 'working', expiresAt: null, hasResult: false, failure: undefined });
    expect(view.handler).toEqual(at(3));
    expect(before).not.toHaveProperty('handler');
    const entry = entryOfEvent({ kind: 'task.handler', view, previous: 'working', node: 'w1', attempt: 2 });
    expect(entry).toMatchObject({ event: 'task.handler', attempt: 2, handler: at(3), node: 'w1', status: 'working' });
    // Any other event carries its attempt, not a position.
    const start = entryOfEvent({ kind: 'task.start', view, previous: 'submitted', node: 'w1', attempt: 1 });
    expect(start).toMatchObject({ event: 'task.start', attempt: 1 });
    expect(start).not.toHaveProperty('handler');
    // The observed task moved: its position differs, though nothing else a requester sees did.
    const shown = observedOfView('k', before, 'w1', false);
    const moved = observedOfView('k', view, 'w1', false);
    expect(moved.handler).toEqual(at(3));
    expect(sameObserved(shown, { ...moved, updatedAt: shown.updatedAt })).toBe(false);
    expect(sameObserved(moved, observedOfView('k', JSON.parse(JSON.stringify(view)), 'w1', false))).toBe(true);
    // Told from the records alone (its event lost), the change is a handler move.
    expect(inferTimelineEvent('working', before, 'working', view)).toBe('task.handler');
  });
});
