/**
 * The task machine's record of progress (`task.progress`): MCP's rule that progress increases
 * with each report is kept by the task itself; a report's message is the status message too.
 */
import { describe, expect, it } from 'vitest';
import { taskEvents } from '../../../machines/index.js';
import { startedActor } from './task.reference-model.js';

const started = startedActor;

describe('task.progress', () => {
  it('keeps the last report, its message as the status message, in input_required too', () => {
    const actor = started();
    actor.send(taskEvents.progress({ progress: 1, total: 10, message: 'step 1/10' }, 2_001));
    actor.send(taskEvents.inputRequest('i1', 2_002));
    actor.send(taskEvents.progress({ progress: 2.5, total: 10 }, 2_003));
    const s = actor.getSnapshot();
    expect(s.value).toBe('input_required');
    expect(s.context.progress).toEqual({ progress: 2.5, total: 10 });
    // A report without a message leaves the last one in place.
    expect(s.context.statusMessage).toBe('step 1/10');
    expect(s.context.updatedAt).toBe(2_003);
  });

  it('refuses a report that does not increase the progress (equal or lower), leaving the task as it was', () => {
    const actor = started();
    actor.send(taskEvents.progress({ progress: 4, total: 10, message: 'four' }, 2_001));
    const before = actor.getSnapshot().context;
    actor.send(taskEvents.progress({ progress: 4, total: 10, message: 'again four' }, 2_002));
    actor.send(taskEvents.progress({ progress: 3, message: 'three' }, 2_003));
    expect(actor.getSnapshot().context).toBe(before);
  });

  it('takes none once the task ended, and round-trips through JSON', () => {
    const actor = started();
    actor.send(taskEvents.progress({ progress: 9, total: 10 }, 2_001));
    actor.send(taskEvents.complete('r', 2_002));
    actor.send(taskEvents.progress({ progress: 10, total: 10 }, 2_003));
    const context = actor.getSnapshot().context;
    expect(context.progress).toEqual({ progress: 9, total: 10 });
    expect(JSON.parse(JSON.stringify(context))).toEqual(context);
  });
});
