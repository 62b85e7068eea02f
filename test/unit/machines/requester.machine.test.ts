/**
 * Model-based tests of the requester machine, for both dialects. `@xstate/graph` explores the
 * machine with a fixed list of events (wire events plus the done/error events of its effect
 * actors); every reachable state × every event is checked against an independent reference model
 * (`requester.reference-model.ts`), which also says which events must be refused. Simple paths are
 * replayed purely and on live actors, named scenarios (the race, the fallback, cancel, failure)
 * are walked as test-model paths, and snapshots are round-tripped through JSON.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, initialTransition, transition, toPromise, type SnapshotFrom } from 'xstate';
import { getPathsFromEvents, getShortestPaths, getSimplePaths } from '@xstate/graph';
import { requesterEvents, requesterMachine } from '../../../machines/index.js';
import type { RequesterDialect, RequesterInput, RequesterTask } from '../../../machines/index.js';
import {
  EVENTS,
  EVENT_NAMES,
  MAX_CANCEL_POLLS,
  actorOf,
  expected,
  key,
  modelReachable,
  possibleEvents,
  project,
  runs,
  task,
  type EventName,
  type GraphEvent,
} from './requester.reference-model.js';

type Snapshot = SnapshotFrom<typeof requesterMachine>;

const inputFor = (dialect: RequesterDialect, resume = false): RequesterInput => ({
  dialect,
  ...(dialect === 'sep-1686' || resume ? { taskId: 't1' } : {}),
  pollFrequency: 1000,
  maxCancelPolls: MAX_CANCEL_POLLS,
  resume,
});
const serializeState = (s: Snapshot): string => key(project(s));
const step = (s: Snapshot, name: EventName): Snapshot => transition(requesterMachine, s, EVENTS[name] as GraphEvent)[0];
const nameOf = (event: GraphEvent): EventName => EVENT_NAMES.find((n) => EVENTS[n] === event) ?? (event.type as EventName);

function explore(dialect: RequesterDialect, resume: boolean) {
  const events = (s: Snapshot): GraphEvent[] => possibleEvents(s).map((n) => EVENTS[n] as GraphEvent);
  const traversal = { input: inputFor(dialect, resume), events, serializeState, limit: 20_000 };
  const simple = getSimplePaths(requesterMachine, traversal);
  const shortest = getShortestPaths(requesterMachine, traversal);
  const reachable = new Map<string, Snapshot>();
  for (const path of [...shortest, ...simple]) {
    for (const s of [...path.steps.map((x) => x.state), path.state]) if (!reachable.has(serializeState(s))) reachable.set(serializeState(s), s);
  }
  return { simple, shortest, reachable };
}

describe.each(['sep-1686', '2025-11-25', '2026-07-28'] as const)('requesterMachine (%s)', (dialect) => {
  const { simple, shortest, reachable } = explore(dialect, false);
  const start = (): Snapshot => initialTransition(requesterMachine, inputFor(dialect))[0];

  describe('model-based exploration (@xstate/graph)', () => {
    it('should reach exactly the abstract states of the reference model', () => {
      expect([...reachable.keys()].sort()).toEqual([...modelReachable(dialect, false).keys()].sort());
      const ats = new Set([...reachable.values()].map((s) => project(s).at));
      expect(ats.has('done') && ats.has('ended') && ats.has('cancelling.confirming.waiting')).toBe(true);
      expect(ats.has('cancelling.sendingCancel')).toBe(dialect !== 'sep-1686');
      expect(ats.has('polling.answering')).toBe(dialect === '2026-07-28');
    });

    it('should run exactly the effect actors the design says in each reachable state', () => {
      for (const snapshot of reachable.values()) {
        const at = project(snapshot).at;
        expect(Object.keys(snapshot.children).filter((id) => !runs(at, id)), at).toEqual([]);
        for (const name of EVENT_NAMES) {
          const actor = actorOf(name);
          if (actor !== null && runs(at, actor)) expect(Object.keys(snapshot.children), at).toContain(actor);
        }
      }
    });

    it('should accept or refuse every possible event in every reachable state exactly as the reference model says', () => {
      let refused = 0;
      for (const snapshot of reachable.values()) {
        for (const name of possibleEvents(snapshot)) {
          const next = step(snapshot, name);
          const want = expected(dialect, project(snapshot), name);
          if (want === null) {
            refused++;
            expect(next.status, `${serializeState(snapshot)} ${name}`).toBe(snapshot.status);
            expect(next.value, `${serializeState(snapshot)} ${name}`).toEqual(snapshot.value);
            expect(next.context, `${serializeState(snapshot)} ${name}`).toEqual(snapshot.context);
          } else {
            expect(project(next), `${serializeState(snapshot)} ${name}`).toEqual(want);
          }
        }
      }
      expect(refused).toBeGreaterThan(0);
    });

    it('should replay every simple path to the recorded state, purely and on a live actor', () => {
      expect(simple.length).toBeGreaterThan(shortest.length);
      for (const path of simple) {
        const names = path.steps.slice(1).map((s) => nameOf(s.event));
        let pure = start();
        for (const name of names) {
          const want = expected(dialect, project(pure), name);
          expect(want, `${names.join(' → ')}`).not.toBeNull();
          pure = step(pure, name);
        }
        expect(serializeState(pure)).toBe(serializeState(path.state));
        const actor = createActor(requesterMachine, { input: inputFor(dialect) }).start();
        for (const name of names) actor.send(EVENTS[name] as GraphEvent);
        expect(actor.getSnapshot().value).toEqual(pure.value);
        expect(actor.getSnapshot().context).toEqual(pure.context);
        actor.stop();
      }
    });

    it('should round-trip every reachable snapshot through JSON and go on identically', () => {
      for (const snapshot of reachable.values()) {
        const actor = createActor(requesterMachine, { input: inputFor(dialect), snapshot }).start();
        const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot;
        actor.stop();
        const restored = createActor(requesterMachine, { input: inputFor(dialect), snapshot: persisted }).start();
        expect(restored.getSnapshot().value).toEqual(snapshot.value);
        expect(restored.getSnapshot().context).toEqual(snapshot.context);
        expect(restored.getSnapshot().status).toBe(snapshot.status);
        for (const name of possibleEvents(snapshot)) {
          expect(serializeState(step(restored.getSnapshot(), name))).toBe(serializeState(step(snapshot, name)));
        }
        restored.stop();
      }
    });
  });

  describe('resume', () => {
    it('should start polling at once, without sending a request, and reach the reference states', () => {
      const sendRequest = vi.fn();
      const actor = createActor(requesterMachine.provide({ actions: { sendRequest } }), { input: inputFor(dialect, true) }).start();
      expect(project(actor.getSnapshot()).at).toBe('polling.fetching');
      expect(sendRequest).not.toHaveBeenCalled();
      actor.stop();
      const resumed = explore(dialect, true);
      expect([...resumed.reachable.keys()].sort()).toEqual([...modelReachable(dialect, true).keys()].sort());
    });
  });
});

/**
 * Walks a named scenario as a graph path (`createTestModel` refuses machines that invoke actors,
 * so the path comes from `getPathsFromEvents`) and on a live actor with spied effects.
 */
