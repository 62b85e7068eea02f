/**
 * The task core's run (`runtime/core/task-run.ts`): one actor of the lifecycle machine and the work
 * beside it, driven through a small recording {@link RunPort} that does what the memory backend
 * does (a move or an outcome is sent to the run's own actor). These are the behaviours the machine's
 * former invoked `handler` actor had: the work's outcome completes or fails a live task, a resumed
 * task runs its work from the state it was in, one work runs across working ⇄ input_required, and
 * a task that ended meanwhile (cancelled, completed by event, stopped) drops its late outcome.
 */
import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition, type SnapshotFrom } from 'xstate';
import { taskEvents, taskMachine, type TaskContext, type TaskEvent, type TaskStatus } from '../../../machines/index.js';
import { TaskFailure, TaskTerminalError } from '../../../runtime/errors.js';
import type { Settled } from '../../../runtime/core/outcome.js';
import { TaskRun } from '../../../runtime/core/task-run.js';
import type { RunPort, RunStart } from '../../../runtime/core/task-run.types.js';
import { checkResult } from '../../../runtime/task-identity.js';
import type { InputRequest, TaskHandler, TaskHandlerContext } from '../../../runtime/task-runtime.types.js';

type TaskSnapshot = SnapshotFrom<typeof taskMachine>;

import { INPUT } from '../machines/task.reference-model.js';

const PARAMS = { name: 'sleep', arguments: { ms: 10 } };

/** Drains the microtask queue (and one turn of the event loop). */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A task's context after `events`, by xstate's pure transition function (as a record holds it). */
function replay(events: readonly TaskEvent[]): TaskSnapshot {
  return events.reduce<TaskSnapshot>((s, e) => transition(taskMachine, s, e)[0], initialTransition(taskMachine, INPUT)[0]);
}

interface SetUp {
  /** How the port answers a request to make an input request known. */
  readonly requestInput?: (request: InputRequest) => boolean | Promise<boolean>;
  readonly resuming?: () => Promise<void>;
  readonly maxResultBytes?: number | null;
}

/** A run with a port that records everything and sends moves and outcomes to the run's actor. */
function setUp(start: RunStart, handler: TaskHandler | null, options: SetUp = {}) {
  let clock = 50_000;
  const now = (): number => (clock += 1);
  const observed: TaskSnapshot[] = [];
  const moves: TaskEvent[] = [];
  const requests: InputRequest[] = [];
  const ends: { outcome: Settled; at: number }[] = [];
  const counts = { ended: 0, waiting: 0, resuming: 0 };
  // The port is made before the run it serves: it finds the run here once it exists.
  const made: { run?: TaskRun } = {};
  const self = (): TaskRun => {
    if (made.run === undefined) throw new Error('the port was used before the run existed');
    return made.run;
  };
  const port: RunPort = {
    move: (event) => {
      moves.push(event);
      self().send(event);
    },
    requestInput: (request) => {
      requests.push(request);
      if (options.requestInput) return options.requestInput(request);
      self().send(taskEvents.inputRequest(request.inputId, now()));
      return true;
    },
    end: (outcome, at) => {
      ends.push({ outcome, at });
      self().send(outcome.status === 'completed' ? taskEvents.complete(`result-of-${self().actor.id}`, at) : taskEvents.fail(outcome.error, at));
    },
    observe: (snapshot) => observed.push(snapshot),
    ended: () => (counts.ended += 1),
    waiting: () => (counts.waiting += 1),
  };
  const { resuming } = options;
  if (resuming) {
    port.resuming = () => {
      counts.resuming += 1;
      return resuming();
    };
  }
  const run = new TaskRun(start, { handler, params: PARAMS, maxResultBytes: options.maxResultBytes ?? null, now }, port);
  made.run = run;
  return { run, observed, moves, requests, ends, counts, statuses: () => observed.map((s) => s.value), context: (): TaskContext => run.actor.getSnapshot().context };
}

