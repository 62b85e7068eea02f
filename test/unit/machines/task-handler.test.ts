/**
 * The task machine's record of where its handler machine is (`task.handler`): taken in every live
 * state without a status change, refused once the task ended, JSON-safe.
 */
import { describe, expect, it } from 'vitest';
import { taskEvents, type HandlerPosition } from '../../../machines/index.js';
import { startedActor } from './task.reference-model.js';

const at = (step: number, states: string[], checkpoint = true): HandlerPosition => ({ machine: 'job', graph: 'g1', states, status: 'active', step, checkpoint });

describe('task.handler', () => {
  it('should keep the last position, in working and in input_required, with no status change', () => {
    const actor = startedActor();
    actor.send(taskEvents.handler(at(1, ['job.working']), 2_001));
    expect(actor.getSnapshot().value).toBe('working');
    expect(actor.getSnapshot().context.handler).toEqual(at(1, ['job.working']));
    actor.send(taskEvents.inputRequest('i1', 2_002));
    actor.send(taskEvents.handler(at(2, ['job.asking'], false), 2_003));
    const s = actor.getSnapshot();
    expect(s.value).toBe('input_required');
    expect(s.context.pendingInputs).toEqual(['i1']);
    expect(s.context.handler).toEqual(at(2, ['job.asking'], false));
    expect(s.context.updatedAt).toBe(2_003);
    // Not a status message: the requester's view of the task is unchanged.
    expect(s.context.statusMessage).toBeNull();
  });

  it('should take a position that goes back (a resumed run restarts at its checkpoint)', () => {
    const actor = startedActor();
    actor.send(taskEvents.handler(at(5, ['job.working']), 2_001));
    actor.send(taskEvents.handler(at(4, ['job.working']), 2_002));
    expect(actor.getSnapshot().context.handler?.step).toBe(4);
  });

  it('should take none once the task ended, and round-trip through JSON', () => {
    const actor = startedActor();
    actor.send(taskEvents.handler(at(3, ['job.working']), 2_001));
    actor.send(taskEvents.complete('r', 2_002));
    const before = actor.getSnapshot().context;
    actor.send(taskEvents.handler(at(4, ['job.done']), 2_003));
    const context = actor.getSnapshot().context;
    expect(context).toBe(before);
    expect(JSON.parse(JSON.stringify(context))).toEqual(context);
  });
});
