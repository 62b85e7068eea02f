/**
 * Reference model of the task lifecycle written from SEP-1686 §4.3/§4.4 (not from the machine's
 * code), plus the pure helpers the model-based tests use to judge each transition.
 */
import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { createActor, initialTransition, transition } from 'xstate';
import type { StatePath } from '@xstate/graph';
import { TaskStatus, taskEvents, taskMachine } from '../../../machines/index.js';
import type { TaskEvent, TaskInput } from '../../../machines/index.js';

export type TaskSnapshot = SnapshotFrom<typeof taskMachine>;
export type TaskPath = StatePath<TaskSnapshot, TaskEvent>;

// ---------------------------------------------------------------------------------------------
// The reference model: the event → outcome table, written from the table, not derived from the machine.
// ---------------------------------------------------------------------------------------------

export const ALL_STATUSES: readonly TaskStatus[] = Object.values(TaskStatus);
export const NON_TERMINAL: readonly TaskStatus[] = ['submitted', 'working', 'input_required'];
export const TERMINAL: readonly TaskStatus[] = ['completed', 'failed', 'cancelled', 'unknown'];

/** SEP-1686 §4.3.2: every status-changing edge, and nothing else. */
export const SPEC_EDGES: ReadonlySet<string> = new Set([
  'submitted->working',
  'submitted->input_required',
  'submitted->completed',
  'submitted->failed',
  'submitted->cancelled',
  'submitted->unknown',
  'working->input_required',
  'working->completed',
  'working->failed',
  'working->cancelled',
  'working->unknown',
  'input_required->working',
  'input_required->completed',
  'input_required->failed',
  'input_required->cancelled',
  'input_required->unknown',
]);
/**
 * Allowed events that keep the status: `task.message`, `task.child`, `task.partial`, `task.progress` and `task.handler` in the three non-terminal states, plus a new
 * input request / a non-last input response in `input_required`. Terminal states have none.
 */
export const SELF_LOOPS: ReadonlySet<string> = new Set(NON_TERMINAL.map((s) => `${s}->${s}`));
export const ALLOWED_EDGES: ReadonlySet<string> = new Set([...SPEC_EDGES, ...SELF_LOOPS]);

export interface ModelState {
  readonly status: TaskStatus;
  readonly pending: readonly string[];
  /** The last progress value reported, if any (MCP: each report must increase it). */
  readonly progress?: number;
}

export type Expected =
  | { readonly kind: 'refused' }
  | {
      readonly kind: 'moved';
      readonly status: TaskStatus;
      /** Pending input ids as a set (sorted); `null` where the table says nothing about them. */
      readonly pending: readonly string[] | null;
    };

export const REFUSED: Expected = { kind: 'refused' };
export const sorted = (ids: readonly string[]): string[] => [...ids].sort();
export const isTerminal = (status: TaskStatus): boolean => TERMINAL.includes(status);

