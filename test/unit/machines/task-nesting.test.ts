/**
 * The task machine's record of subtasks (`task.child`) and intermediate results (`task.partial`):
 * pure context changes of a live task, never a status change, refused once the task ended.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { taskEvents, taskMachine } from '../../../machines/index.js';
import { INPUT, startedActor } from './task.reference-model.js';

const started = startedActor;

describe('task.child and task.partial', () => {
  it('records children in the order started, each with its last status, and never moves one back out of a terminal status', () => {
    const actor = started();
    actor.send(taskEvents.child('a', 'working', 2_001));
    actor.send(taskEvents.child('b', 'working', 2_002));
    actor.send(taskEvents.child('a', 'completed', 2_003));
    // A late report of an earlier status (the reports travel separately) does not undo the end.
    actor.send(taskEvents.child('a', 'working', 2_004));
    const s = actor.getSnapshot();
    expect(s.value).toBe('working');
    expect(s.context.children).toEqual([
      { taskId: 'a', status: 'completed' },
      { taskId: 'b', status: 'working' },
    ]);
    expect(s.context.updatedAt).toBe(2_003);
  });

  it('numbers partial results from 1 and keeps them in order, in input_required too', () => {
    const actor = started();
    actor.send(taskEvents.partial('one', 2_001));
    actor.send(taskEvents.inputRequest('i1', 2_002));
    actor.send(taskEvents.partial({ two: 2 }, 2_003));
    const s = actor.getSnapshot();
    expect(s.value).toBe('input_required');
    expect(s.context.partials).toEqual([
      { seq: 1, at: 2_001, content: 'one' },
      { seq: 2, at: 2_003, content: { two: 2 } },
    ]);
  });

  it('records its live children cancelled when it is cancelled (its subtree goes with it), keeping the ended ones', () => {
    const actor = started();
    actor.send(taskEvents.child('a', 'completed', 2_001));
    actor.send(taskEvents.child('b', 'input_required', 2_002));
    actor.send(taskEvents.cancel('stop', 2_003));
    expect(actor.getSnapshot().context.children).toEqual([
      { taskId: 'a', status: 'completed' },
      { taskId: 'b', status: 'cancelled' },
    ]);
  });

  it('takes neither once the task ended', () => {
    const actor = started();
    actor.send(taskEvents.complete('r', 2_001));
    actor.send(taskEvents.partial('late', 2_002));
    actor.send(taskEvents.child('c', 'working', 2_003));
    const s = actor.getSnapshot();
    expect(s.context.partials).toBeUndefined();
    expect(s.context.children).toBeUndefined();
    expect(s.context.updatedAt).toBe(2_001);
  });

  it('names the parent and depth of a subtask only', () => {
    expect(createActor(taskMachine, { input: INPUT }).start().getSnapshot().context).not.toHaveProperty('parentId');
    const child = createActor(taskMachine, { input: { ...INPUT, parentId: 'p', depth: 2 } }).start().getSnapshot().context;
    expect([child.parentId, child.depth]).toEqual(['p', 2]);
  });
});
