/** RunHost: the one place a node's runs are started, fed, answered and stopped. */
import { describe, expect, it } from 'vitest';
import { taskEvents } from '../../../machines/index.js';
import { RunHost } from '../../../runtime/core/run-host.js';
import type { RunPort } from '../../../runtime/core/task-run.types.js';

const input = (taskId: string) => ({ taskId, owner: { sessionId: 's', principal: null }, dialect: 'sep-1686', method: 'tools/call', keepAlive: 60_000, pollFrequency: 1_000, createdAt: 0 }) as never;
/** A port that keeps nothing: the host's bookkeeping is what is under test. */
const port = (): RunPort => ({ move: () => undefined, end: () => undefined, observe: () => undefined, ended: () => undefined, requestInput: () => undefined }) as never;

describe('RunHost', () => {
  it('starts a run per key, feeds it events, and forgets it when released or stopped', () => {
    const host = new RunHost({ now: () => 1, maxResultBytes: null });
    const a = host.start('a', { input: input('a') }, { handler: null, params: null }, port());
    host.start('b', { input: input('b') }, { handler: null, params: null }, port());
    expect(host.size).toBe(2);
    expect(host.get('a')).toBe(a);
    expect(host.feed('a', taskEvents.start(1))).toBe(true);
    expect(a.status).toBe('working');
    expect(host.feed('nope', taskEvents.start(1))).toBe(false);
    host.stop('a');
    expect(a.over).toBe(true);
    expect(host.get('a')).toBeUndefined();
    host.stopAll();
    expect(host.size).toBe(0);
  });

  it('releases or stops only the run it is given: a run started again under the key is kept', () => {
    const host = new RunHost({ now: () => 1, maxResultBytes: null });
    const first = host.start('k', { input: input('k') }, { handler: null, params: null }, port());
    const second = host.start('k', { input: input('k') }, { handler: null, params: null }, port());
    host.release('k', first);
    expect(host.get('k')).toBe(second);
    host.stop('k', first);
    expect(host.get('k')).toBe(second);
    expect(second.over).toBe(false);
    host.stopAll();
  });
});
