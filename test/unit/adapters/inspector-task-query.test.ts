/**
 * The inspector's one list rule: reading a query (400s naming the parameter), matching, paging
 * newest first with a cursor, counts per status, and the rule that a page without an operator's
 * token cannot probe session ids.
 */
import { describe, expect, it } from 'vitest';
import type { ObservedTask } from '../../../runtime/index.js';
import { countTasks, encodeCursor, matchesTask, MAX_PAGE_SIZE, pageTasks, parseTaskQuery } from '../../../adapters/inspector/task-query.js';
import type { TaskQuery } from '../../../adapters/inspector/inspector.types.js';

function task(n: number, fields: Partial<ObservedTask> = {}): ObservedTask {
  return {
    key: `k${String(n).padStart(5, '0')}`,
    taskId: `task-${n}`,
    status: 'working',
    method: 'tools/call',
    label: 'sleep',
    dialect: '2025-11-25',
    owner: { session: `session-${n % 3}-0123456789abcdef`, principal: n % 2 === 0 ? 'alice' : null },
    node: n % 2 === 0 ? 'node-a' : 'node-b',
    createdAt: 1_000 + n,
    updatedAt: 1_000 + n,
    statusMessage: null,
    progress: null,
    handler: null,
    error: null,
    pendingInputs: [],
    expiresAt: null,
    hasResult: false,
    parentId: null,
    depth: 0,
    children: [],
    partials: [],
    ...fields,
  };
}

function parsed(qs: string, pageSize = 100): TaskQuery {
  const result = parseTaskQuery(new URLSearchParams(qs), pageSize);
  if ('refused' in result) throw new Error(result.refused.message);
  return result.query;
}

function refused(qs: string): { parameter: string; message: string } {
  const result = parseTaskQuery(new URLSearchParams(qs), 100);
  if ('query' in result) throw new Error(`accepted ${qs}`);
  return result.refused;
}

describe('parseTaskQuery', () => {
  it('should read every filter, the limit, since as epoch ms or an ISO date, and a cursor it made', () => {
    const cursor = encodeCursor({ createdAt: 5, key: 'k' });
    expect(parsed(`status=working&method=tools/call&label=sleep&node=n&owner=alice&dialect=2025-11-25&q=x&taskId=t&limit=7&since=1700000000000&cursor=${cursor}`)).toEqual({
      status: 'working', method: 'tools/call', label: 'sleep', node: 'n', owner: 'alice', dialect: '2025-11-25', q: 'x', taskId: 't', limit: 7, since: 1_700_000_000_000, cursor,
    });
    expect(parsed('since=2026-07-28T10:00:00Z').since).toBe(Date.parse('2026-07-28T10:00:00Z'));
    expect(parsed('since=2026-07-28').since).toBe(Date.parse('2026-07-28'));
  });

  it('should take the page size when no limit is given, and treat empty values as absent', () => {
    expect(parsed('', 42)).toEqual({ limit: 42 });
    expect(parsed('status=&label=&token=secret', 42)).toEqual({ limit: 42 });
  });

  it('should refuse each bad value naming its parameter', () => {
    expect(refused('status=done')).toMatchObject({ parameter: 'status', message: expect.stringContaining("'status' must be one of submitted") });
    expect(refused('limit=ten')).toMatchObject({ parameter: 'limit', message: expect.stringContaining("'limit'") });
    expect(refused('limit=0').parameter).toBe('limit');
    expect(refused(`limit=${MAX_PAGE_SIZE + 1}`)).toMatchObject({ parameter: 'limit', message: expect.stringContaining('from 1 to 500') });
    expect(refused('since=yesterday')).toMatchObject({ parameter: 'since', message: expect.stringContaining('ISO 8601') });
    expect(refused('since=2026-13-45').parameter).toBe('since');
    // A day the calendar does not have (Date.parse would roll it over to 2 March), and a leap day that is one.
    expect(refused('since=2026-02-30').parameter).toBe('since');
    expect(parsed('since=2028-02-29').since).toBe(Date.parse('2028-02-29'));
    expect(refused('status=working&status=completed')).toMatchObject({ parameter: 'status', message: expect.stringContaining('is given more than once') });
    expect(refused('label=a&label=b').parameter).toBe('label');
    expect(refused('cursor=not-a-cursor')).toMatchObject({ parameter: 'cursor', message: expect.stringContaining("'cursor'") });
    expect(refused(`label=${'x'.repeat(1_001)}`).parameter).toBe('label');
  });
});

