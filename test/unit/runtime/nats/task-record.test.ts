import { describe, expect, it } from 'vitest';
import { taskEvents } from '../../../../machines/index.js';
import { applyEvent, newRecord, pendingInputsOf, type TaskRecord } from '../../../../runtime/backends/nats/task-record.js';
import { viewOf } from '../../../../runtime/core/view.js';

const input = {
  taskId: 't1',
  owner: { session: 's', principal: null },
  dialect: 'sep-1686',
  method: 'tools/call',
  label: 'sleep',
  keepAlive: 1_000,
  pollFrequency: 500,
  createdAt: 100,
};

function step(record: TaskRecord, ...events: Parameters<typeof applyEvent>[1][]): TaskRecord {
  let r = record;
  for (const e of events) {
    const next = applyEvent(r, e);
    if (next === null) throw new Error(`refused ${e.type} in ${r.status}`);
    r = next;
  }
  return r;
}

describe('stored task records move by the lifecycle machine', () => {
  it('starts as the machine starts: submitted, event 1, nothing pending', () => {
    const r = newRecord(input, null);
    expect(r.status).toBe('submitted');
    expect(r.seq).toBe(1);
    expect(r.context).toMatchObject({ taskId: 't1', updatedAt: 100, statusMessage: null, pendingInputs: [], resultRef: null });
    expect(viewOf(r)).toMatchObject({ taskId: 't1', status: 'submitted', expiresAt: null });
  });

  it('counts every applied event and sets the expiry when the task ends', () => {
    const r = step(newRecord(input, null), taskEvents.start(200), taskEvents.message('half', 300), taskEvents.complete('k', 400));
    expect(r.seq).toBe(4);
    expect(r.status).toBe('completed');
    expect(r.context.statusMessage).toBe('half');
    expect(r.expiresAt).toBe(400 + 1_000);
  });

  it('refuses anything after a terminal state, and what the machine forbids', () => {
    const cancelled = step(newRecord(input, null), taskEvents.start(1), taskEvents.cancel('stop', 2));
    expect(applyEvent(cancelled, taskEvents.complete('late', 3))).toBeNull();
    expect(applyEvent(cancelled, taskEvents.message('late', 3))).toBeNull();
    const working = step(newRecord(input, null), taskEvents.start(1));
    expect(applyEvent(working, taskEvents.inputResponse('never-asked', 2))).toBeNull();
  });

  it('keeps a result only for completed or failed tasks', () => {
    const withResult = { ...step(newRecord(input, null), taskEvents.start(1)), hasResult: true };
    expect(step(withResult, taskEvents.fail('x', 2)).hasResult).toBe(true);
    expect(step(withResult, taskEvents.cancel(null, 2)).hasResult).toBe(false);
    expect(step(withResult, taskEvents.lose('gone', 2))).toMatchObject({ status: 'unknown', hasResult: false, context: { error: 'gone' } });
  });

  it('lists as pending only the input requests still unanswered', () => {
    const asked = step(newRecord(input, null), taskEvents.start(1), taskEvents.inputRequest('input-1', 2), taskEvents.inputRequest('input-2', 3));
    const r: TaskRecord = {
      ...asked,
      inputs: [
        { inputId: 'input-1', method: 'elicitation/create', params: { a: 1 }, answer: { result: 'x' } },
        { inputId: 'input-2', method: 'sampling/createMessage', params: { b: 2 } },
      ],
    };
    expect(pendingInputsOf(r)).toEqual([{ taskId: 't1', owner: input.owner, dialect: 'sep-1686', inputId: 'input-2', method: 'sampling/createMessage', params: { b: 2 } }]);
  });
});
