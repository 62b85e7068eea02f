import { describe, expect, it } from 'vitest';
import { parseTaskParams, renderTask2025, TaskParamsError } from '../../../adapters/dialects/2025-11-25/index.js';
import { renderInOwnDialect, withRelatedMetaFor } from '../../../adapters/dialects/index.js';
import { parseTaskMeta, renderTask, Sep1686MetaError } from '../../../adapters/dialects/sep-1686/index.js';
import type { TaskView } from '../../../runtime/index.js';

const base: TaskView = {
  taskId: 't1',
  owner: { session: 's', principal: null },
  dialect: 'sep-1686',
  method: 'tools/call',
  label: 'sleep',
  keepAlive: 60_000,
  pollFrequency: 500,
  createdAt: Date.UTC(2026, 0, 1, 10, 0, 0),
  updatedAt: Date.UTC(2026, 0, 1, 10, 0, 5),
  statusMessage: null,
  error: null,
  pendingInputs: [],
  resultRef: null,
  status: 'working',
  expiresAt: null,
};
/** A read well past the configured interval (and one a moment after creation, for a young task). */
const OLD = base.updatedAt;
const YOUNG = base.createdAt + 120;

describe('SEP-1686 codec', () => {
  it('should read task metadata and refuse malformed metadata with a message naming the field', () => {
    expect(parseTaskMeta({})).toBeUndefined();
    expect(parseTaskMeta(undefined)).toBeUndefined();
    expect(parseTaskMeta({ 'modelcontextprotocol.io/task': { taskId: 'a', keepAlive: 5 } })).toEqual({ taskId: 'a', keepAlive: 5 });
    expect(() => parseTaskMeta({ 'modelcontextprotocol.io/task': 'x' })).toThrow(Sep1686MetaError);
    expect(() => parseTaskMeta({ 'modelcontextprotocol.io/task': { taskId: 7 } })).toThrow(/taskId/);
    expect(() => parseTaskMeta({ 'modelcontextprotocol.io/task': { taskId: 'x'.repeat(300) } })).toThrow(/longer than/);
    expect(() => parseTaskMeta({ 'modelcontextprotocol.io/task': { taskId: 'a', keepAlive: -1 } })).toThrow(/keepAlive/);
    expect(parseTaskMeta({ 'modelcontextprotocol.io/task': { taskId: 'a', keepAlive: null } })).toEqual({ taskId: 'a', keepAlive: null });
  });

  it('should render error only for failed or unknown tasks', () => {
    expect(renderTask({ ...base, status: 'failed', error: 'boom' }, OLD)).toMatchObject({ status: 'failed', error: 'boom' });
    expect(renderTask({ ...base, status: 'completed', error: 'stale' }, OLD)).not.toHaveProperty('error');
  });

  it('should render as pollFrequency what the task suggests at the time of the read', () => {
    expect(renderTask(base, YOUNG)['pollFrequency']).toBe(120);
    expect(renderTask(base, base.createdAt + 3)['pollFrequency']).toBe(25);
    expect(renderTask(base, OLD)['pollFrequency']).toBe(500);
    expect(renderTask({ ...base, status: 'completed' }, YOUNG)['pollFrequency']).toBe(500);
  });
});

describe('2025-11-25 codec', () => {
  it('should read params.task and refuse a malformed one', () => {
    expect(parseTaskParams({ name: 'x' })).toBeUndefined();
    expect(parseTaskParams({ task: {} })).toEqual({ ttl: undefined });
    expect(parseTaskParams({ task: { ttl: 1000 } })).toEqual({ ttl: 1000 });
    expect(parseTaskParams({ task: { ttl: null } })).toEqual({ ttl: null });
    expect(() => parseTaskParams({ task: 5 })).toThrow(TaskParamsError);
    expect(() => parseTaskParams({ task: { ttl: 'soon' } })).toThrow(/ttl/);
  });

  it('should render ISO timestamps, ttl and pollInterval', () => {
    expect(renderTask2025({ ...base, dialect: '2025-11-25' }, OLD)).toEqual({
      taskId: 't1',
      status: 'working',
      createdAt: '2026-01-01T10:00:00.000Z',
      lastUpdatedAt: '2026-01-01T10:00:05.000Z',
      ttl: 60_000,
      pollInterval: 500,
    });
    // A young task suggests its age (at least 25 ms), a terminal one the configured interval.
    expect(renderTask2025(base, YOUNG)['pollInterval']).toBe(120);
    expect(renderTask2025({ ...base, status: 'failed' }, YOUNG)['pollInterval']).toBe(500);
  });

  it('should map statuses the dialect lacks: submitted → working, unknown → failed saying the outcome is unknown', () => {
    expect(renderTask2025({ ...base, status: 'submitted' }, OLD).status).toBe('working');
    const lost = renderTask2025({ ...base, status: 'unknown', error: 'worker lost' }, OLD);
    expect(lost.status).toBe('failed');
    expect(lost.statusMessage).toBe('The outcome of this task is unknown: worker lost');
  });
});

describe('rendering in the task’s own dialect', () => {
  it('should render each task in the dialect it was created in, with its own related-task key', () => {
    expect(renderInOwnDialect(base, { withMeta: true }, OLD)).toMatchObject({
      keepAlive: 60_000,
      _meta: { 'modelcontextprotocol.io/related-task': { taskId: 't1' } },
    });
    const modern = renderInOwnDialect({ ...base, dialect: '2025-11-25' }, { withMeta: true }, OLD);
    expect(modern).toHaveProperty('ttl', 60_000);
    expect(modern).not.toHaveProperty('_meta');
    expect(withRelatedMetaFor({ dialect: '2025-11-25', taskId: 'x' }, { content: [], _meta: { keep: 1 } })).toEqual({
      content: [],
      _meta: { keep: 1, 'io.modelcontextprotocol/related-task': { taskId: 'x' } },
    });
  });
});
