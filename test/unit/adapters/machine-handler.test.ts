import { assign, emit, fromPromise, setup } from 'xstate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { longJobMachine } from '../../../adapters/cli/long-job.machine.js';
import { HandlerRuns, MAX_FINISHED_HANDLER_RUNS, handlerStatus, machineHandler, type HandlerRun, type MachineCheckpoint, type MachineWorkContext } from '../../../adapters/inspector/index.js';
import { createTaskRuntime, type TaskCheckpoint } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };

function context(taskId: string | null, signal = new AbortController().signal): MachineWorkContext & { messages: string[] } {
  const messages: string[] = [];
  // A progress report's message is the task's status message, as the runtime keeps it.
  return { taskId, owner, signal, messages, setStatusMessage: (m) => void messages.push(m), progress: (_p, _t, m) => (m !== undefined && messages.push(m), true) };
}

const counter = setup({
  types: { input: {} as { to: number }, context: {} as { n: number; to: number }, output: {} as { counted: number } },
}).createMachine({
  id: 'counter',
  context: ({ input }) => ({ n: 0, to: input.to }),
  initial: 'counting',
  states: {
    counting: {
      entry: [assign({ n: ({ context }) => context.n + 1 }), emit(({ context }) => handlerStatus(`at ${context.n}`))],
      after: { 5: [{ guard: ({ context }) => context.n < context.to, target: 'counting', reenter: true }, { target: 'finished' }] },
    },
    finished: { type: 'final' },
  },
  output: ({ context }) => ({ counted: context.n }),
});

describe('machineHandler', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("should resolve with the machine's output, set its status messages, and report each state", async () => {
    const runs = new HandlerRuns();
    const reports: HandlerRun[] = [];
    runs.watch((r) => void reports.push(r));
    const ctx = context('t1');
    const output = await machineHandler(counter, { runs, input: (p: { upTo: number }) => ({ to: p.upTo }) })({ upTo: 3 }, ctx);
    expect(output).toEqual({ counted: 3 });
    expect(ctx.messages).toEqual(['at 1', 'at 2', 'at 3']);
    expect(reports.map((r) => [r.states, r.status])).toEqual([
      [['counter.counting'], 'active'],
      [['counter.counting'], 'active'],
      [['counter.counting'], 'active'],
      [['counter.finished'], 'done'],
    ]);
    expect(runs.get('t1', owner)).toMatchObject({ taskId: 't1', owner, machine: counter, status: 'done' });
  });

  it('should stop the actor on abort, reject like an aborted wait, and report it stopped where it was', async () => {
    // The machine's 5 ms steps run on setTimeout and runs are stamped with Date.now: faked, so
    // the test decides how many steps' worth of time pass.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runs = new HandlerRuns();
    const reports: HandlerRun[] = [];
    runs.watch((r) => void reports.push(r));
    const abort = new AbortController();
    const ctx = context('t2', abort.signal);
    const running = machineHandler(counter, { runs })({ to: 1_000 }, ctx);
    await vi.advanceTimersByTimeAsync(20);
    expect(ctx.messages).toEqual(['at 1', 'at 2', 'at 3', 'at 4', 'at 5']);
    abort.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    const run = runs.get('t2', owner)!;
    expect(run).toMatchObject({ status: 'stopped', states: ['counter.counting'] });
    const count = run.updatedAt;
    const reported = reports.length;
    // Stopped for good: 200 steps' worth of time later, no more steps.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ctx.messages).toHaveLength(5);
    expect(reports).toHaveLength(reported);
    expect(runs.get('t2', owner)!.updatedAt).toBe(count);
  });

  it('should reject when the machine fails, and not start at all when already aborted', async () => {
    const failing = setup({ actors: { work: fromPromise(async () => Promise.reject(new Error('broken'))) } }).createMachine({
      id: 'failing',
      invoke: { src: 'work' },
    });
    await expect(machineHandler(failing, { runs: new HandlerRuns() })({}, context('t3'))).rejects.toThrow('broken');
    const runs = new HandlerRuns();
    await expect(machineHandler(counter, { runs })({ to: 1 }, context('t4', AbortSignal.abort()))).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs.size).toBe(0);
  });

  it('should report nothing for a plain call (no task id)', async () => {
    const runs = new HandlerRuns();
    await machineHandler(counter, { runs })({ to: 1 }, context(null));
    expect(runs.size).toBe(0);
  });
});

describe('longJobMachine', () => {
  it('should step ten times with "step i/10" and answer "long_job done in <seconds> s"', async () => {
    const ctx = context('job');
    const started = Date.now();
    const result = await machineHandler(longJobMachine, { runs: new HandlerRuns() })({ seconds: 0.2 }, ctx);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(ctx.messages).toEqual(Array.from({ length: 10 }, (_, i) => `step ${i + 1}/10`));
    expect(result).toEqual({ content: [{ type: 'text', text: 'long_job done in 0.2 s' }] });
  });
});

describe('HandlerRuns', () => {
  it('should keep every running run and only the latest finished ones', () => {
    const runs = new HandlerRuns();
    const run = (taskId: string, status: HandlerRun['status']): HandlerRun => ({ taskId, owner, machine: counter, states: [], status, updatedAt: 0 });
    runs.report(run('running', 'active'));
    for (let i = 0; i < MAX_FINISHED_HANDLER_RUNS + 5; i++) runs.report(run(`done-${i}`, 'done'));
    expect(runs.size).toBe(MAX_FINISHED_HANDLER_RUNS + 1);
    expect(runs.get('running', owner)).toBeDefined();
    expect(runs.get('done-0', owner)).toBeUndefined();
    expect(runs.get(`done-${MAX_FINISHED_HANDLER_RUNS + 4}`, owner)).toBeDefined();
    // The same task id of another owner is another task.
    expect(runs.get('running', { session: 's2', principal: null })).toBeUndefined();
  });
});

