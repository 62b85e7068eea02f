/**
 * Found in review: machineHandler re-arms a restored checkpoint's delayed events with
 * `scheduler.schedule(actor, actor, event, …)`: always to the root actor. A delayed `sendTo` a
 * child (an invoked machine) is kept with the root as its source but the child as its target; once
 * restored it is delivered to the root instead, and the child never gets it: the job hangs.
 */
import { sendTo, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { HandlerRuns, machineHandler, type MachineWorkContext } from '../../../adapters/inspector/index.js';
import type { TaskCheckpoint } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };

const kid = setup({}).createMachine({ id: 'kid', initial: 'waiting', states: { waiting: { on: { PING: 'done' } }, done: { type: 'final' } } });
const parent = setup({ actors: { kid } }).createMachine({
  id: 'parent',
  initial: 'working',
  states: {
    working: {
      invoke: { id: 'kid', src: 'kid', onDone: 'done' },
      entry: sendTo('kid', { type: 'PING' }, { delay: 200 }),
    },
    done: { type: 'final' },
  },
  output: () => 'finished',
});

function durable(signal: AbortSignal, resumeFrom: TaskCheckpoint | null = null): MachineWorkContext & { kept: TaskCheckpoint[] } {
  const kept: TaskCheckpoint[] = [];
  let seq = resumeFrom?.seq ?? 0;
  return {
    taskId: 'job',
    owner,
    signal,
    kept,
    resumeFrom,
    setStatusMessage: () => undefined,
    checkpoint: async (state, label) => (kept.push({ seq: ++seq, state: JSON.parse(JSON.stringify(state)) as unknown, label: label ?? null, at: Date.now(), node: null }), true),
  };
}

describe('a delayed event to a child, restored', () => {
  it('still reaches the child', async () => {
    // Sanity: without a loss the job finishes after 200 ms.
    await expect(machineHandler(parent, { runs: new HandlerRuns() })({}, durable(new AbortController().signal))).resolves.toBe('finished');
    // Lost 50 ms in, with the PING still pending; resumed from the checkpoint.
    const first = new AbortController();
    const a = durable(first.signal);
    void machineHandler(parent, { runs: new HandlerRuns() })({}, a).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    first.abort();
    const last = a.kept.at(-1)!;
    expect((last.state as { timers: unknown[] }).timers).toHaveLength(1);
    const resumed = machineHandler(parent, { runs: new HandlerRuns() })({}, durable(new AbortController().signal, last));
    // Before the fix: the PING goes to the parent, the child waits forever.
    const outcome = await Promise.race([resumed, new Promise((r) => setTimeout(() => r('still waiting after 1 s'), 1_000))]);
    expect(outcome).toBe('finished');
  });
});