function walk(dialect: RequesterDialect, names: EventName[]) {
  const [path] = getPathsFromEvents(
    requesterMachine,
    names.map((n) => EVENTS[n] as GraphEvent),
    // `fromState` explicitly: getPathsFromEvents (3.0.4) does not hand `input` to the initial snapshot.
    { input: inputFor(dialect), fromState: initialTransition(requesterMachine, inputFor(dialect))[0], serializeState },
  );
  const sendRequest = vi.fn();
  const sendCancelNotification = vi.fn();
  const actor = createActor(requesterMachine.provide({ actions: { sendRequest, sendCancelNotification } }), {
    input: inputFor(dialect),
  }).start();
  for (const name of names) actor.send(EVENTS[name] as GraphEvent);
  const snapshot = actor.getSnapshot();
  expect(serializeState(snapshot)).toBe(path === undefined ? undefined : serializeState(path.state));
  return { snapshot, sendRequest, sendCancelNotification, steps: path?.steps.length ?? 0 };
}

describe('requesterMachine scenarios', () => {
  describe('SEP-1686: direct response vs notifications/tasks/created', () => {
    it('should end done with the direct response when it comes first, and refuse a late created', () => {
      const { snapshot, sendRequest } = walk('sep-1686', ['response', 'createdBare']);
      expect(sendRequest).toHaveBeenCalledTimes(1);
      expect(snapshot.status).toBe('done');
      expect(snapshot.output).toMatchObject({ outcome: 'completed', resultSource: 'response', result: EVENTS.response.result, task: null });
    });

    it('should fall back to the direct response when the receiver never sends created (no polling)', () => {
      const { snapshot, steps } = walk('sep-1686', ['response']);
      expect(steps).toBe(2);
      expect(snapshot.output?.task).toBeNull();
    });

    it('should let the direct response win while polling after created came first', () => {
      const { snapshot } = walk('sep-1686', ['createdBare', 'taskWorking', 'waited', 'response']);
      expect(snapshot.output).toMatchObject({ outcome: 'completed', resultSource: 'response', task: { status: 'working' } });
    });

    it('should poll to completed and fetch tasks/result after created came first', () => {
      const { snapshot } = walk('sep-1686', ['createdBare', 'taskWorking', 'waited', 'taskCompleted', 'result']);
      expect(snapshot.output).toMatchObject({ outcome: 'completed', resultSource: 'tasks/result', result: EVENTS.result.output });
    });

    it('should send notifications/cancelled on cancel and keep polling until the task shows cancelled', () => {
      const { snapshot, sendCancelNotification } = walk('sep-1686', ['createdBare', 'taskWorking', 'cancel', 'taskWorking', 'waited', 'taskCancelled']);
      expect(sendCancelNotification).toHaveBeenCalledTimes(1);
      expect(snapshot.output).toMatchObject({ outcome: 'cancelled', task: { status: 'cancelled' } });
    });

    it('should give up after maxCancelPolls polls that do not show cancelled', () => {
      const { snapshot } = walk('sep-1686', ['createdBare', 'cancel', 'taskWorking', 'waited', 'taskWorking']);
      expect(snapshot.output).toMatchObject({ outcome: 'error', error: { code: 'cancel_unconfirmed' } });
    });

    it('should end with the task status when it fails, and with an error when the request fails first', () => {
      expect(walk('sep-1686', ['createdBare', 'taskFailed']).snapshot.output).toMatchObject({ outcome: 'failed', task: { error: 'it broke' } });
      expect(walk('sep-1686', ['requestFailed']).snapshot.output).toMatchObject({
        outcome: 'error',
        error: { code: 'request_failed', message: 'boom', rpcCode: -32603 },
      });
    });
  });

  describe('2025-11-25: CreateTaskResult, polling, tasks/result, tasks/cancel', () => {
    it('should poll from the created task to completed and fetch the result', () => {
      const { snapshot } = walk('2025-11-25', ['createdTask', 'taskWorking', 'waited', 'taskCompleted', 'result']);
      expect(snapshot.output).toMatchObject({ outcome: 'completed', resultSource: 'tasks/result', task: { taskId: 't1' } });
    });

    it('should call the blocking tasks/result on input_required', () => {
      const { snapshot } = walk('2025-11-25', ['createdTask', 'taskInputRequired', 'result']);
      expect(snapshot.output).toMatchObject({ outcome: 'completed', resultSource: 'tasks/result', task: { status: 'input_required' } });
    });

    it('should refuse a created without a task, and a direct response once polling', () => {
      expect(walk('2025-11-25', ['createdBare']).snapshot.value).toBe('requesting');
      expect(walk('2025-11-25', ['createdTask', 'response']).snapshot.value).toEqual({ polling: 'fetching' });
    });

    it('should cancel with tasks/cancel, also when the cancel came before the task id', () => {
      expect(walk('2025-11-25', ['createdTask', 'taskWorking', 'cancel', 'cancelAck']).snapshot.output).toMatchObject({ outcome: 'cancelled' });
      const early = walk('2025-11-25', ['cancel', 'createdTask']);
      expect(early.snapshot.value).toEqual({ cancelling: 'sendingCancel' });
      expect(early.sendCancelNotification).not.toHaveBeenCalled();
    });

    it('should end failed when the task fails', () => {
      expect(walk('2025-11-25', ['createdTask', 'taskFailed']).snapshot.output).toMatchObject({ outcome: 'failed' });
    });
  });

  describe('2026-07-28: flat CreateTaskResult, inline result, inputRequests answered by tasks/update', () => {
    it('should take the result the completed tasks/get inlined', () => {
      const { snapshot } = walk('2026-07-28', ['createdTask', 'taskWorking', 'waited', 'taskCompleted', 'result']);
      expect(snapshot.output).toMatchObject({ outcome: 'completed', resultSource: 'tasks/get', task: { status: 'completed' } });
    });

    it('should answer a listed input request once, poll again at once, and only wait when nothing new is asked', () => {
      const { snapshot } = walk('2026-07-28', ['createdTask', 'taskInputRequired', 'inputAnswered', 'taskInputRequired']);
      expect(snapshot.value).toEqual({ polling: 'waiting' });
      expect(snapshot.context.answeredInputs).toEqual(['k1']);
      expect(walk('2026-07-28', ['createdTask', 'taskInputRequired']).snapshot.children).toHaveProperty('answerInput');
    });

    it('should end with input_failed when the input cannot be answered, and cancel with tasks/cancel while answering', () => {
      expect(walk('2026-07-28', ['createdTask', 'taskInputRequired', 'inputError']).snapshot.output).toMatchObject({ outcome: 'error', error: { code: 'input_failed' } });
      expect(walk('2026-07-28', ['createdTask', 'taskInputRequired', 'cancel']).snapshot.value).toEqual({ cancelling: 'sendingCancel' });
    });

    it('should hand the answering actor only the requests not answered yet', async () => {
      const polls: RequesterTask[] = [
        { ...task('input_required'), inputRequests: { k1: { method: 'elicitation/create' } } },
        { ...task('input_required'), inputRequests: { k1: { method: 'elicitation/create' }, k2: { method: 'sampling/createMessage' } } },
        task('completed'),
      ];
      const asked: string[][] = [];
      const machine = requesterMachine.provide({
        actors: {
          getTask: fromPromise(async () => polls.shift() ?? task('completed')),
          answerInput: fromPromise(async ({ input }) => (asked.push(Object.keys(input.inputRequests)), Object.keys(input.inputRequests))),
          wait: fromPromise(async (): Promise<void> => {}),
          getResult: fromPromise(async (): Promise<Record<string, unknown>> => ({ content: [] })),
        },
      });
      const actor = createActor(machine, { input: { dialect: '2026-07-28', taskId: 't1', resume: true } }).start();
      await expect(toPromise(actor)).resolves.toMatchObject({ outcome: 'completed', resultSource: 'tasks/get' });
      expect(asked).toEqual([['k1'], ['k2']]);
    });
  });

  describe('live effects', () => {
    it('should wait the receiver-suggested pollFrequency between polls and end with the fetched result', async () => {
      const statuses: RequesterTask['status'][] = ['working', 'working', 'completed'];
      const waits: number[] = [];
      const machine = requesterMachine.provide({
        actors: {
          getTask: fromPromise(async () => task(statuses.shift() ?? 'completed')),
          wait: fromPromise(async ({ input }) => void waits.push(input.ms)),
          getResult: fromPromise(async (): Promise<Record<string, unknown>> => ({ content: [] })),
        },
      });
      const actor = createActor(machine, { input: { dialect: 'sep-1686', taskId: 't1' } }).start();
      actor.send(requesterEvents.created(null));
      await expect(toPromise(actor)).resolves.toMatchObject({ outcome: 'completed', resultSource: 'tasks/result' });
      expect(waits).toEqual([50, 50]);
    });

    it('should record an effect error as JSON data with its JSON-RPC code', async () => {
      const machine = requesterMachine.provide({
        actors: { getTask: fromPromise(async () => Promise.reject(Object.assign(new Error('Task not found'), { code: -32602 }))) },
      });
      const actor = createActor(machine, { input: { dialect: '2025-11-25', taskId: 't1', resume: true } }).start();
      const output = await toPromise(actor);
      expect(JSON.parse(JSON.stringify(output))).toEqual({
        outcome: 'error',
        result: null,
        resultSource: null,
        task: null,
        error: { code: 'poll_failed', message: 'Task not found', rpcCode: -32602 },
      });
    });
  });
});