describe('matchesTask', () => {
  it('should match each filter exactly and combine them with AND', () => {
    const t = task(2, { statusMessage: 'Step 3/10' });
    expect(matchesTask(t, parsed('status=working&label=sleep&node=node-a&dialect=2025-11-25&method=tools/call'), false)).toBe(true);
    expect(matchesTask(t, parsed('status=working&label=long_job'), false)).toBe(false);
    expect(matchesTask(t, parsed('taskId=task-2'), false)).toBe(true);
    expect(matchesTask(t, parsed('taskId=task-'), false)).toBe(false);
    expect(matchesTask(t, parsed('since=1002'), false)).toBe(true);
    expect(matchesTask(t, parsed('since=1003'), false)).toBe(false);
    expect(matchesTask(t, parsed('q=step 3'), false)).toBe(true);
  });

  it('should match an owner by principal always, by session id only when the page sees values in full', () => {
    const t = task(2);
    expect(matchesTask(t, parsed('owner=alice'), false)).toBe(true);
    expect(matchesTask(t, parsed(`owner=${t.owner.session!}`), true)).toBe(true);
    expect(matchesTask(t, parsed(`owner=${t.owner.session!}`), false)).toBe(false);
    // Free text searches what such a page is shown: the session's first characters, not the rest.
    expect(matchesTask(t, parsed('q=session-'), false)).toBe(true);
    expect(matchesTask(t, parsed('q=0123456789abcdef'), false)).toBe(false);
    expect(matchesTask(t, parsed('q=0123456789abcdef'), true)).toBe(true);
  });
});

describe('pageTasks', () => {
  const tasks = Array.from({ length: 250 }, (_, n) => task(n, { status: n % 5 === 0 ? 'completed' : 'working' }));

  it('should page newest first with cursors until the last page, with the total and counts per status', () => {
    const first = pageTasks(tasks, parsed('limit=100'), false);
    expect(first.tasks.map((t) => t.taskId).slice(0, 2)).toEqual(['task-249', 'task-248']);
    expect(first).toMatchObject({ total: 250, first: true, limit: 100, counts: { working: 200, completed: 50, failed: 0 } });
    const second = pageTasks(tasks, parsed(`limit=100&cursor=${first.next!}`), false);
    expect(second.first).toBe(false);
    expect(second.tasks[0]!.taskId).toBe('task-149');
    const third = pageTasks(tasks, parsed(`limit=100&cursor=${second.next!}`), false);
    expect(third.tasks.map((t) => t.taskId).at(-1)).toBe('task-0');
    expect(third.tasks).toHaveLength(50);
    expect(third.next).toBeNull();
    const all = [...first.tasks, ...second.tasks, ...third.tasks].map((t) => t.key);
    expect(new Set(all).size).toBe(250);
  });

  it('should count over every filter but status, and total over all of them', () => {
    const page = pageTasks(tasks, parsed('status=completed&node=node-a'), false);
    expect(page.total).toBe(25);
    expect(page.counts).toMatchObject({ completed: 25, working: 100 });
    expect(countTasks(tasks, parsed('status=completed&node=node-a'), false)).toEqual({ total: 25, counts: page.counts });
  });

  it('should break ties of createdAt by key, so a cursor names one place and newer tasks do not shift older pages', () => {
    const same = Array.from({ length: 5 }, (_, n) => task(n, { createdAt: 1 }));
    const first = pageTasks(same, parsed('limit=2'), false);
    expect(first.tasks.map((t) => t.key)).toEqual(['k00004', 'k00003']);
    const grown = [...same, task(99, { createdAt: 2 })];
    expect(pageTasks(grown, parsed(`limit=2&cursor=${first.next!}`), false).tasks.map((t) => t.key)).toEqual(['k00002', 'k00001']);
  });
});
