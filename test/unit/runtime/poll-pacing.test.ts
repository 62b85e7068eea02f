import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_PACE_SHARE, PollPacing } from '../../../runtime/core/poll-pacing.js';
import { createTaskRuntime, MIN_POLL_INTERVAL_MS, suggestedPollInterval, TaskLimitError, type TaskRuntime, type TaskView } from '../../../runtime/index.js';

const at = (status: 'working' | 'input_required' | 'completed' | 'failed', pollFrequency = 1000) => ({ status, pollFrequency, createdAt: 10_000 });

describe('suggestedPollInterval', () => {
  it('should suggest the floor to a new task, then its age, up to the configured interval', () => {
    expect(suggestedPollInterval(at('working'), 10_000)).toBe(MIN_POLL_INTERVAL_MS);
    expect(suggestedPollInterval(at('working'), 10_010)).toBe(MIN_POLL_INTERVAL_MS);
    expect(suggestedPollInterval(at('working'), 10_300.4)).toBe(300);
    expect(suggestedPollInterval(at('input_required'), 10_640)).toBe(640);
    expect(suggestedPollInterval(at('working'), 11_000)).toBe(1000);
    expect(suggestedPollInterval(at('working'), 99_000)).toBe(1000);
  });

  it('should never suggest more than the configured interval, even when that is below the floor', () => {
    expect(suggestedPollInterval(at('working', 10), 10_000)).toBe(10);
    expect(suggestedPollInterval(at('working', 100), 10_500)).toBe(100);
  });

  it('should suggest the configured interval once the task is terminal, and survive a clock behind creation', () => {
    expect(suggestedPollInterval(at('completed'), 10_001)).toBe(1000);
    expect(suggestedPollInterval(at('failed'), 10_001)).toBe(1000);
    expect(suggestedPollInterval(at('working'), 9_000)).toBe(MIN_POLL_INTERVAL_MS);
  });

  it('should let a requester that follows it poll a long task no more often than the configured interval', () => {
    // Follow the suggestion from creation for 60 s: the growing phase adds a handful of polls.
    let now = 10_000;
    const polls: number[] = [];
    while (now < 70_000) {
      polls.push(now);
      now += suggestedPollInterval(at('working'), now);
    }
    const late = polls.filter((p) => p > 11_000);
    for (let i = 1; i < late.length; i++) expect(late[i]! - late[i - 1]!).toBe(1000);
    expect(polls.length).toBeLessThanOrEqual(60 + 7);
  });
});

describe('PollPacing', () => {
  it('should call a poll kept only when it waited 0.9 × what the previous answered poll suggested', () => {
    const pacing = new PollPacing();
    expect(pacing.kept('k', 0)).toBe(false); // never polled
    pacing.answered('k', 1_000, 200, 'working');
    expect(pacing.kept('k', 1_000)).toBe(true); // the grace of a new status, used up
    pacing.answered('k', 1_000, 200, 'working');
    expect(pacing.kept('k', 1_000 + KEPT_PACE_SHARE * 200 - 1)).toBe(false);
    expect(pacing.kept('k', 1_000 + KEPT_PACE_SHARE * 200)).toBe(true);
    pacing.forget('k');
    expect(pacing.kept('k', 9_999)).toBe(false);
  });

  it('should remember at most its bound, forgetting the least recently polled', () => {
    // Two generations of two: a rotation drops what was not polled since the one before.
    const pacing = new PollPacing(4);
    for (const key of ['a', 'b', 'c']) pacing.answered(key, 0, 10, 'working');
    pacing.answered('a', 0, 10, 'working'); // polled again: now the most recent
    pacing.answered('d', 0, 10, 'working');
    expect(pacing.size).toBe(3);
    expect(pacing.kept('b', 100)).toBe(false);
    for (const key of ['a', 'c', 'd']) expect(pacing.kept(key, 100)).toBe(true);
  });

  it('should stay within its bound however many tasks are polled', () => {
    const pacing = new PollPacing(100);
    for (let i = 0; i < 10_000; i++) pacing.answered(`t${i}`, i, 10, 'working');
    expect(pacing.size).toBeLessThanOrEqual(100);
    expect(pacing.size).toBeGreaterThanOrEqual(50);
    expect(pacing.kept('t9999', 20_000)).toBe(true);
    expect(pacing.kept('t0', 20_000)).toBe(false);
  });
});

