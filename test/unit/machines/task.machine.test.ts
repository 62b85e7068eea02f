/**
 * Model-based tests of the SEP-1686 task lifecycle machine (§4.3, §4.4).
 *
 * The expected behaviour is written down independently of the machine, as a small reference model
 * (`expectedOutcome`) of the event → outcome table. `@xstate/graph` explores the machine with a
 * fixed list of concrete events (request ids `a` and `b`, so that two inputs can be pending), and
 * every reachable state × every event is checked against the reference model with xstate's pure
 * `transition`. Paths are replayed both purely and on live actors; persisted snapshots are
 * round-tripped through JSON; recorded histories in `test/fixtures/histories` are replayed.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { TestModel, getShortestPaths, getSimplePaths } from '@xstate/graph';
import { TASK_EVENT_TYPES, TERMINAL_STATUSES, taskEvents, taskMachine } from '../../../machines/index.js';
import type { TaskEvent, TaskInput, TaskStatus } from '../../../machines/index.js';

import {
  type TaskSnapshot,
  type TaskPath,
  ALL_STATUSES,
  SPEC_EDGES,
  SELF_LOOPS,
  ALLOWED_EDGES,
  type ModelState,
  sorted,
  isTerminal,
  expectedOutcome,
  INPUT,
  GRAPH_EVENTS,
  PAIR_EVENTS,
  statusOf,
  serializeState,
  project,
  projectSnapshot,
  step,
  eventsOf,
  initialSnapshot,
  replayPure,
  same,
  judge,
  checkPair,
} from './task.reference-model.js';
const traversal = { input: INPUT, events: GRAPH_EVENTS, serializeState, limit: 5_000 } as const;
let simplePaths: TaskPath[] = [];
let shortestPaths: TaskPath[] = [];
/** Every distinct reachable vertex, with one snapshot that represents it. */
const reachable = new Map<string, TaskSnapshot>();
/** Shortest event sequence reaching each abstract state (for the live-actor tests). */
const shortestEventsTo = new Map<string, TaskEvent[]>();
let terminalSnapshots: TaskSnapshot[] = [];

function explore(): void {
  simplePaths = getSimplePaths(taskMachine, traversal);
  shortestPaths = getShortestPaths(taskMachine, traversal);
  for (const path of [...shortestPaths, ...simplePaths]) {
    for (const { state } of path.steps) if (!reachable.has(serializeState(state))) reachable.set(serializeState(state), state);
    if (!reachable.has(serializeState(path.state))) reachable.set(serializeState(path.state), path.state);
  }
  for (const path of shortestPaths) {
    const key = projectSnapshot(path.state);
    const events = eventsOf(path);
    const known = shortestEventsTo.get(key);
    if (known === undefined || events.length < known.length) shortestEventsTo.set(key, events);
  }
  terminalSnapshots = [...reachable.values()].filter((s) => isTerminal(statusOf(s)));
}

/** Reference reachability: breadth-first over the reference model with the same events. */
function modelReachable(): Set<string> {
  const seen = new Map<string, ModelState>([[project('submitted', []), { status: 'submitted', pending: [] }]]);
  const queue: ModelState[] = [{ status: 'submitted', pending: [] }];
  for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
    for (const event of GRAPH_EVENTS) {
      const out = expectedOutcome(s, event);
      if (out.kind === 'refused') continue;
      const next: ModelState = { status: out.status, pending: out.pending ?? [] };
      const key = project(next.status, next.pending);
      if (!seen.has(key)) {
        seen.set(key, next);
        queue.push(next);
      }
    }
  }
  return new Set(seen.keys());
}

function edgesAlong(path: TaskPath): string[] {
  const edges: string[] = [];
  let prev = initialSnapshot();
  for (const event of eventsOf(path)) {
    const next = step(prev, event);
    edges.push(`${statusOf(prev)}->${statusOf(next)}`);
    prev = next;
  }
  return edges;
}

// ---------------------------------------------------------------------------------------------

