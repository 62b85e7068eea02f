/**
 * The requester machine's expected behaviour, written down independently of it: an abstract state
 * (where the requester is, plus the few facts that steer it) and a table of what each event does
 * there, `null` meaning the event is refused (the snapshot must not change at all).
 */
import type { AnyMachineSnapshot, EventFromLogic } from 'xstate';
import { requesterEvents, type requesterMachine } from '../../../machines/index.js';
import type { RequesterDialect, RequesterTask } from '../../../machines/index.js';

export type At =
  | 'requesting'
  | 'polling.fetching'
  | 'polling.waiting'
  | 'polling.answering'
  | 'fetchingResult'
  | 'cancelling.sendingCancel'
  | 'cancelling.confirming.fetching'
  | 'cancelling.confirming.waiting'
  | 'done'
  | 'ended';

export interface ModelState {
  readonly at: At;
  readonly cancelRequested: boolean;
  readonly cancelPolls: number;
  readonly status: string | null;
  readonly outcome: string | null;
  readonly source: string | null;
  readonly errorCode: string | null;
  /** 2026-07-28: the input request of `task('input_required')` was answered. */
  readonly answered: boolean;
}

export const MAX_CANCEL_POLLS = 2;

export const task = (status: RequesterTask['status']): RequesterTask => ({
  taskId: 't1',
  status,
  statusMessage: `now ${status}`,
  pollFrequency: 50,
  retention: 60_000,
  error: status === 'failed' ? 'it broke' : null,
  // Listed by a 2026-07-28 receiver; the other dialects never read it.
  ...(status === 'input_required' && { inputRequests: { k1: { method: 'elicitation/create', params: { message: 'Your name?' } } } }),
});

/** The events the graph explores with, by name. Done/error events stand for the effect actors. */
export const EVENTS = {
  createdBare: requesterEvents.created(null),
  createdTask: requesterEvents.created(task('working')),
  response: requesterEvents.response({ content: [{ type: 'text', text: 'direct' }] }),
  requestFailed: requesterEvents.requestFailed('boom', -32603),
  cancel: requesterEvents.cancel('user'),
  taskWorking: { type: 'xstate.done.actor.getTask', output: task('working') },
  taskInputRequired: { type: 'xstate.done.actor.getTask', output: task('input_required') },
  taskCompleted: { type: 'xstate.done.actor.getTask', output: task('completed') },
  taskFailed: { type: 'xstate.done.actor.getTask', output: task('failed') },
  taskCancelled: { type: 'xstate.done.actor.getTask', output: task('cancelled') },
  taskUnknown: { type: 'xstate.done.actor.getTask', output: task('unknown') },
  getTaskError: { type: 'xstate.error.actor.getTask', error: { message: 'Task not found', code: -32602 } },
  waited: { type: 'xstate.done.actor.wait', output: undefined },
  result: { type: 'xstate.done.actor.getResult', output: { content: [{ type: 'text', text: 'fetched' }] } },
  resultError: { type: 'xstate.error.actor.getResult', error: { message: 'gone', code: -32602 } },
  cancelAck: { type: 'xstate.done.actor.cancelTask', output: task('cancelled') },
  cancelAckWorking: { type: 'xstate.done.actor.cancelTask', output: task('working') },
  cancelError: { type: 'xstate.error.actor.cancelTask', error: { message: 'already terminal', code: -32602 } },
  inputAnswered: { type: 'xstate.done.actor.answerInput', output: ['k1'] },
  inputError: { type: 'xstate.error.actor.answerInput', error: { message: 'no onInputRequest' } },
} as const;
export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
// The graph works on the machine's own event type; done/error events are outside it by design.
export type GraphEvent = EventFromLogic<typeof requesterMachine>;
export const GRAPH_EVENTS = Object.values(EVENTS) as unknown as GraphEvent[];

const ACTOR_EVENT = /^xstate\.(?:done|error)\.actor\.(.+)$/;
/** The effect actor an event stands for (`getTask`, `wait`, …), or `null` for a wire event. */
export function actorOf(name: EventName): string | null {
  return ACTOR_EVENT.exec(EVENTS[name].type)?.[1] ?? null;
}

/**
 * The events that can happen in a snapshot: every wire event, but an effect actor's done/error
 * event only while that actor runs (XState escalates an error event of an actor that does not
 * exist, which no real actor can send).
 */
export function possibleEvents(snapshot: AnyMachineSnapshot): EventName[] {
  return EVENT_NAMES.filter((name) => {
    const actor = actorOf(name);
    return actor === null || actor in snapshot.children;
  });
}

const ENDED = new Set(['failed', 'cancelled', 'unknown']);

export function initialModel(resume: boolean): ModelState {
  return { at: resume ? 'polling.fetching' : 'requesting', cancelRequested: false, cancelPolls: 0, status: null, outcome: null, source: null, errorCode: null, answered: false };
}