export function expectedOutcome(from: ModelState, event: TaskEvent): Expected {
  const { status, pending } = from;
  if (isTerminal(status)) return REFUSED;
  switch (event.type) {
    case 'task.start':
      return status === 'submitted' ? { kind: 'moved', status: 'working', pending: sorted(pending) } : REFUSED;
    case 'task.input.request':
      if (pending.includes(event.requestId)) return REFUSED;
      return { kind: 'moved', status: 'input_required', pending: sorted([...pending, event.requestId]) };
    case 'task.input.response': {
      if (status !== 'input_required' || !pending.includes(event.requestId)) return REFUSED;
      const rest = pending.filter((id) => id !== event.requestId);
      return { kind: 'moved', status: rest.length === 0 ? 'working' : 'input_required', pending: sorted(rest) };
    }
    case 'task.message':
      return { kind: 'moved', status, pending: sorted(pending) };
    case 'task.complete':
      return { kind: 'moved', status: 'completed', pending: null };
    case 'task.fail':
      return { kind: 'moved', status: 'failed', pending: null };
    case 'task.cancel':
      return { kind: 'moved', status: 'cancelled', pending: [] };
    case 'task.lose':
      return { kind: 'moved', status: 'unknown', pending: null };
    // A subtask's report and an intermediate result change what the task carries, never its status.
    case 'task.child':
    case 'task.partial':
      return { kind: 'moved', status, pending: sorted(pending) };
    // Progress only ever increases: a report that does not is refused.
    case 'task.progress':
      return from.progress !== undefined && event.progress <= from.progress ? REFUSED : { kind: 'moved', status, pending: sorted(pending) };
    // Where the handler machine is: taken as reported, whatever it said before (a resumed run may go back to a checkpoint).
    case 'task.handler':
      return { kind: 'moved', status, pending: sorted(pending) };
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures and helpers
// ---------------------------------------------------------------------------------------------

export const INPUT: TaskInput = {
  taskId: 'task-1',
  owner: { session: 'session-1', principal: 'alice' },
  dialect: 'sep-1686',
  method: 'tools/call',
  label: 'sleep',
  keepAlive: 60_000,
  pollFrequency: 1000,
  createdAt: 1_000,
};

/** A live actor of the machine for {@link INPUT}, started (`working`). */
export const startedActor = () => {
  const actor = createActor(taskMachine, { input: INPUT }).start();
  actor.send(taskEvents.start(2_000));
  return actor;
};

/** The events the graph is explored with. Every `at` differs from any timestamp in the context. */
export const GRAPH_EVENTS: readonly TaskEvent[] = [
  taskEvents.start(2_001),
  taskEvents.inputRequest('a', 2_002),
  taskEvents.inputRequest('b', 2_003),
  taskEvents.inputResponse('a', 2_004),
  taskEvents.inputResponse('b', 2_005),
  taskEvents.message('progress', 2_006),
  taskEvents.complete('result-1', 2_007),
  taskEvents.fail('boom', 2_008),
  taskEvents.cancel('user asked', 2_009),
  taskEvents.lose('worker died', 2_010),
];

/** Every event checked against every reachable state: graph events plus refusal probes. */
export const PAIR_EVENTS: readonly TaskEvent[] = [
  ...GRAPH_EVENTS,
  taskEvents.inputResponse('never-requested', 2_011),
  taskEvents.cancel(null, 2_012),
  taskEvents.message('another message', 2_013),
  taskEvents.child('child-1', 'working', 2_014),
  taskEvents.partial([{ type: 'text', text: 'so far' }], 2_015),
  taskEvents.progress({ progress: 3, total: 10, message: 'step 3/10' }, 2_016),
  taskEvents.progress({ progress: 3 }, 2_017),
  taskEvents.handler({ machine: 'job', graph: 'g1', states: ['job.working'], status: 'active', step: 2, checkpoint: true }, 2_018),
];

export const statusOf = (snapshot: TaskSnapshot): TaskStatus => {
  const value: unknown = snapshot.value;
  if (typeof value !== 'string' || !ALL_STATUSES.includes(value as TaskStatus)) {
    throw new Error(`unexpected state value ${JSON.stringify(value)}`);
  }
  return value as TaskStatus;
};

/** Graph vertex identity: the status, the pending ids (in order) and the status message. */
export const serializeState = (snapshot: TaskSnapshot): string =>
  JSON.stringify({
    value: snapshot.value,
    pendingInputs: snapshot.context.pendingInputs,
    statusMessage: snapshot.context.statusMessage,
  });

/** The abstract state the table talks about; pending inputs are irrelevant once terminal. */
export const project = (status: TaskStatus, pending: readonly string[]): string =>
  isTerminal(status) ? status : `${status}${JSON.stringify(sorted(pending))}`;
export const projectSnapshot = (s: TaskSnapshot): string => project(statusOf(s), s.context.pendingInputs);
export const modelOf = (s: TaskSnapshot): ModelState => ({
  status: statusOf(s),
  pending: s.context.pendingInputs,
  ...(s.context.progress !== undefined && { progress: s.context.progress.progress }),
});

/** Pure step: xstate's `transition`, which runs no actions' side effects and starts no actor. */
export const step = (snapshot: TaskSnapshot, event: TaskEvent): TaskSnapshot => transition(taskMachine, snapshot, event)[0];

export const eventsOf = (path: TaskPath): TaskEvent[] =>
  path.steps.map((s) => s.event).filter((e) => (e.type as string) !== 'xstate.init');

export const initialSnapshot = (input: TaskInput = INPUT): TaskSnapshot => initialTransition(taskMachine, input)[0];

export const replayPure = (events: readonly TaskEvent[], input: TaskInput = INPUT): TaskSnapshot =>
  events.reduce<TaskSnapshot>((s, e) => step(s, e), initialSnapshot(input));

export const INPUT_KEYS = Object.keys(INPUT) as (keyof TaskInput)[];

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Compares `next` with what the table says `event` does to `prev`. Returns the observed edge
 * (`from->to`, `null` when the event was refused) and every disagreement, as readable strings.
 */
export function judge(prev: TaskSnapshot, event: TaskEvent, next: TaskSnapshot): { edge: string | null; violations: string[] } {
  const from = statusOf(prev);
  const expected = expectedOutcome(modelOf(prev), event);
  const where = `${statusOf(prev)}${JSON.stringify(prev.context.pendingInputs)} × ${JSON.stringify(event)}`;
  const violations: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) violations.push(`${where}: ${what}`);
  };
  if (expected.kind === 'refused') {
    check(same(next.value, prev.value), `should be refused, but the value became ${JSON.stringify(next.value)}`);
    check(same(next.context, prev.context), `should be refused, but the context changed to ${JSON.stringify(next.context)}`);
    check(next.status === prev.status, `should be refused, but the snapshot status became ${next.status}`);
    return { edge: null, violations };
  }
  const to = statusOf(next);
  check(to === expected.status, `expected ${expected.status}, got ${to}`);
  check(next.status === (isTerminal(expected.status) ? 'done' : 'active'), `unexpected snapshot status ${next.status}`);
  if (expected.pending !== null) {
    check(same(sorted(next.context.pendingInputs), expected.pending), `pendingInputs ${JSON.stringify(next.context.pendingInputs)}`);
  }
  // The task's identity never changes.
  for (const key of INPUT_KEYS) check(same(next.context[key], prev.context[key]), `${key} changed`);
  switch (event.type) {
    case 'task.message':
      check(next.context.statusMessage === event.message, `statusMessage ${String(next.context.statusMessage)}`);
      break;
    case 'task.progress':
      check(next.context.progress?.progress === event.progress, `progress ${JSON.stringify(next.context.progress)}`);
      if (event.message !== undefined) check(next.context.statusMessage === event.message, `statusMessage ${String(next.context.statusMessage)}`);
      break;
    case 'task.handler':
      check(same(next.context.handler, event.position), `handler ${JSON.stringify(next.context.handler)}`);
      check(next.context.updatedAt === event.at, `updatedAt ${next.context.updatedAt}`);
      break;
    case 'task.complete':
      check(next.context.resultRef === event.resultRef, `resultRef ${String(next.context.resultRef)}`);
      break;
    case 'task.fail':
    case 'task.lose':
      check(next.context.error === event.error, `error ${String(next.context.error)}`);
      break;
    default:
      break;
  }
  return { edge: `${from}->${to}`, violations };
}

/** Asserts that `next` agrees with the table; returns the edge, or `null` if refused. */
export function checkPair(prev: TaskSnapshot, event: TaskEvent, next: TaskSnapshot): string | null {
  const { edge, violations } = judge(prev, event, next);
  expect(violations).toEqual([]);
  return edge;
}

// ---------------------------------------------------------------------------------------------
// Graph exploration, computed once (in `beforeAll`) and shared by the tests below.
// ---------------------------------------------------------------------------------------------

/**
 * `limit` bounds the adjacency traversal, so a broken machine with an unbounded state space (e.g.
 * one that accepts duplicate input ids) fails with "Traversal limit exceeded" instead of hanging.
 */