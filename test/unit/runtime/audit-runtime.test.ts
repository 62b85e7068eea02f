import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskRuntime, suggestedPollInterval, TaskLimitError, TaskNotFoundError, type TaskRuntime, type TaskRuntimeOptions } from '../../../runtime/index.js';
import { capturingLogger } from '../../fixtures/capturing-logger.js';
import { shortened } from '../../../runtime/secrets.js';

type Line = Record<string, unknown>;

const a = { session: 'sa-6f1c2a9b-0d4e', principal: 'alice' };
const b = { session: 'sb-0d4e4c1f-9a7b', principal: null };

let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
});

/** A runtime auditing through a real pino logger whose lines are collected. */
function audited(options: TaskRuntimeOptions = {}, audit: Omit<NonNullable<TaskRuntimeOptions['audit']>, 'logger'> = {}) {
  const lines: Line[] = [];
  const logger = pino({ base: null }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  runtime = createTaskRuntime({ ...options, audit: { logger, ...audit } });
  const releases: (() => void)[] = [];
  runtime.registerHandler('quick', async () => ({ ok: true }));
  runtime.registerHandler('hold', (_p, ctx) => {
    ctx.setStatusMessage('step 1');
    return new Promise((resolve) => releases.push(() => resolve({ held: true })));
  });
  const of = (event: string, taskId?: string) => lines.filter((l) => l['event'] === event && (taskId === undefined || l['taskId'] === taskId));
  return { lines, of, release: () => releases.splice(0).forEach((r) => r()) };
}

const create = (taskId: string, handler = 'quick', owner = a) => runtime.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', label: 'sleep', handler, params: {} });

describe('audit on the memory backend', () => {
  it('should log creation, each status change, result retrieval and deletion with task, session, principal and node', async () => {
    const { of } = audited({}, { node: 'n1' });
    await create('t1');
    await runtime.waitForTerminal('t1', a);
    await runtime.result('t1', a);
    await runtime.delete('t1', a);
    const who = { taskId: 't1', session: shortened(a.session), principal: 'alice', node: 'n1' };
    expect(of('task.created')).toEqual([expect.objectContaining({ ...who, method: 'tools/call', label: 'sleep', status: 'submitted', msg: 'task.created' })]);
    expect(of('task.status').map((l) => [l['from'], l['to']])).toEqual([
      ['submitted', 'working'],
      ['working', 'completed'],
    ]);
    for (const line of of('task.status')) expect(line).toMatchObject(who);
    expect(of('task.result')).toEqual([expect.objectContaining({ ...who, op: 'result', status: 'completed', hasResult: true })]);
    expect(of('task.deleted')).toEqual([expect.objectContaining({ ...who, op: 'delete' })]);
  });

  it("should not log the server's own read that finds no task (countsAsPoll: false), and still log the requester's", async () => {
    const { of } = audited();
    await expect(runtime.get('nope', b, { countsAsPoll: false })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(of('task.refused')).toEqual([]);
    await expect(runtime.get('nope', b)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(of('task.refused').map((l) => [l['taskId'], l['op']])).toEqual([['nope', 'get']]);
  });

  it('should log a cancel, but not a change of the status message alone', async () => {
    const { of } = audited();
    await create('t1', 'hold');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await runtime.get('t1', a)).statusMessage).toBe('step 1');
    await runtime.cancel('t1', a, 'enough');
    expect(of('task.cancelled')).toEqual([expect.objectContaining({ taskId: 't1', session: shortened(a.session), node: 'local', op: 'cancel', status: 'cancelled', statusMessage: 'enough' })]);
    expect(of('task.status').map((l) => l['to'])).toEqual(['working', 'cancelled']);
  });

  it('should log a refused look-up of another requester, who gets the same error as for an unknown id', async () => {
    const { of } = audited();
    await create('t1');
    const foreign = await runtime.get('t1', b).catch((e: unknown) => e);
    const unknown = await runtime.get('nope', b).catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(TaskNotFoundError);
    expect(unknown).toBeInstanceOf(TaskNotFoundError);
    expect((foreign as Error).message).toBe((unknown as Error).message.replace('nope', 't1'));
    await expect(runtime.cancel('t1', b)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(runtime.delete('t1', b)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(runtime.result('t1', b)).rejects.toBeInstanceOf(TaskNotFoundError);
    const refused = of('task.refused');
    expect(refused.map((l) => [l['taskId'], l['op']])).toEqual([
      ['t1', 'get'],
      ['nope', 'get'],
      ['t1', 'cancel'],
      ['t1', 'delete'],
      ['t1', 'result'],
    ]);
    for (const line of refused) expect(line).toMatchObject({ session: shortened(b.session), principal: null, node: 'local', reason: 'not-found', level: 40 });
    // The owner's task is untouched.
    expect((await runtime.waitForTerminal('t1', a)).status).toBe('completed');
  });

  it('should flag a session with many failed look-ups once, and show it in security()', async () => {
    const { of } = audited({}, { suspicion: { failedLookups: 5 } });
    for (let i = 0; i < 12; i++) await runtime.get(`guess-${i}`, b).catch(() => undefined);
    const report = runtime.security();
    expect(report).toMatchObject({ enabled: true, node: 'local', flagged: 1, totals: { failedLookups: 12, flags: 1 } });
    expect(report.top[0]).toMatchObject({ session: shortened(b.session), principal: null, failedLookups: 12, flagged: true });
    expect(of('suspicious')).toEqual([expect.objectContaining({ session: shortened(b.session), node: 'local', reason: 'failed-lookups', count: 6, threshold: 5 })]);
  });

  it('should count polls faster than half the suggested interval', async () => {
    let clock = 1_000_000;
    audited({ pollFrequency: 60_000, now: () => clock });
    await create('t1', 'hold');
    clock += 10_000; // the task suggests 10 s now, and more with every poll
    for (let i = 0; i < 5; i++) {
      await runtime.get('t1', a);
      clock += 4_000;
    }
    // The first poll and the one after it (a new status) are free; three are fast.
    expect(runtime.security().totals.fastPolls).toBe(3);
    // An authenticated requester is one line, its principal's, whichever session polled.
    expect(runtime.security().top[0]).toMatchObject({ session: null, principal: 'alice', peer: null, fastPolls: 3 });
  });

  it('should count no fast poll of a requester that follows the growing suggestion', async () => {
    let clock = 1_000_000;
    audited({ pollFrequency: 1000, now: () => clock });
    const tasks = await Promise.all(['t1', 't2', 't3'].map((id) => create(id, 'hold')));
    // Each task polled at what its previous answer suggested: 25, 50, 100 … ms of age, then 1 s.
    const due = new Map(tasks.map((t) => [t.taskId, clock + suggestedPollInterval(t, clock)]));
    for (let polls = 0; polls < 90; polls++) {
      const [taskId, at] = [...due].reduce((x, y) => (y[1] < x[1] ? y : x));
      clock = at;
      const task = await runtime.get(taskId, a);
      due.set(taskId, clock + suggestedPollInterval(task, clock));
    }
    expect(clock - 1_000_000).toBeGreaterThan(20_000);
    expect(runtime.security().totals.fastPolls).toBe(0);
    // Half the suggestion, the same tasks: fast.
    for (const t of tasks) {
      clock += 1_000;
      await runtime.get(t.taskId, a);
      clock += 400;
      await runtime.get(t.taskId, a);
    }
    expect(runtime.security().totals.fastPolls).toBe(3);
  });

  it('should count limit refusals by limit', async () => {
    audited({ limits: { pollsPerSecond: 1 } });
    await create('t1');
    const refused = await Promise.all(Array.from({ length: 4 }, () => runtime.get('t1', a).catch((e: unknown) => e)));
    expect(refused.filter((r) => r instanceof TaskLimitError)).toHaveLength(2);
    expect(runtime.security()).toMatchObject({ limitRefusals: { pollsPerSecond: 2 }, totals: { limitRefusals: 2 } });
  });

  it('should keep serving when the log sink throws', async () => {
    runtime = createTaskRuntime({
      audit: {
        logger: capturingLogger(() => {
          throw new Error('disk full');
        }),
      },
    });
    runtime.registerHandler('quick', async () => ({ ok: true }));
    await create('t1');
    expect((await runtime.waitForOutcome('t1', a)).result).toEqual({ ok: true });
    await expect(runtime.get('nope', a)).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('should report disabled, with zero counts, without audit', async () => {
    runtime = createTaskRuntime();
    await runtime.get('nope', a).catch(() => undefined);
    expect(runtime.security()).toMatchObject({ enabled: false, totals: { failedLookups: 0 } });
  });
});
