/**
 * The requester against a hostile server's answers, in the library (the CLI's tests run the same
 * code against a hostile HTTP server): a suggested poll interval is kept within [25 ms, 60 s],
 * and an answer about another task than the one asked is refused. A peer that answers from a
 * table stands in for the network.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { clampSuggestedPoll, SUGGESTED_POLL_BOUNDS, TaskWire, toRequesterTask, type RequesterPeer } from '../../../adapters/wire/task-client.wire.js';
import { TaskClientErrorCode } from '../../../adapters/wire/task-client.errors.js';

const answering = (answers: Record<string, unknown>): RequesterPeer => ({
  request: async (request: { method: string }, _schema: z.ZodType) => answers[request.method],
});

describe('clampSuggestedPoll', () => {
  it('should keep a suggested poll interval within [25 ms, 60 s], and ignore what is not a finite number', () => {
    expect(SUGGESTED_POLL_BOUNDS).toEqual({ minMs: 25, maxMs: 60_000 });
    expect([1e-9, 0, -5, 25, 500, 60_000, 1e12].map(clampSuggestedPoll)).toEqual([25, 25, 25, 25, 500, 60_000, 60_000]);
    expect([Infinity, Number.NaN, '500', null, undefined].map(clampSuggestedPoll)).toEqual([null, null, null, null, null]);
  });

  it('should give every dialect’s task its clamped interval', () => {
    expect(toRequesterTask({ taskId: 't1', status: 'working', pollInterval: 1e12 }).pollFrequency).toBe(60_000);
    expect(toRequesterTask({ taskId: 't1', status: 'working', pollFrequency: 1e-9 }).pollFrequency).toBe(25);
    expect(toRequesterTask({ taskId: 't1', status: 'working', pollIntervalMs: 2_000 }).pollFrequency).toBe(2_000);
  });
});

describe('TaskWire against an answer about another task', () => {
  for (const dialect of ['sep-1686', '2025-11-25'] as const) {
    it(`should refuse a tasks/get or tasks/cancel answer that names another task (${dialect})`, async () => {
      const other = { taskId: 'someone-elses', status: 'completed' };
      const wire = new TaskWire(answering({ 'tasks/get': other, 'tasks/cancel': other }), dialect);
      await expect(wire.getTask('mine')).rejects.toMatchObject({ code: TaskClientErrorCode.pollFailed, message: 'tasks/get for task "mine" was answered with another task, "someone-elses": refused' });
      await expect(wire.cancelTask('mine')).rejects.toMatchObject({ code: TaskClientErrorCode.pollFailed, message: expect.stringContaining('tasks/cancel for task "mine"') });
      await expect(new TaskWire(answering({ 'tasks/get': { taskId: 'mine', status: 'working' } }), dialect).getTask('mine')).resolves.toMatchObject({ taskId: 'mine' });
    });
  }
});
