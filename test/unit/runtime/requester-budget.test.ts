import { describe, expect, it } from 'vitest';
import { ANONYMOUS_OWNER } from '../../../runtime/task-identity.js';
import { createTaskRuntime, TaskLimitError, type TaskRuntime } from '../../../runtime/index.js';
import type { TaskOwner } from '../../../machines/index.js';

// One budget per requester (issue 43, item 7): an authenticated session's calls about its
// principal's tasks and about its session's are charged to one bucket; anonymous 2026-07-28
// callers over HTTP are told apart by their address for limits and suspicion, and their tasks
// stay reachable by id alone.

function runtimeWith(limits: { pollsPerSecond?: number; createsPerSecond?: number }) {
  let clock = 1_000_000;
  const lines: Record<string, unknown>[] = [];
  const logger = { debug: () => undefined, info: () => undefined, warn: (line: Record<string, unknown>) => void lines.push(line), error: () => undefined };
  const runtime = createTaskRuntime({ limits, now: () => clock, audit: { logger, suspicion: { failedLookups: 3 } } });
  runtime.registerHandler('quick', async () => ({ ok: true }));
  return { runtime, lines, tick: (ms: number) => (clock += ms) };
}

const create = (r: TaskRuntime, taskId: string, owner: TaskOwner) => r.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler: 'quick', params: {} });
const refusal = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

describe('one budget per requester', () => {
  it('charges an authenticated session the same bucket for its principal\'s tasks and its session\'s', async () => {
    const { runtime } = runtimeWith({ pollsPerSecond: 2 });
    const session: TaskOwner = { session: 's1', principal: 'alice' };
    const principalOnly: TaskOwner = { session: null, principal: 'alice' };
    // Polls of ids not (yet) found are charged before the look-up, every one: a burst of twice
    // the rate is four polls in all, two of each kind; a fifth of either is refused.
    const notFound = (p: Promise<unknown>) => expect(refusal(p)).resolves.toMatchObject({ name: 'TaskNotFoundError' });
    await notFound(runtime.get('p1', principalOnly));
    await notFound(runtime.get('s1', session));
    await notFound(runtime.get('p1', principalOnly));
    await notFound(runtime.get('s1', session));
    expect(await refusal(runtime.get('s1', session))).toBeInstanceOf(TaskLimitError);
    expect(await refusal(runtime.get('p1', principalOnly))).toBeInstanceOf(TaskLimitError);
    // Another session of the same principal is the same requester.
    expect(await refusal(runtime.get('p1', { session: 's2', principal: 'alice' }))).toBeInstanceOf(TaskLimitError);
    // Another principal is not.
    await create(runtime, 'b1', { session: null, principal: 'bob' });
    await expect(runtime.get('b1', { session: null, principal: 'bob' })).resolves.toMatchObject({ taskId: 'b1' });
    await runtime.dispose();
  });

  it('keeps anonymous callers apart by address for rates, and their tasks reachable by id from any address', async () => {
    const { runtime, tick } = runtimeWith({ createsPerSecond: 1 });
    const from = (peer: string): TaskOwner => ({ ...ANONYMOUS_OWNER, peer });
    await create(runtime, 'a1', from('203.0.113.1'));
    await create(runtime, 'a2', from('203.0.113.1'));
    const refused = await refusal(create(runtime, 'a3', from('203.0.113.1')));
    expect(refused).toBeInstanceOf(TaskLimitError);
    expect((refused as TaskLimitError).limit).toBe('createsPerSecond');
    // A second address has its own bucket (before: one bucket for every anonymous caller).
    await expect(create(runtime, 'b1', from('203.0.113.2'))).resolves.toMatchObject({ taskId: 'b1' });
    // The task is everyone's: found from another address, and without one.
    await expect(runtime.get('a1', from('198.51.100.9'))).resolves.toMatchObject({ taskId: 'a1' });
    await expect(runtime.get('a1', ANONYMOUS_OWNER)).resolves.toMatchObject({ taskId: 'a1' });
    tick(1_000);
    await expect(create(runtime, 'a3', from('203.0.113.1'))).resolves.toMatchObject({ taskId: 'a3' });
    // The address is not stored with the task.
    expect((await runtime.get('a1', ANONYMOUS_OWNER)).owner).toEqual({ session: ANONYMOUS_OWNER.session, principal: null });
    await runtime.dispose();
  });

  it('reports suspicion per anonymous address and once per principal', async () => {
    const { runtime, lines } = runtimeWith({});
    for (let i = 0; i < 4; i++) await refusal(runtime.get(`guess-${i}`, { ...ANONYMOUS_OWNER, peer: '203.0.113.66' }));
    await refusal(runtime.get('guess-x', { ...ANONYMOUS_OWNER, peer: '203.0.113.67' }));
    for (let i = 0; i < 2; i++) await refusal(runtime.get(`g-${i}`, { session: 's1', principal: 'alice' }));
    for (let i = 0; i < 2; i++) await refusal(runtime.get(`h-${i}`, { session: null, principal: 'alice' }));
    const top = runtime.security().top;
    const byPeer = (peer: string) => top.find((r) => r.peer === peer);
    expect(byPeer('203.0.113.66')).toMatchObject({ failedLookups: 4, flagged: true, session: ANONYMOUS_OWNER.session, principal: null });
    expect(byPeer('203.0.113.67')).toMatchObject({ failedLookups: 1, flagged: false });
    expect(top.filter((r) => r.principal === 'alice')).toEqual([expect.objectContaining({ session: null, failedLookups: 4, flagged: true, peer: null })]);
    const flagged = lines.filter((l) => l['event'] === 'suspicious');
    expect(flagged.map((l) => l['peer'] ?? l['principal'])).toEqual(['203.0.113.66', 'alice']);
    await runtime.dispose();
  });
});
