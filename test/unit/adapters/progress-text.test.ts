/**
 * Progress as text (`progressText`, `progressOfText`): the one format of every place that writes
 * progress for people, the 2026-07-28 status message that carries it, and its reading back by the
 * requester.
 */
import { describe, expect, it } from 'vitest';
import { EXT_TASKS, renderTaskExt } from '../../../adapters/dialects/ext/index.js';
import { progressOfText, progressText } from '../../../adapters/dialects/progress-text.js';
import type { TaskView } from '../../../runtime/index.js';

const view: TaskView = {
  taskId: 't1',
  owner: { session: null, principal: null },
  dialect: EXT_TASKS,
  method: 'tools/call',
  label: 'long_job',
  keepAlive: 60_000,
  pollFrequency: 500,
  createdAt: 1_000,
  updatedAt: 2_000,
  statusMessage: 'step 4/10',
  error: null,
  pendingInputs: [],
  resultRef: null,
  status: 'working',
  expiresAt: null,
  progress: { progress: 4, total: 10, message: 'step 4/10' },
};

describe('progressText', () => {
  it('writes the numbers, then the message after a dash', () => {
    expect(progressText({ progress: 4, total: 10, message: 'step 4/10' })).toBe('4/10 — step 4/10');
    expect(progressText({ progress: 4, total: 10 })).toBe('4/10');
    expect(progressText({ progress: 0.25, message: 'a quarter' })).toBe('0.25 — a quarter');
    expect(progressText({ progress: 4, total: 10, message: 'old' }, 'newer status')).toBe('4/10 — newer status');
    expect(progressText({ progress: 4, total: 10, message: 'old' }, null)).toBe('4/10');
  });

  it('reads back what it wrote, and nothing else', () => {
    for (const p of [{ progress: 4, total: 10, message: 'step 4/10' }, { progress: 4, total: 10 }, { progress: 1.5e-3, message: 'x — y' }, { progress: -2, total: 3, message: '' }]) {
      expect(progressOfText(progressText(p))).toEqual(p.message === '' ? { progress: -2, total: 3 } : p);
    }
    for (const other of [null, undefined, '', 'step 4/10', '4', '4/', 'NaN/10', '4/10 step', 'working on it']) expect(progressOfText(other)).toBeNull();
  });
});

describe('the 2026-07-28 wire', () => {
  it('shows a running task progress in its status message, with the latest status message', () => {
    expect(renderTaskExt(view, 3_000)['statusMessage']).toBe('4/10 — step 4/10');
    expect(renderTaskExt({ ...view, statusMessage: 'waiting for the API' }, 3_000)['statusMessage']).toBe('4/10 — waiting for the API');
    expect(renderTaskExt({ ...view, statusMessage: null }, 3_000)['statusMessage']).toBe('4/10');
  });

  it('shows an ended task status message as it is', () => {
    expect(renderTaskExt({ ...view, status: 'completed' }, 3_000)['statusMessage']).toBe('step 4/10');
    expect(renderTaskExt({ ...view, status: 'failed', statusMessage: 'boom', error: 'boom' }, 3_000)['statusMessage']).toBe('boom');
  });
});
