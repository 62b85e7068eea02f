// Answer inline if fast (2026-07-28): one race between a task's outcome and the inline deadline,
// decided once. A clock fired by hand puts the deadline exactly where the test wants it, the
// work's end included; the runtime, the task and its handler are real.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTaskTool } from '../../../index.js';
import { raceOutcome, type InlineTimer } from '../../../adapters/wire/stateless/inline-answer.js';
import { extTaskMethod } from '../../../adapters/wire/stateless/task-methods.js';
import { readRequestMeta } from '../../../adapters/wire/stateless/wire.js';
import { callStateless, type StatelessCall } from '../../../adapters/wire/stateless/work-call.js';
import { registerWork } from '../../../adapters/wire/register-work.js';
import { servedDefinitions } from '../../../adapters/wire/served-work.js';
import { createTaskRuntime, type TaskOutcome, type TaskRuntime } from '../../../runtime/index.js';
import { ANONYMOUS_OWNER } from '../../../runtime/task-identity.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** A clock whose one deadline fires when the test says so. */
function handClock() {
  const state = { armed: null as { ms: number; fire: () => void } | null, cancelled: false };
  const timer: InlineTimer = (ms, fire) => {
    state.armed = { ms, fire };
    return () => {
      state.cancelled = true;
    };
  };
  return { timer, state, fire: () => state.armed?.fire() };
}

/** Lets `n` microtask turns pass. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

/** Waits (bounded) until `ready` holds, a macrotask turn at a time. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000 && !ready(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!ready()) throw new Error(`never: ${what}`);
}

const OUTCOME = { task: { status: 'completed' }, result: { content: [] }, hasResult: true } as unknown as TaskOutcome;

describe('raceOutcome', () => {
  it('should answer the outcome when it comes first, and cancel the deadline', async () => {
    const clock = handClock();
    const answer = raceOutcome(() => Promise.resolve(OUTCOME), 500, { timer: clock.timer });
    expect(await answer).toBe(OUTCOME);
    expect(clock.state.cancelled).toBe(true);
    clock.fire(); // a deadline that fires anyway is dropped
  });

  it('should answer null when the deadline fires in the same tick the outcome resolves, before its continuation', async () => {
    const clock = handClock();
    let resolve!: (o: TaskOutcome) => void;
    let aborted: AbortSignal | undefined;
    const answer = raceOutcome((signal) => ((aborted = signal), new Promise<TaskOutcome>((r) => (resolve = r))), 500, { timer: clock.timer });
    resolve(OUTCOME);
    clock.fire();
    expect(await answer).toBeNull();
    expect(aborted?.aborted).toBe(true);
  });

  it('should answer null when the wait fails, the requester leaves, or there is no window', async () => {
    expect(await raceOutcome(() => Promise.reject(new Error('store away')), 500, { timer: handClock().timer })).toBeNull();
    const left = new AbortController();
    const answer = raceOutcome(() => new Promise<TaskOutcome>(() => undefined), 500, { timer: handClock().timer, signal: left.signal });
    left.abort();
    expect(await answer).toBeNull();
    let waited = false;
    expect(await raceOutcome(() => ((waited = true), Promise.resolve(OUTCOME)), 0)).toBeNull();
    expect(waited).toBe(false);
  });
});

describe('callStateless with an inline window', () => {
  let runtime: TaskRuntime | undefined;
  afterEach(async () => {
    await runtime?.dispose();
  });

  /** A tool whose runs end when the test releases them, each by its `n`. */
  function gatedServer(options: { server?: number; tool?: number } = {}) {
    runtime = createTaskRuntime();
    const gates = new Map<number, () => void>();
    const gated = defineTaskTool({
      name: 'gated',
      inputSchema: z.object({ n: z.number() }),
      ...(options.tool !== undefined && { inlineWithinMs: options.tool }),
      run: async ({ n }) => {
        await new Promise<void>((resolve) => gates.set(n, resolve));
        return { content: [{ type: 'text', text: `done ${n}` }] };
      },
    });
    const definitions = { tools: [gated], inlineWithinMs: options.server ?? 500 };
    const served = servedDefinitions(definitions);
    registerWork(runtime, served.tools.values(), definitions);
    const rt = runtime;
    const call = (timer: InlineTimer): StatelessCall => ({ runtime: rt, served, owner: ANONYMOUS_OWNER, meta: readRequestMeta({ _meta: META }), signal: new AbortController().signal, timer });
    const params = (n: number) => ({ name: 'gated', arguments: { n }, _meta: META });
    return { runtime: rt, gates, call, params };
  }

  it("should wait the tool's own window over the server's, and answer with the task at once for a window of 0", async () => {
    const { gates, call, params, runtime: rt } = gatedServer({ server: 500, tool: 20 });
    const clock = handClock();
    const answer = callStateless(call(clock.timer), 'tools/call', params(1));
    await until(() => clock.state.armed !== null && gates.has(1), 'the window armed and the work started');
    expect(clock.state.armed?.ms).toBe(20);
    gates.get(1)!();
    expect(await answer).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'done 1' }] });

    const off = gatedServer({ server: 500, tool: 0 });
    const unarmed = handClock();
    const task = await callStateless(off.call(unarmed.timer), 'tools/call', off.params(2));
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    expect(unarmed.state.armed).toBeNull();
    await until(() => off.gates.has(2), 'the work started');
    off.gates.get(2)!();
    await rt.dispose();
  });

  it('should answer exactly once when the work ends on the deadline: inline, or a task whose result tasks/get then gives', async () => {
    const { runtime: rt, gates, call, params } = gatedServer();
    const seen = { complete: 0, task: 0 };
    for (let n = 0; n < 200; n++) {
      const clock = handClock();
      const answer = callStateless(call(clock.timer), 'tools/call', params(n));
      await until(() => clock.state.armed !== null && gates.has(n), `run ${n} armed and started`);
      // The end and the deadline in one tick, in either order, or the deadline a few turns later:
      // sweeps the deadline across the moment the outcome reaches the race.
      if (n % 4 === 0) {
        clock.fire();
        gates.get(n)!();
      } else {
        gates.get(n)!();
        await turns(n % 60);
        clock.fire();
      }
      const reply = await answer;
      const text = [{ type: 'text', text: `done ${n}` }];
      if (reply['resultType'] === 'complete') {
        seen.complete++;
        expect(reply).toEqual({ resultType: 'complete', content: text });
        expect(clock.state.cancelled, `run ${n}: the deadline it beat was dropped`).toBe(true);
        continue;
      }
      seen.task++;
      expect(reply, `run ${n}`).toMatchObject({ resultType: 'task', taskId: expect.any(String) as string });
      expect(reply['content'], `run ${n}: a task answer carries no result`).toBeUndefined();
      const taskId = String(reply['taskId']);
      await rt.waitForOutcome(taskId, ANONYMOUS_OWNER, { countsAsPoll: false });
      const got = await extTaskMethod(call(clock.timer), 'tasks/get', { taskId, _meta: META });
      expect(got, `run ${n}: the result is not lost`).toMatchObject({ status: 'completed', result: { content: text } });
    }
    // Both sides of the boundary were hit: the sweep crossed it.
    expect(seen.complete).toBeGreaterThan(0);
    expect(seen.task).toBeGreaterThan(0);
  });
});