describe('taskMachine', () => {
  beforeAll(explore);

  describe('model-based exploration (@xstate/graph)', () => {
    it('should reach every SEP-1686 status, and exactly the abstract states of the reference model', () => {
      const statuses = new Set([...reachable.values()].map(statusOf));
      expect([...statuses].sort()).toEqual([...ALL_STATUSES].sort());
      // Shortest paths alone already reach every status.
      expect(new Set(shortestPaths.map((p) => statusOf(p.state)))).toEqual(new Set(ALL_STATUSES));
      const projected = new Set([...reachable.values()].map(projectSnapshot));
      expect([...projected].sort()).toEqual([...modelReachable()].sort());
      // Two pending inputs at once are reachable.
      expect(projected.has(project('input_required', ['a', 'b']))).toBe(true);
    });

    it('should replay every simple path to the state the graph recorded, purely and on a live actor', () => {
      expect(simplePaths.length).toBeGreaterThan(shortestPaths.length);
      let steps = 0;
      for (const path of simplePaths) {
        const events = eventsOf(path);
        steps += events.length;
        // Pure replay, checking each step against the table.
        let prev = initialSnapshot();
        for (const event of events) {
          const next = step(prev, event);
          expect(checkPair(prev, event, next), `${path.steps.length} ${JSON.stringify(event)}`).not.toBeNull();
          prev = next;
        }
        expect(serializeState(prev)).toBe(serializeState(path.state));
        // Live actor (the system under test) driven by the same events.
        const actor = createActor(taskMachine, { input: INPUT }).start();
        for (const event of events) actor.send(event);
        const live = actor.getSnapshot();
        expect(live.value).toEqual(prev.value);
        expect(live.context).toEqual(prev.context);
        expect(live.status).toBe(prev.status);
        actor.stop();
      }
      expect(steps).toBeGreaterThan(0);
    });

    it('should observe along the simple paths exactly the spec edges plus the non-terminal self-loops', () => {
      const observed = new Set(simplePaths.flatMap(edgesAlong));
      expect([...observed].sort()).toEqual([...ALLOWED_EDGES].sort());
      const statusChanging = new Set([...observed].filter((e) => !SELF_LOOPS.has(e)));
      expect([...statusChanging].sort()).toEqual([...SPEC_EDGES].sort());
      // Shortest paths stay within the spec but are not enough to cover its edges.
      const viaShortest = new Set(shortestPaths.flatMap(edgesAlong));
      for (const edge of viaShortest) expect(ALLOWED_EDGES.has(edge), edge).toBe(true);
      expect(viaShortest.size).toBeLessThan(observed.size);
    });

    it('should cover every state-changing transition with a simple path or a cycle-closing step', () => {
      const all = new Set<string>();
      for (const [key, snapshot] of reachable) {
        for (const event of GRAPH_EVENTS) {
          if (serializeState(step(snapshot, event)) !== key) all.add(`${key}|${JSON.stringify(event)}`);
        }
      }
      const covered = new Set<string>();
      for (const path of simplePaths) {
        let prev = initialSnapshot();
        for (const event of eventsOf(path)) {
          covered.add(`${serializeState(prev)}|${JSON.stringify(event)}`);
          prev = step(prev, event);
        }
      }
      for (const transitionKey of covered) expect(all.has(transitionKey), transitionKey).toBe(true);
      // A simple path cannot contain an edge back to a vertex it already visited (e.g. answering `b`
      // in input_required[a,b] leads back to input_required[a]). Each such transition must close a
      // cycle on every simple path to its source, and is then covered by that path plus one step.
      const uncovered = [...all].filter((t) => !covered.has(t));
      for (const transitionKey of uncovered) {
        const [sourceKey = '', eventJson = ''] = transitionKey.split('|');
        const source = reachable.get(sourceKey);
        expect(source, transitionKey).toBeDefined();
        if (source === undefined) continue;
        const event = GRAPH_EVENTS.find((e) => JSON.stringify(e) === eventJson);
        expect(event, transitionKey).toBeDefined();
        if (event === undefined) continue;
        const targetKey = serializeState(step(source, event));
        const toSource = simplePaths.filter((p) => serializeState(p.state) === sourceKey);
        expect(toSource.length, transitionKey).toBeGreaterThan(0);
        for (const path of toSource) {
          const visited = new Set<string>([serializeState(initialSnapshot())]);
          let prev = initialSnapshot();
          for (const e of eventsOf(path)) {
            prev = step(prev, e);
            visited.add(serializeState(prev));
          }
          expect(visited.has(targetKey), transitionKey).toBe(true);
          // ... and the extended path is allowed by the table.
          checkPair(prev, event, step(prev, event));
        }
      }
      expect(covered.size + uncovered.length).toBe(all.size);
    });

    it('should match the table for every reachable state × every event', () => {
      const observed = new Set<string>();
      const violations: string[] = [];
      let pairs = 0;
      for (const snapshot of reachable.values()) {
        for (const event of PAIR_EVENTS) {
          const verdict = judge(snapshot, event, step(snapshot, event));
          if (verdict.edge !== null) observed.add(verdict.edge);
          violations.push(...verdict.violations);
          pairs += 1;
        }
      }
      expect(pairs).toBe(reachable.size * PAIR_EVENTS.length);
      expect.soft(violations).toEqual([]);
      expect.soft([...observed].sort()).toEqual([...ALLOWED_EDGES].sort());
      // The event list exercises every event type the machine declares, and nothing else.
      expect(new Set(PAIR_EVENTS.map((e) => e.type))).toEqual(new Set(TASK_EVENT_TYPES));
    });

    it('should refuse task.start outside submitted without any change', () => {
      for (const events of [[taskEvents.start(1)], [taskEvents.start(1), taskEvents.inputRequest('a', 2)]]) {
        const prev = replayPure(events);
        const next = step(prev, taskEvents.start(9_999));
        expect(next.value).toEqual(prev.value);
        expect(next.context).toEqual(prev.context);
      }
    });

    it('should keep input_required while several inputs are pending and leave it only for working', () => {
      const two = replayPure([taskEvents.inputRequest('a', 1), taskEvents.inputRequest('b', 2)]);
      expect(statusOf(two)).toBe('input_required');
      expect(two.context.pendingInputs).toEqual(['a', 'b']);
      expect(step(two, taskEvents.inputRequest('a', 3)).context).toEqual(two.context);
      const one = step(two, taskEvents.inputResponse('a', 4));
      expect(statusOf(one)).toBe('input_required');
      expect(one.context.pendingInputs).toEqual(['b']);
      expect(step(one, taskEvents.inputResponse('a', 5)).context).toEqual(one.context);
      const none = step(one, taskEvents.inputResponse('b', 6));
      expect(statusOf(none)).toBe('working');
      expect(none.context.pendingInputs).toEqual([]);
    });

    it('should drive a live actor along every path of a TestModel', async () => {
      // `createTestModel` rejects machines with invocations, so the TestModel is built directly.
      const model = new TestModel(taskMachine, { events: GRAPH_EVENTS, serializeState });
      const paths = model.getSimplePaths({ input: INPUT });
      expect(paths.length).toBeGreaterThan(0);
      const visited = new Set<TaskStatus>();
      let checkedStates = 0;
      for (const path of paths) {
        const actor = createActor(taskMachine, { input: INPUT }).start();
        const send = (s: { event: { type: string } }): void => actor.send(s.event as TaskEvent);
        await path.test({
          events: Object.fromEntries(TASK_EVENT_TYPES.map((type) => [type, send])),
          states: {
            // The graph keeps one representative snapshot per vertex, so compare vertices, not `at`s.
            '*': (state) => {
              expect(serializeState(actor.getSnapshot())).toBe(serializeState(state));
              visited.add(statusOf(actor.getSnapshot()));
              checkedStates += 1;
            },
          },
        });
        actor.stop();
      }
      expect(checkedStates).toBeGreaterThanOrEqual(paths.length);
      expect(visited).toEqual(new Set(ALL_STATUSES));
    });
  });

  describe('terminal states', () => {
    it('should reach all four terminal states', () => {
      expect(new Set(terminalSnapshots.map(statusOf))).toEqual(new Set(TERMINAL_STATUSES));
    });

    it('should never change a terminal state, for every event and every pair of events', () => {
      const violations = new Set<string>();
      const unchanged = (terminal: TaskSnapshot, after: TaskSnapshot, events: readonly TaskEvent[]): void => {
        if (after.status !== 'done' || !same(after.value, terminal.value) || !same(after.context, terminal.context)) {
          violations.add(
            `${statusOf(terminal)} × ${events.map((e) => e.type).join(', ')} → ${after.status} ${JSON.stringify(after.value)}` +
              ` resultRef=${String(after.context.resultRef)} error=${String(after.context.error)}`,
          );
        }
      };
      let checked = 0;
      for (const terminal of terminalSnapshots) {
        expect(terminal.status).toBe('done');
        for (const first of PAIR_EVENTS) {
          const once = step(terminal, first);
          unchanged(terminal, once, [first]);
          for (const second of PAIR_EVENTS) {
            unchanged(terminal, step(once, second), [first, second]);
            checked += 1;
          }
        }
      }
      expect(checked).toBe(terminalSnapshots.length * PAIR_EVENTS.length ** 2);
      expect.soft([...violations].filter((v) => !v.includes(', ')), 'single events').toEqual([]);
      expect(violations.size).toBe(0);
    });

    it('should ignore every event on a live terminal actor', () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        for (const last of [
          taskEvents.complete('r', 5),
          taskEvents.fail('e', 5),
          taskEvents.cancel('c', 5),
          taskEvents.lose('l', 5),
        ]) {
          const actor = createActor(taskMachine, { input: INPUT }).start();
          actor.send(taskEvents.inputRequest('a', 4));
          actor.send(last);
          const done = actor.getSnapshot();
          expect(done.status).toBe('done');
          for (const event of PAIR_EVENTS) actor.send(event);
          expect(actor.getSnapshot().value).toEqual(done.value);
          expect(actor.getSnapshot().context).toEqual(done.context);
        }
      } finally {
        warn.mockRestore();
      }
    });
  });

  describe('persisted snapshots', () => {
    /** Drive a live actor along `events`, persist, JSON round-trip, restore and start. */
    function roundTrip(events: readonly TaskEvent[]) {
      const original = createActor(taskMachine, { input: INPUT }).start();
      for (const event of events) original.send(event);
      const persisted: unknown = JSON.parse(JSON.stringify(original.getPersistedSnapshot()));
      const restored = createActor(taskMachine, { snapshot: persisted as TaskSnapshot, input: INPUT }).start();
      return { original: original.getSnapshot(), persisted, restored, stopOriginal: () => original.stop() };
    }

    it('should restore every reachable abstract state and continue exactly like the original', () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      let checked = 0;
      try {
        expect([...shortestEventsTo.keys()].sort()).toEqual([...modelReachable()].sort());
        for (const [key, events] of shortestEventsTo) {
          for (const event of GRAPH_EVENTS) {
            const { original, restored, stopOriginal } = roundTrip(events);
            stopOriginal();
            expect(projectSnapshot(restored.getSnapshot()), key).toBe(key);
            expect(restored.getSnapshot().value).toEqual(original.value);
            expect(restored.getSnapshot().context).toEqual(original.context);
            expect(restored.getSnapshot().status).toBe(original.status);
            restored.send(event);
            const expected = step(original, event);
            checkPair(original, event, restored.getSnapshot());
            expect(restored.getSnapshot().value).toEqual(expected.value);
            expect(restored.getSnapshot().context).toEqual(expected.context);
            restored.stop();
            checked += 1;
          }
        }
      } finally {
        warn.mockRestore();
      }
      expect(checked).toBe(shortestEventsTo.size * GRAPH_EVENTS.length);
    });

    it('should answer both pending inputs after a restore and reach working', () => {
      const { restored } = roundTrip([taskEvents.start(1), taskEvents.inputRequest('a', 2), taskEvents.inputRequest('b', 3)]);
      expect(restored.getSnapshot().value).toBe('input_required');
      expect(sorted(restored.getSnapshot().context.pendingInputs)).toEqual(['a', 'b']);
      restored.send(taskEvents.inputResponse('b', 4));
      expect(restored.getSnapshot().value).toBe('input_required');
      expect(restored.getSnapshot().context.pendingInputs).toEqual(['a']);
      restored.send(taskEvents.inputResponse('a', 5));
      expect(restored.getSnapshot().value).toBe('working');
      expect(restored.getSnapshot().context.pendingInputs).toEqual([]);
      restored.send(taskEvents.complete('r-after-restore', 6));
      expect(restored.getSnapshot().value).toBe('completed');
      expect(restored.getSnapshot().context.resultRef).toBe('r-after-restore');
      expect(restored.getSnapshot().status).toBe('done');
    });

    it('should keep a restored terminal task terminal', () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        for (const last of [taskEvents.complete('r', 5), taskEvents.fail('e', 5), taskEvents.cancel('c', 5), taskEvents.lose('l', 5)]) {
          const { original, persisted, restored } = roundTrip([taskEvents.start(1), taskEvents.inputRequest('a', 2), last]);
          expect(persisted).toMatchObject({ status: 'done', value: original.value });
          expect(restored.getSnapshot().status).toBe('done');
          for (const event of PAIR_EVENTS) restored.send(event);
          expect(restored.getSnapshot().value).toEqual(original.value);
          expect(restored.getSnapshot().context).toEqual(original.context);
        }
      } finally {
        warn.mockRestore();
      }
    });
  });

  describe('recorded histories (test/fixtures/histories)', () => {
    interface History {
      readonly description: string;
      readonly input: TaskInput;
      readonly events: readonly TaskEvent[];
      readonly statuses: readonly TaskStatus[];
      readonly expected: {
        readonly status: TaskStatus;
        readonly pendingInputs: readonly string[];
        readonly statusMessage: string | null;
        readonly resultRef: string | null;
        readonly error: string | null;
        readonly updatedAt: number;
      };
    }
    const dir = new URL('../../fixtures/histories/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
    const load = (file: string): History => {
      const parsed = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as History;
      for (const event of parsed.events) {
        if (!(TASK_EVENT_TYPES as readonly string[]).includes(event.type)) throw new Error(`${file}: unknown event ${event.type}`);
      }
      if (parsed.statuses.length !== parsed.events.length) throw new Error(`${file}: one status per event expected`);
      return parsed;
    };

    it('should find the three recorded histories', () => {
      expect(files).toEqual(['cancel-during-input.json', 'happy-path.json', 'input-round-trip.json']);
    });

    it.each(files)('should replay %s to its recorded outcome', (file) => {
      const history = load(file);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const actor = createActor(taskMachine, { input: history.input }).start();
        let pure = initialSnapshot(history.input);
        history.events.forEach((event, i) => {
          const next = step(pure, event);
          checkPair(pure, event, next);
          pure = next;
          actor.send(event);
          expect(statusOf(pure), `${file} after event ${i}`).toBe(history.statuses[i]);
          expect(actor.getSnapshot().value).toEqual(pure.value);
          expect(actor.getSnapshot().context).toEqual(pure.context);
        });
        const { expected } = history;
        expect(statusOf(pure)).toBe(expected.status);
        expect(pure.status).toBe(isTerminal(expected.status) ? 'done' : 'active');
        expect(pure.context).toMatchObject({
          ...history.input,
          pendingInputs: expected.pendingInputs,
          statusMessage: expected.statusMessage,
          resultRef: expected.resultRef,
          error: expected.error,
          updatedAt: expected.updatedAt,
        });
      } finally {
        warn.mockRestore();
      }
    });
  });

  describe('invoked actors', () => {
    /** The ids of an actor's children: none at all is what a machine that invokes nothing has. */
    const childIds = (snapshot: TaskSnapshot): string[] => Object.keys(snapshot.children);

    it('should invoke nothing: no invoke on any state node, and no child actor in any state reached by events', () => {
      expect(taskMachine.root.invoke).toEqual([]);
      for (const node of Object.values(taskMachine.root.states)) expect(node.invoke, node.key).toEqual([]);
      const live = new Set<TaskStatus>();
      let checked = 0;
      for (const [key, events] of shortestEventsTo) {
        const actor = createActor(taskMachine, { input: INPUT }).start();
        expect(actor.getSnapshot().children).toEqual({});
        for (const event of events) {
          actor.send(event);
          expect(childIds(actor.getSnapshot()), `${key} after ${JSON.stringify(event)}`).toEqual([]);
          checked += 1;
        }
        const status = statusOf(actor.getSnapshot());
        expect(projectSnapshot(actor.getSnapshot())).toBe(key);
        if (!isTerminal(status)) {
          live.add(status);
          expect(actor.getSnapshot().children, key).toEqual({});
        }
        actor.stop();
      }
      expect(checked).toBeGreaterThan(0);
      expect(live).toEqual(new Set(['submitted', 'working', 'input_required']));
    });

    it('should start no child actor for a task restored in a live state (as a task core resumes it)', () => {
      let checked = 0;
      for (const snapshot of reachable.values()) {
        const status = statusOf(snapshot);
        if (isTerminal(status)) continue;
        const restored = createActor(taskMachine, {
          snapshot: taskMachine.resolveState({ value: status, context: snapshot.context }),
          input: snapshot.context,
        }).start();
        expect(restored.getSnapshot().value).toBe(status);
        expect(restored.getSnapshot().children).toEqual({});
        restored.send(taskEvents.message('still here', 9_000));
        expect(childIds(restored.getSnapshot())).toEqual([]);
        restored.stop();
        checked += 1;
      }
      expect(checked).toBeGreaterThanOrEqual(3);
    });
  });
});