interface Call {
  readonly params: unknown;
  readonly ctx: TaskHandlerContext;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** A handler whose promise the test settles by hand; its context's calls are made from the test. */
function controlledHandler() {
  const calls: Call[] = [];
  const handler: TaskHandler = (params, ctx) => new Promise((resolve, reject) => calls.push({ params, ctx, resolve, reject }));
  const call = (): Call => {
    const first = calls[0];
    if (first === undefined) throw new Error('the handler was not called');
    return first;
  };
  return { handler, calls, call };
}

/** What a promise settled with, read without leaving a rejection unhandled. */
function settledOf(promise: Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

describe('TaskRun', () => {
  describe('outcome of the work', () => {
    it('should complete a new task when its work resolves, the work seeing the task and its params', async () => {
      const { handler, calls, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      expect(calls).toHaveLength(1);
      expect(call().params).toBe(PARAMS);
      expect(call().ctx).toMatchObject({ taskId: INPUT.taskId, owner: INPUT.owner, dialect: INPUT.dialect });
      expect(call().ctx.signal.aborted).toBe(false);
      call().ctx.setStatusMessage('halfway');
      expect(t.moves).toEqual([taskEvents.message('halfway', 50_001)]);
      expect(t.context().statusMessage).toBe('halfway');
      expect(t.run.status).toBe('working');

      const result = { content: [{ type: 'text', text: 'slept' }] };
      call().resolve(result);
      await flush();
      expect(t.ends).toEqual([{ outcome: { status: 'completed', result, bytes: JSON.stringify(result).length }, at: 50_002 }]);
      expect(t.run.status).toBe('completed');
      expect(t.context()).toMatchObject({ resultRef: `result-of-${t.run.actor.id}`, updatedAt: 50_002, error: null });
      expect(t.statuses()).toEqual(['submitted', 'working', 'working', 'completed']);
      // The signal fires only when the task ends before its work returned (TaskHandlerContext.signal).
      expect(call().ctx.signal.aborted).toBe(false);
      expect(t.run.over).toBe(true);
      expect(t.counts.ended).toBe(1);
      // Nothing more moves the task once it ended.
      call().ctx.setStatusMessage('after the end');
      expect(t.moves).toHaveLength(1);
      expect(calls).toHaveLength(1);
    });

    it('should run the work of a task resumed in working, whose outcome then completes it', async () => {
      const { handler, calls, call } = controlledHandler();
      const record = replay([taskEvents.start(2_000), taskEvents.message('step 1', 2_001)]);
      expect(record.value).toBe('working');
      const t = setUp({ status: 'working', context: record.context }, handler);
      // No restart at submitted: the actor starts in the record's state, with the record's context.
      expect(t.statuses()).toEqual(['working']);
      expect(t.context()).toEqual(record.context);
      t.run.begin();
      await flush();
      expect(calls).toHaveLength(1);
      expect(call().ctx).toMatchObject({ taskId: INPUT.taskId, owner: INPUT.owner, dialect: INPUT.dialect });
      call().resolve({ done: true });
      await flush();
      expect(t.ends).toEqual([{ outcome: { status: 'completed', result: { done: true }, bytes: 13 }, at: expect.any(Number) }]);
      expect(t.run.status).toBe('completed');
      expect(t.statuses()).toEqual(['working', 'completed']);
      expect(t.context()).toMatchObject({ statusMessage: 'step 1', resultRef: `result-of-${t.run.actor.id}` });
      expect(t.counts.ended).toBe(1);
    });

    it('should run the work of a task resumed in input_required, asking again under the same id, and complete it', async () => {
      // The record's context, taken from a live actor's persisted snapshot through JSON.
      const original = createActor(taskMachine, { input: INPUT }).start();
      original.send(taskEvents.start(2_000));
      original.send(taskEvents.inputRequest('input-1', 2_001));
      const persisted = JSON.parse(JSON.stringify(original.getPersistedSnapshot())) as { value: TaskStatus; context: TaskContext };
      original.stop();
      expect(persisted.value).toBe('input_required');

      const answers: unknown[] = [];
      let calls = 0;
      const handler: TaskHandler = async (_params, ctx) => {
        calls += 1;
        answers.push(await ctx.requestInput('elicitation/create', { message: 'sure?' }));
        return { answers };
      };
      const t = setUp({ status: persisted.value, context: persisted.context }, handler);
      expect(t.statuses()).toEqual(['input_required']);
      expect(t.context().pendingInputs).toEqual(['input-1']);
      t.run.begin();
      await flush();
      expect(calls).toBe(1);
      // A re-run asks again under the same id: the record already has it pending, nothing changes.
      expect(t.requests.map((r) => r.inputId)).toEqual(['input-1']);
      expect(t.run.waitsFor('input-1')).toBe(true);
      expect(t.run.status).toBe('input_required');
      expect(t.context().pendingInputs).toEqual(['input-1']);
      t.run.send(taskEvents.inputResponse('input-1', 3_000));
      expect(t.run.status).toBe('working');
      expect(t.run.answer('input-1', { result: { action: 'accept' } })).toBe(true);
      await flush();
      expect(answers).toEqual([{ action: 'accept' }]);
      expect(t.ends).toEqual([{ outcome: { status: 'completed', result: { answers: [{ action: 'accept' }] }, bytes: JSON.stringify({ answers: [{ action: 'accept' }] }).length }, at: expect.any(Number) }]);
      expect(t.run.status).toBe('completed');
      expect(t.statuses()).not.toContain('submitted');
      expect(t.statuses()[0]).toBe('input_required');
      expect(calls).toBe(1);
    });

    it.each([
      ['an async rejection', async () => Promise.reject(new Error('boom')), 'boom'],
      ['a synchronous throw', () => {
        throw new Error('sync boom');
      }, 'sync boom'],
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a handler may throw anything
      ['a thrown string', async () => Promise.reject('plain words'), 'plain words'],
    ] satisfies [string, TaskHandler, string][])('should fail the task with the message of %s', async (_what, handler, message) => {
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      expect(t.ends).toHaveLength(1);
      expect(t.ends[0]?.outcome).toStrictEqual({ status: 'failed', error: message, failure: null, bytes: 0 });
      expect(t.run.status).toBe('failed');
      expect(t.context()).toMatchObject({ error: message, statusMessage: message, resultRef: null });
      expect(t.counts.ended).toBe(1);
    });

    it('should keep the result and detail of a thrown TaskFailure', async () => {
      const toolResult = { content: [{ type: 'text', text: 'no such file' }], isError: true };
      const json = (v: unknown): number => JSON.stringify(v)?.length ?? 0;
      const cases: [TaskFailure, Settled][] = [
        [
          new TaskFailure('Tool reported an error', { result: toolResult, detail: { code: -32_000 } }),
          { status: 'failed', error: 'Tool reported an error', failure: { code: -32_000 }, result: { value: toolResult }, bytes: json(toolResult) + json({ code: -32_000 }) },
        ],
        [new TaskFailure('Refused', { detail: { why: 'policy' } }), { status: 'failed', error: 'Refused', failure: { why: 'policy' }, bytes: json({ why: 'policy' }) }],
        [new TaskFailure('Bare'), { status: 'failed', error: 'Bare', failure: null, bytes: json(null) }],
        // A result of `undefined` is still a result the failure keeps.
        [new TaskFailure('Kept nothing', { result: undefined }), { status: 'failed', error: 'Kept nothing', failure: null, result: { value: undefined }, bytes: json(null) }],
      ];
      for (const [failure, expected] of cases) {
        const t = setUp({ input: INPUT }, () => Promise.reject(failure));
        t.run.send(taskEvents.start(2_000));
        t.run.begin();
        await flush();
        expect(t.ends.map((e) => e.outcome), failure.message).toStrictEqual([expected]);
        expect(t.run.status).toBe('failed');
        expect(t.context().error).toBe(failure.message);
      }
    });

    it('should fail the task, with the check\'s message, for a result that is not JSON or is over maxResultBytes', async () => {
      const messageOf = (value: unknown, max: number | null): string => {
        try {
          checkResult(value, max);
        } catch (error) {
          return (error as Error).message;
        }
        throw new Error('the check accepted the value');
      };
      const big = { text: 'x'.repeat(200) };
      const cases: [string, unknown, number | null][] = [
        ['a BigInt', { n: 1n }, null],
        ['a BigInt under a cap', { n: 1n }, 1_000_000],
        ['a result over the cap', big, 100],
      ];
      for (const [what, value, max] of cases) {
        const t = setUp({ input: INPUT }, async () => value, { maxResultBytes: max });
        t.run.send(taskEvents.start(2_000));
        t.run.begin();
        await flush();
        const message = messageOf(value, max);
        expect(t.ends.map((e) => e.outcome), what).toStrictEqual([{ status: 'failed', error: message, failure: null, bytes: 0 }]);
        expect(t.run.status).toBe('failed');
        expect(t.context()).toMatchObject({ error: message, resultRef: null });
      }
      expect(messageOf({ n: 1n }, null)).toMatch(/cannot be stored as JSON.*BigInt/);
      expect(messageOf(big, 100)).toMatch(/maxResultBytes/);
      // The same result within the cap completes.
      const within = setUp({ input: INPUT }, async () => big, { maxResultBytes: 1_000 });
      within.run.send(taskEvents.start(2_000));
      within.run.begin();
      await flush();
      expect(within.ends.map((e) => e.outcome)).toEqual([{ status: 'completed', result: big, bytes: JSON.stringify(big).length }]);
    });
  });

  describe('one work across working ⇄ input_required', () => {
    it('should call the handler once and keep its signal while the task goes to input_required and back', async () => {
      let calls = 0;
      const abortedAt: boolean[] = [];
      let signal: AbortSignal | undefined;
      const handler: TaskHandler = async (_params, ctx) => {
        calls += 1;
        signal = ctx.signal;
        const a = await ctx.requestInput('elicitation/create', { n: 1 });
        abortedAt.push(ctx.signal.aborted);
        const b = await ctx.requestInput('sampling/createMessage', { n: 2 });
        abortedAt.push(ctx.signal.aborted);
        return [a, b];
      };
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      expect(t.requests).toEqual([
        { taskId: INPUT.taskId, owner: INPUT.owner, dialect: INPUT.dialect, inputId: 'input-1', method: 'elicitation/create', params: { n: 1 } },
      ]);
      expect(t.run.pending).toEqual(t.requests);
      expect(t.run.status).toBe('input_required');
      expect(t.counts.waiting).toBe(1);
      expect(signal?.aborted).toBe(false);

      t.run.send(taskEvents.inputResponse('input-1', 3_000));
      expect(t.run.status).toBe('working');
      expect(t.run.answer('input-1', { result: 'A' })).toBe(true);
      expect(t.run.waitsFor('input-1')).toBe(false);
      await flush();
      expect(t.requests.map((r) => [r.inputId, r.method])).toEqual([
        ['input-1', 'elicitation/create'],
        ['input-2', 'sampling/createMessage'],
      ]);
      expect(t.run.status).toBe('input_required');
      expect(t.run.pending.map((r) => r.inputId)).toEqual(['input-2']);
      expect(signal?.aborted).toBe(false);

      t.run.send(taskEvents.inputResponse('input-2', 3_001));
      expect(t.run.answer('input-2', { result: 'B' })).toBe(true);
      await flush();
      expect(calls).toBe(1);
      expect(abortedAt).toEqual([false, false]);
      expect(t.ends.map((e) => e.outcome)).toEqual([{ status: 'completed', result: ['A', 'B'], bytes: 9 }]);
      expect(t.statuses()).toEqual(['submitted', 'working', 'input_required', 'working', 'input_required', 'working', 'completed']);
      // The work returned before the task ended: its signal never fires.
      expect(signal?.aborted).toBe(false);
      expect(t.counts).toEqual({ ended: 1, waiting: 2, resuming: 0 });
    });
  });

  describe('a task that ended meanwhile', () => {
    const prefixes: ReadonlyArray<readonly [TaskStatus, readonly TaskEvent[]]> = [
      ['submitted', []],
      ['working', [taskEvents.start(2_000)]],
      ['input_required', [taskEvents.start(2_000)]],
    ];

    it.each(prefixes)('should abort the signal of a task cancelled in %s, refuse its input requests, and drop its late outcome', async (status, events) => {
      const { handler, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      for (const event of events) t.run.send(event);
      t.run.begin();
      await flush();
      const asked = status === 'input_required' ? settledOf(call().ctx.requestInput('elicitation/create', {})) : null;
      expect(t.run.status).toBe(status);
      const { signal } = call().ctx;
      expect(signal.aborted).toBe(false);

      t.run.send(taskEvents.cancel('user asked', 5_000));
      expect(t.run.status).toBe('cancelled');
      expect(t.context().pendingInputs).toEqual([]);
      expect(signal.aborted).toBe(true);
      expect(t.counts.ended).toBe(1);
      expect(t.run.pending).toEqual([]);
      if (asked !== null) {
        const refused = await asked;
        expect(refused.ok).toBe(false);
        expect(!refused.ok && refused.error).toBeInstanceOf(TaskTerminalError);
        expect(!refused.ok && refused.error).toMatchObject({ taskId: INPUT.taskId, status: 'cancelled' });
      }
      // The work, still going, can no longer ask nor move the task.
      const late = await settledOf(call().ctx.requestInput('elicitation/create', {}));
      expect(!late.ok && late.error).toBeInstanceOf(TaskTerminalError);
      call().ctx.setStatusMessage('ignored');
      const cancelled = t.run.actor.getSnapshot();

      call().resolve({ content: [] });
      await flush();
      expect(t.ends).toEqual([]);
      expect(t.run.status).toBe('cancelled');
      expect(t.run.actor.getSnapshot().context).toEqual(cancelled.context);
      expect(t.context().statusMessage).toBe('user asked');
      expect(t.moves).toEqual([]);
      expect(t.counts.ended).toBe(1);
    });

    it('should drop an outcome that comes after the task completed by event', async () => {
      const { handler, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      t.run.send(taskEvents.complete('by-event', 3_000));
      expect(call().ctx.signal.aborted).toBe(true);
      call().reject(new Error('late'));
      await flush();
      expect(t.ends).toEqual([]);
      expect(t.run.status).toBe('completed');
      expect(t.context()).toMatchObject({ resultRef: 'by-event', error: null, updatedAt: 3_000 });
      expect(t.counts.ended).toBe(1);
    });
  });

  describe('begin', () => {
    it('should start the work one microtask after begin(), and not before begin()', async () => {
      const { handler, calls } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      await flush();
      // Before begin(): nothing of the work, only the actor's own snapshots.
      expect(calls).toHaveLength(0);
      expect(t.statuses()).toEqual(['submitted', 'working']);
      t.run.begin();
      // The caller takes the task's first view before the work runs.
      expect(calls).toHaveLength(0);
      await Promise.resolve();
      expect(calls).toHaveLength(1);
      await Promise.resolve();
      expect(calls).toHaveLength(1);
      await flush();
      expect(calls).toHaveLength(1);
      expect(t.ends).toEqual([]);
    });

    it('should never call the handler of a task that ended between begin() and the start of its work', async () => {
      const { handler, calls } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      t.run.send(taskEvents.cancel(null, 2_001));
      await flush();
      expect(calls).toHaveLength(0);
      expect(t.ends).toEqual([]);
      expect(t.run.status).toBe('cancelled');
    });

    it('should run nothing for a task without a handler', async () => {
      const t = setUp({ input: INPUT }, null);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      expect(t.run.status).toBe('working');
      expect(t.ends).toEqual([]);
      expect(t.requests).toEqual([]);
      expect(t.counts.ended).toBe(0);
      expect(t.run.over).toBe(false);
    });
  });

  describe('answers', () => {
    it('should resolve or reject the work\'s input request with the answer, and refuse unknown ids', async () => {
      const { handler, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      const first = settledOf(call().ctx.requestInput('elicitation/create', { q: 1 }));
      const second = settledOf(call().ctx.requestInput('elicitation/create', { q: 2 }));
      expect(t.run.pending.map((r) => r.inputId)).toEqual(['input-1', 'input-2']);
      expect(t.context().pendingInputs).toEqual(['input-1', 'input-2']);
      expect(t.run.answer('input-99', { result: 'nobody asked' })).toBe(false);
      expect(t.run.answer('input-2', { result: 'two' })).toBe(true);
      expect(t.run.answer('input-2', { result: 'twice' })).toBe(false);
      const refusal = new Error('the requester declined');
      expect(t.run.answer('input-1', { error: refusal })).toBe(true);
      expect(await second).toEqual({ ok: true, value: 'two' });
      expect(await first).toEqual({ ok: false, error: refusal });
      expect(t.run.pending).toEqual([]);
      expect(t.run.waitsFor('input-1')).toBe(false);
      // Answers are the backend's to record: the actor moves on the response events only.
      expect(t.run.status).toBe('input_required');
      call().resolve('done');
      await flush();
      expect(t.run.status).toBe('completed');
      expect(t.run.answer('input-1', { result: 'after the end' })).toBe(false);
    });

    it('should wait for resuming() before the answer reaches the work', async () => {
      let release!: () => void;
      const resumed = new Promise<void>((resolve) => (release = resolve));
      const { handler, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler, { resuming: () => resumed });
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      let answer: unknown = 'not yet';
      void call().ctx.requestInput('elicitation/create', {}).then((value) => (answer = value));
      expect(t.counts.waiting).toBe(1);
      t.run.send(taskEvents.inputResponse('input-1', 3_000));
      expect(t.run.answer('input-1', { result: 'yes' })).toBe(true);
      expect(t.counts.resuming).toBe(1);
      expect(t.run.waitsFor('input-1')).toBe(false);
      await flush();
      await flush();
      expect(answer).toBe('not yet');
      release();
      await flush();
      expect(answer).toBe('yes');
      expect(t.counts.resuming).toBe(1);
    });

    it.each([
      ['refuses it', () => false],
      ['refuses it later', () => Promise.resolve(false)],
      ['fails to write it', () => Promise.reject(new Error('write failed'))],
      ['throws', () => {
        throw new Error('write failed');
      }],
    ] satisfies [string, (request: InputRequest) => boolean | Promise<boolean>][])(
      'should reject the work\'s input request with TaskTerminalError when the port %s',
      async (_what, requestInput) => {
        const { handler, call } = controlledHandler();
        const t = setUp({ input: INPUT }, handler, { requestInput });
        t.run.send(taskEvents.start(2_000));
        t.run.begin();
        await flush();
        const asked = await settledOf(call().ctx.requestInput('elicitation/create', {}));
        expect(asked.ok).toBe(false);
        expect(!asked.ok && asked.error).toBeInstanceOf(TaskTerminalError);
        expect(t.requests.map((r) => r.inputId)).toEqual(['input-1']);
        expect(t.run.waitsFor('input-1')).toBe(false);
        expect(t.run.pending).toEqual([]);
        expect(t.counts.waiting).toBe(0);
        expect(t.run.answer('input-1', { result: 'too late' })).toBe(false);
      },
    );

    it('should tell the port the work waits once a request it takes later is taken', async () => {
      let take!: (ok: boolean) => void;
      const { handler, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler, { requestInput: () => new Promise<boolean>((resolve) => (take = resolve)) });
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      const asked = settledOf(call().ctx.requestInput('elicitation/create', {}));
      expect(t.run.waitsFor('input-1')).toBe(true);
      expect(t.counts.waiting).toBe(0);
      take(true);
      await flush();
      expect(t.counts.waiting).toBe(1);
      expect(t.run.answer('input-1', { result: 42 })).toBe(true);
      expect(await asked).toEqual({ ok: true, value: 42 });
    });
  });

  describe('stop', () => {
    it('should abort the signal, refuse pending requests, call ended once and write nothing more', async () => {
      const { handler, call } = controlledHandler();
      const t = setUp({ input: INPUT }, handler);
      t.run.send(taskEvents.start(2_000));
      t.run.begin();
      await flush();
      const asked = settledOf(call().ctx.requestInput('elicitation/create', {}));
      expect(t.run.status).toBe('input_required');
      const before = t.run.actor.getSnapshot();
      t.run.stop();
      expect(call().ctx.signal.aborted).toBe(true);
      expect(t.run.over).toBe(true);
      expect(t.counts.ended).toBe(1);
      const refused = await asked;
      // Not "terminal": the task did not end, this node stopped running it.
      expect(!refused.ok && refused.error).not.toBeInstanceOf(TaskTerminalError);
      expect(!refused.ok && (refused.error as Error).message).toMatch(/stopped on this node before its input was answered/);
      // Stopped without an outcome: the local actor is finished (it leaves the shared actor
      // system), the port hears of no new state, and no more events reach it.
      expect(t.run.actor.getSnapshot().status).toBe('done');
      expect(t.observed.at(-1)?.value).toBe('input_required');
      t.run.send(taskEvents.inputResponse('input-1', 3_000));
      expect(t.observed.at(-1)?.context).toEqual(before.context);
      call().resolve('late');
      await flush();
      expect(t.ends).toEqual([]);
      t.run.stop();
      expect(t.counts.ended).toBe(1);
    });
  });
});