describe('poll charging in the task core', () => {
  let runtime: TaskRuntime;
  let clock = 1_000_000;
  afterEach(async () => {
    await runtime.dispose();
  });

  const owner = { session: 's', principal: null };
  function start(pollsPerSecond: number, pollFrequency = 1000): void {
    clock = 1_000_000;
    // Tasks without a handler stay live until updated: long tasks, as far as polling goes.
    runtime = createTaskRuntime({ pollFrequency, limits: { pollsPerSecond, createsPerSecond: null }, now: () => clock });
  }
  const create = (taskId: string): Promise<TaskView> => runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call' });

  /**
   * A requester that starts one task every `spacing` ms and polls each at its creation's
   * suggestion, then at `pace` × each answer's suggestion, for `ms` of the runtime's clock.
   * Returns the polls answered and refused.
   */
  async function follow(o: { tasks: number; spacing: number; pace: number; ms: number }): Promise<{ answered: number; refused: number }> {
    const due = new Map<string, number>();
    let answered = 0;
    let refused = 0;
    let created = 0;
    const end = clock + o.ms;
    while (clock < end) {
      const nextCreate = created < o.tasks ? 1_000_000 + created * o.spacing : Infinity;
      const [taskId, pollAt] = [...due].reduce<[string | null, number]>((best, entry) => (entry[1] < best[1] ? entry : best), [null, Infinity]);
      clock = Math.min(nextCreate, pollAt);
      if (clock === nextCreate) {
        const task = await create(`t${created++}`);
        due.set(task.taskId, clock + o.pace * suggestedPollInterval(task, clock));
        continue;
      }
      try {
        const task = await runtime.get(taskId!, owner);
        answered++;
        // What every dialect renders at this moment.
        due.set(taskId!, clock + o.pace * suggestedPollInterval(task, clock));
      } catch (error) {
        if (!(error instanceof TaskLimitError)) throw error;
        refused++;
        due.set(taskId!, clock + error.retryAfterMs!);
      }
    }
    return { answered, refused };
  }

  it('should never refuse a requester that polls 20 tasks at the suggested times within its rate', async () => {
    start(20);
    // 20 tasks at 1 s each are 20 polls a second: the rate. The growing phase of each task (polls
    // at 25, 50, 100 … ms of its age) goes over it for a moment: paced polls borrow a burst.
    const { answered, refused } = await follow({ tasks: 20, spacing: 500, pace: 1, ms: 30_000 });
    expect(refused).toBe(0);
    expect(answered).toBeGreaterThan(20 * 20);
  });

  it('should bound a requester that keeps many tasks and polls each at the suggested pace, by its rate', async () => {
    start(2); // a burst of 4, and a burst more of debt for paced polls
    // 20 tasks at 1 s each: ten times the rate. Every poll counts, so over 30 s at most about
    // 2 × 30 + the bursts pass; following the pace does not make polls free without bound.
    const { answered, refused } = await follow({ tasks: 20, spacing: 500, pace: 1, ms: 30_000 });
    expect(answered).toBeLessThanOrEqual(2 * 30 + 4 + 4 + 1);
    expect(answered).toBeGreaterThanOrEqual(2 * 30);
    expect(refused).toBeGreaterThan(0);
  });

  it('should refuse a requester that polls the same tasks faster than suggested', async () => {
    start(2);
    const { refused } = await follow({ tasks: 20, spacing: 500, pace: 0.5, ms: 30_000 });
    expect(refused).toBeGreaterThan(100);
  });

  it('should let only one of polls sent together pass as kept to the pace', async () => {
    start(1); // a burst of 2
    await create('p');
    clock += 25;
    // Four at once, each sent before any is answered: one is kept, one more takes what is left of
    // the burst after it, the other two are refused.
    const all = await Promise.allSettled([0, 1, 2, 3].map(() => runtime.get('p', owner)));
    expect(all.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refused = all.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.reason).toBeInstanceOf(TaskLimitError);
  });

  it('should let first polls that waited for what the creation suggested borrow one burst, and no more', async () => {
    start(1); // a burst of 2, and 2 more of debt for paced polls
    for (let i = 0; i < 6; i++) await create(`c${i}`);
    clock += 25;
    // Six first polls, each at its creation's pace: the burst, then the debt; the fifth is refused.
    for (let i = 0; i < 4; i++) await runtime.get(`c${i}`, owner);
    const refusal = await runtime.get('c4', owner).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TaskLimitError);
    expect(refusal).toMatchObject({ limit: 'pollsPerSecond' });
    // In debt: a poll not kept to the pace waits until the debt is paid and a token is back (3 s at 1/s).
    expect((refusal as TaskLimitError).retryAfterMs).toBe(1000);
    await expect(runtime.get('c0', owner)).rejects.toMatchObject({ retryAfterMs: 3000 });
  });

  it('should charge first polls made at once, unknown ids and polls right after another', async () => {
    start(2); // a burst of 4
    for (let i = 0; i < 4; i++) await create(`f${i}`);
    // Polled at once, sooner than the creation's answer suggested (25 ms): charged, the burst.
    for (let i = 0; i < 4; i++) await runtime.get(`f${i}`, owner);
    await expect(runtime.get('f0', owner)).rejects.toBeInstanceOf(TaskLimitError); // right after
    clock += 1_000; // two tokens back
    await expect(runtime.get('f0', owner)).resolves.toMatchObject({ taskId: 'f0' }); // kept to the pace
    await expect(runtime.get('nope', owner)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(runtime.get('nope', owner)).rejects.toBeInstanceOf(TaskLimitError); // unknown ids are charged, and need a token
  });

  it('should treat result, outcome and waitForOutcome as polls of the same task, and forget a deleted one', async () => {
    start(1, 50); // a burst of 2 (and 2 of debt for paced polls); a terminal task suggests 50 ms
    await create('r1');
    await runtime.update('r1', owner, { status: 'completed', result: { ok: true } });
    // A requester that reacts to a change at once keeps to the pace (it passes into the debt, as a
    // kept poll does): the poll right after the create, then the two right after the end.
    await runtime.result('r1', owner);
    await runtime.result('r1', owner);
    await runtime.get('r1', owner);
    await expect(runtime.get('r1', owner)).rejects.toBeInstanceOf(TaskLimitError); // no grace left, at once: refused
    clock += 3_000; // the bucket full again
    await runtime.result('r1', owner); // a token
    await runtime.result('r1', owner); // at once, not kept to the pace: the last token
    await expect(runtime.get('r1', owner)).rejects.toBeInstanceOf(TaskLimitError); // at once again: refused
    // Each 50 ms after the one before (as the task suggested), by another method: kept to the
    // pace, so they pass on an empty bucket, into debt, until the debt is a burst.
    clock += 50;
    await runtime.outcome('r1', owner);
    clock += 50;
    await runtime.waitForOutcome('r1', owner);
    clock += 50;
    await expect(runtime.result('r1', owner)).rejects.toMatchObject({ limit: 'pollsPerSecond' });
    // The server's own reads are neither charged nor a pace to keep.
    await runtime.get('r1', owner, { countsAsPoll: false });
    await runtime.delete('r1', owner);
    clock += 10_000; // the bucket full again
    await create('r1');
    await runtime.get('r1', owner); // right after its creation: kept (a new task's grace), a token
    await runtime.get('r1', owner); // at once again: the last token
    clock += 50;
    await runtime.get('r1', owner); // kept to the young task's 50 ms: passes on the empty bucket
    await expect(runtime.get('r1', owner)).rejects.toBeInstanceOf(TaskLimitError);
  });
});