describe('machineHandler checkpoints', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A task's context that keeps what the handler checkpoints, as the runtime would. */
  function durable(signal: AbortSignal, resumeFrom: TaskCheckpoint | null = null): MachineWorkContext & { messages: string[]; kept: TaskCheckpoint[] } {
    const messages: string[] = [];
    const kept: TaskCheckpoint[] = [];
    let seq = resumeFrom?.seq ?? 0;
    return {
      taskId: 'job',
      owner,
      signal,
      messages,
      kept,
      resumeFrom,
      setStatusMessage: (m) => void messages.push(m),
      progress: (_p, _t, m) => (m !== undefined && messages.push(m), true),
      checkpoint: async (state, label) => (kept.push({ seq: ++seq, state: JSON.parse(JSON.stringify(state)) as unknown, label: label ?? null, at: Date.now(), node: null }), true),
    };
  }

  it('should keep a checkpoint at every state entered and resume from the last one with its delay re-armed, not restarted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runs = new HandlerRuns();
    // long_job {seconds: 10}: a step every second. The first worker runs steps 1 to 4, then dies
    // 400 ms into step 4 (its actor stopped: nothing more from it).
    const first = new AbortController();
    const a = durable(first.signal);
    const lost = machineHandler(longJobMachine, { runs, input: (p: { seconds: number }) => p })({ seconds: 10 }, a).catch(() => 'stopped');
    await vi.advanceTimersByTimeAsync(3_400);
    expect(a.messages).toEqual(['step 1/10', 'step 2/10', 'step 3/10', 'step 4/10']);
    expect(a.kept.map((k) => k.label)).toEqual(['working', 'working', 'working', 'working']);
    first.abort();
    expect(await lost).toBe('stopped');
    const last = a.kept.at(-1)!;
    expect(last.seq).toBe(4);
    // The step's delay was armed when step 4 began (at 3 s): due at 4 s.
    expect((last.state as MachineCheckpoint).timers).toHaveLength(1);
    // Another worker resumes 2 s later, from that checkpoint: step 4's delay is overdue, so step 5
    // begins at once, not a full second later, and nothing restarts at step 1.
    await vi.advanceTimersByTimeAsync(2_000);
    const resumedAt = Date.now();
    const b = durable(new AbortController().signal, last);
    const done = machineHandler(longJobMachine, { runs, input: (p: { seconds: number }) => p })({ seconds: 10 }, b);
    await vi.advanceTimersByTimeAsync(0);
    expect(b.messages).toEqual(['step 5/10']);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(await done).toEqual({ content: [{ type: 'text', text: 'long_job done in 10 s' }] });
    expect(b.messages).toEqual(['step 5/10', 'step 6/10', 'step 7/10', 'step 8/10', 'step 9/10', 'step 10/10']);
    // Steps 5 to 10 took the 6 s they had left; the checkpoints count on from the first run's.
    expect(Date.now() - resumedAt).toBe(6_000);
    expect(b.kept.map((k) => k.seq)).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('should re-arm a delay for what was left of it when resumed before it was due', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runs = new HandlerRuns();
    const first = new AbortController();
    const a = durable(first.signal);
    void machineHandler(longJobMachine, { runs })({ seconds: 10 }, a).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(1_300);
    first.abort();
    const last = a.kept.at(-1)!;
    // Resumed at once, 300 ms into step 2: step 3 begins 700 ms later, not 1 s.
    const b = durable(new AbortController().signal, last);
    void machineHandler(longJobMachine, { runs })({ seconds: 10 }, b);
    await vi.advanceTimersByTimeAsync(699);
    expect(b.messages).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(b.messages).toEqual(['step 3/10']);
    // One timer per step: the restored delay is not doubled by XState's own.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(b.messages).toEqual(['step 3/10', 'step 4/10']);
  });

  it('should keep no checkpoint in a state whose meta says checkpoint: false, nor for a plain call', async () => {
    const quiet = setup({}).createMachine({
      id: 'quiet',
      initial: 'busy',
      states: { busy: { meta: { checkpoint: false }, after: { 5: 'kept' } }, kept: { after: { 5: 'end' } }, end: { type: 'final' } },
    });
    const ctx = durable(new AbortController().signal);
    await machineHandler(quiet, { runs: new HandlerRuns() })({}, ctx);
    expect(ctx.kept.map((k) => k.label)).toEqual(['kept']);
    // A plain call has no checkpoint function: it simply runs.
    await expect(machineHandler(quiet, { runs: new HandlerRuns() })({}, context(null))).resolves.toBeUndefined();
  });

  it('should build no checkpoint where none is kept (the memory backend: durable false)', async () => {
    const runtime = createTaskRuntime();
    const seen: { durable: boolean; kept: boolean[] } = { durable: true, kept: [] };
    const handler = machineHandler(longJobMachine, { runs: new HandlerRuns(), input: () => ({ seconds: 0 }) });
    runtime.registerHandler('job', (params, ctx) => {
      seen.durable = ctx.durable;
      // What the handler would call, watched: it must not be called at all.
      const watched = { ...ctx, taskId: ctx.taskId, signal: ctx.signal, durable: ctx.durable, setStatusMessage: (m: string) => ctx.setStatusMessage(m), checkpoint: async (state: unknown, label?: string) => (seen.kept.push(await ctx.checkpoint(state, label)), true) };
      return handler(params, watched);
    });
    await runtime.create({ taskId: 'm', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'job', params: {} });
    expect((await runtime.waitForOutcome('m', owner, { timeout: 5_000 })).task.status).toBe('completed');
    expect(seen).toEqual({ durable: false, kept: [] });
    await runtime.dispose();
  });
});