/** What `name` does in `m`, or `null` when it must be refused. */
export function expected(dialect: RequesterDialect, m: ModelState, name: EventName): ModelState | null {
  const sep = dialect === 'sep-1686';
  const ext = dialect === '2026-07-28';
  const e = EVENTS[name];
  const go = (at: At, patch: Partial<ModelState> = {}): ModelState => ({ ...m, at, ...patch });
  const polled = 'output' in e && e.type === 'xstate.done.actor.getTask' ? e.output.status : null;
  if (m.at === 'done' || m.at === 'ended') return null;
  // The SEP-1686 direct response wins wherever the requester still waits for something.
  if (name === 'response' && (sep || m.at === 'requesting')) return go('done', { outcome: 'completed', source: 'response' });

  switch (m.at) {
    case 'requesting':
      if (name === 'createdBare' && !sep) return null; // 2025-11-25 learns the id only from the task
      if (name === 'createdBare' || name === 'createdTask') {
        const status = name === 'createdTask' ? 'working' : m.status;
        return m.cancelRequested ? go('cancelling.sendingCancel', { status }) : go('polling.fetching', { status });
      }
      if (name === 'requestFailed') return m.cancelRequested ? go('ended', { outcome: 'cancelled' }) : go('ended', { outcome: 'error', errorCode: 'request_failed' });
      if (name === 'cancel') {
        if (sep) return go('ended', { outcome: 'cancelled', cancelRequested: true });
        return m.cancelRequested ? null : go('requesting', { cancelRequested: true });
      }
      return null;
    case 'polling.fetching':
    case 'polling.waiting':
    case 'polling.answering':
      if (name === 'cancel') return go(sep ? 'cancelling.confirming.fetching' : 'cancelling.sendingCancel', { cancelRequested: true });
      if (m.at === 'polling.waiting') return name === 'waited' ? go('polling.fetching') : null;
      if (m.at === 'polling.answering') {
        if (name === 'inputAnswered') return go('polling.fetching', { answered: true });
        return name === 'inputError' ? go('ended', { outcome: 'error', errorCode: 'input_failed' }) : null;
      }
      if (name === 'getTaskError') return go('ended', { outcome: 'error', errorCode: 'poll_failed' });
      if (polled === null) return null;
      if (polled === 'completed' || (polled === 'input_required' && dialect === '2025-11-25')) return go('fetchingResult', { status: polled });
      // 2026-07-28 answers a listed input request once, then polls on.
      if (polled === 'input_required' && ext && !m.answered) return go('polling.answering', { status: polled });
      if (ENDED.has(polled)) return go('ended', { status: polled, outcome: polled });
      return go('polling.waiting', { status: polled });
    case 'fetchingResult':
      if (name === 'result') return go('done', { outcome: 'completed', source: ext ? 'tasks/get' : 'tasks/result' });
      if (name === 'resultError') return go('ended', { outcome: 'error', errorCode: 'result_failed' });
      if (name === 'cancel' && dialect === '2025-11-25' && m.status === 'input_required') return go('cancelling.sendingCancel', { cancelRequested: true });
      return null;
    case 'cancelling.sendingCancel':
      if (name === 'cancelAck') return go('ended', { status: 'cancelled', outcome: 'cancelled' });
      if (name === 'cancelAckWorking') return go('cancelling.confirming.fetching', { status: 'working' });
      if (name === 'cancelError') return go('cancelling.confirming.fetching');
      return null;
    case 'cancelling.confirming.fetching':
      if (name === 'getTaskError') return go('ended', { outcome: 'error', errorCode: 'poll_failed' });
      if (polled === null) return null;
      if (polled === 'completed') return go('fetchingResult', { status: polled });
      if (ENDED.has(polled)) return go('ended', { status: polled, outcome: polled });
      if (m.cancelPolls + 1 >= MAX_CANCEL_POLLS) return go('ended', { status: polled, outcome: 'error', errorCode: 'cancel_unconfirmed' });
      return go('cancelling.confirming.waiting', { status: polled, cancelPolls: m.cancelPolls + 1 });
    case 'cancelling.confirming.waiting':
      return name === 'waited' ? go('cancelling.confirming.fetching') : null;
  }
}

const pathOf = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${k}.${pathOf(v)}`)
        .join('|');

/** The abstract state of a real snapshot. */
export function project(snapshot: AnyMachineSnapshot): ModelState {
  const c = snapshot.context as {
    cancelRequested: boolean;
    cancelPolls: number;
    task: RequesterTask | null;
    outcome: string | null;
    resultSource: string | null;
    error: { code: string } | null;
    answeredInputs: readonly string[];
  };
  return {
    at: (snapshot.status === 'active' || snapshot.status === 'done' ? pathOf(snapshot.value) : `!${snapshot.status}`) as At,
    cancelRequested: c.cancelRequested,
    cancelPolls: c.cancelPolls,
    status: c.task?.status ?? null,
    outcome: c.outcome,
    source: c.resultSource,
    errorCode: c.error?.code ?? null,
    answered: c.answeredInputs.length > 0,
  };
}

export const key = (m: ModelState): string => JSON.stringify(m);

/** Which effect actor each state invokes, per the design (independent of the machine's config). */
export function runs(at: At, actor: string): boolean {
  const invoked: Partial<Record<At, string>> = {
    'polling.fetching': 'getTask',
    'polling.waiting': 'wait',
    'polling.answering': 'answerInput',
    fetchingResult: 'getResult',
    'cancelling.sendingCancel': 'cancelTask',
    'cancelling.confirming.fetching': 'getTask',
    'cancelling.confirming.waiting': 'wait',
  };
  return invoked[at] === actor;
}

/** Every abstract state the reference model reaches with `EVENTS`, breadth-first. */
export function modelReachable(dialect: RequesterDialect, resume: boolean): Map<string, ModelState> {
  const start = initialModel(resume);
  const seen = new Map([[key(start), start]]);
  const queue = [start];
  for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
    for (const name of EVENT_NAMES) {
      if (actorOf(name) !== null && !runs(m.at, actorOf(name) ?? '')) continue;
      const next = expected(dialect, m, name);
      if (next !== null && !seen.has(key(next))) {
        seen.set(key(next), next);
        queue.push(next);
      }
    }
  }
  return seen;
}
