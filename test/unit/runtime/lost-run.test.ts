/**
 * decideLostRun, the one rule of what becomes of a task whose worker was lost, for every policy
 * and state: never started → started; started → run again while the policy allows and attempts
 * remain, else lost; ended → left to its retention.
 */
import { describe, expect, it } from 'vitest';
import { decideLostRun, runLeftNode, type RetryPolicy } from '../../../runtime/core/lost-run.js';

const never: RetryPolicy = { retry: 'never', maxAttempts: 3 };
const restart: RetryPolicy = { retry: 'restart', maxAttempts: 3 };
const resume: RetryPolicy = { retry: 'resume', maxAttempts: 3 };

describe('decideLostRun', () => {
  it.each(['completed', 'failed', 'cancelled', 'unknown'] as const)('leaves an ended (%s) task to its retention, whatever the policy', (status) => {
    for (const policy of [never, restart, resume]) expect(decideLostRun({ status, attempts: 2 }, policy, 'a')).toEqual({ kind: 'ended' });
  });

  it.each([never, restart, resume])('starts a task that never started (policy $retry), saying nothing', (policy) => {
    expect(decideLostRun({ status: 'submitted', attempts: 0 }, policy, 'a')).toEqual({ kind: 'run', attempt: 1, how: 'start', message: null });
  });

  it.each(['working', 'input_required'] as const)('ends a started %s task of a tool that may not run again', (status) => {
    expect(decideLostRun({ status, attempts: 1 }, never, 'node-a')).toEqual({ kind: 'lose', status: 'unknown', message: 'Worker node-a was lost while running the task' });
  });

  it.each(['working', 'input_required'] as const)('runs a started %s task again while attempts remain, from the start or the checkpoint', (status) => {
    expect(decideLostRun({ status, attempts: 1 }, restart, 'node-a')).toEqual({ kind: 'run', attempt: 2, how: 'restart', message: 'Worker node-a was lost; running the task again (attempt 2 of 3)' });
    expect(decideLostRun({ status, attempts: 2 }, resume, 'node-a')).toEqual({ kind: 'run', attempt: 3, how: 'resume', message: 'Worker node-a was lost; resuming the task elsewhere (attempt 3 of 3)' });
  });

  it('ends a re-runnable task lost on its last attempt, saying how many it had', () => {
    expect(decideLostRun({ status: 'working', attempts: 3 }, restart, 'node-b')).toEqual({ kind: 'lose', status: 'unknown', message: 'Worker node-b was lost while running the task (after 3 attempts)' });
    expect(decideLostRun({ status: 'working', attempts: 3 }, resume, 'node-b')).toEqual({ kind: 'lose', status: 'unknown', message: 'Worker node-b was lost while running the task (after 3 attempts)' });
  });

  it('should hand a shut-down node\'s re-runnable run over by the same rule, saying the node shut down', () => {
    expect(decideLostRun({ status: 'working', attempts: 1 }, restart, 'node-a', 'shutdown')).toEqual({ kind: 'run', attempt: 2, how: 'restart', message: 'Node node-a shut down; running the task again (attempt 2 of 3)' });
    expect(decideLostRun({ status: 'input_required', attempts: 1 }, resume, 'node-a', 'shutdown')).toEqual({ kind: 'run', attempt: 2, how: 'resume', message: 'Node node-a shut down; resuming the task elsewhere (attempt 2 of 3)' });
  });

  it('should end failed (not unknown) what a shut-down node may not hand over', () => {
    expect(decideLostRun({ status: 'working', attempts: 1 }, never, 'node-a', 'shutdown')).toEqual({ kind: 'lose', status: 'failed', message: 'Node node-a shut down before the task finished' });
    expect(decideLostRun({ status: 'working', attempts: 3 }, restart, 'node-a', 'shutdown')).toEqual({ kind: 'lose', status: 'failed', message: 'Node node-a shut down before the task finished (after 3 attempts)' });
  });

  it('should name the node a run left in one wording, the one the decision\'s message starts with', () => {
    expect(runLeftNode('node-a', 'lost')).toBe('Worker node-a was lost');
    expect(runLeftNode('node-a', 'shutdown')).toBe('Node node-a shut down');
    const decided = decideLostRun({ status: 'working', attempts: 1 }, restart, 'node-a', 'shutdown');
    expect(decided.kind === 'run' && decided.message?.startsWith(runLeftNode('node-a', 'shutdown'))).toBe(true);
  });
});
