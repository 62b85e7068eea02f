/**
 * The requester's side of one task-augmented request, for every wire dialect. Pure: sending the
 * request, polling, waiting and fetching results are named placeholders that an adapter replaces
 * with `machine.provide({ actions, actors })`; what arrives on the wire comes back as events.
 *
 * @module
 */
import { and, assign, fromPromise, not, setup } from 'xstate';
import type { RequesterEvent } from './requester.events.js';
import {
  RequesterErrorCode,
  type RequesterAnswerInput,
  type RequesterContext,
  type RequesterError,
  type RequesterInput,
  type RequesterOutput,
  type RequesterTask,
  type RequesterTaskRef,
  type RequesterWaitInput,
} from './requester.types.js';

/** Default ms between polls until the receiver suggests its own. */
export const DEFAULT_REQUESTER_POLL_FREQUENCY = 1000;
/** Default number of polls after a cancel before giving up on seeing `cancelled`. */
export const DEFAULT_MAX_CANCEL_POLLS = 10;

// Placeholders never settle: a machine that nobody provided effects for just waits, which is what
// model-based tests want (they feed the done events themselves).
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

const ended = (status: string): boolean => status === 'failed' || status === 'cancelled' || status === 'unknown';

// Errors become data (message + JSON-RPC code) so that snapshots stay JSON.
function toRequesterError(code: RequesterErrorCode, error: unknown): RequesterError {
  const fields = typeof error === 'object' && error !== null ? (error as { message?: unknown; code?: unknown }) : {};
  const message = typeof fields.message === 'string' ? fields.message : String(error);
  return { code, message, rpcCode: typeof fields.code === 'number' ? fields.code : null };
}

// A receiver may suggest 0 or garbage; only a positive finite suggestion replaces the current one.
function nextPollFrequency(context: RequesterContext, task: RequesterTask | null): number {
  const suggested = task?.pollFrequency;
  return typeof suggested === 'number' && Number.isFinite(suggested) && suggested > 0 ? suggested : context.pollFrequency;
}

const taskRef = ({ context }: { context: RequesterContext }): RequesterTaskRef => ({
  taskId: context.taskId ?? '',
  dialect: context.dialect,
});

const EXTENSION = '2026-07-28';

// The input requests of a 2026-07-28 task not answered yet: the server lists every outstanding
// request on each poll, and a key is answered once.
function unanswered(context: RequesterContext, task: RequesterTask | null): Record<string, NonNullable<RequesterTask['inputRequests']>[string]> {
  if (context.dialect !== EXTENSION || task?.status !== 'input_required' || task.inputRequests === undefined) return {};
  return Object.fromEntries(Object.entries(task.inputRequests).filter(([key]) => !context.answeredInputs.includes(key)));
}

/**
 * The requester machine.
 *
 * SEP-1686: the `requesting` state races the direct response against
 * `notifications/tasks/created`. A response first ends `done` with it, which is also the fallback
 * for receivers that ignore task metadata (they never send the notification); `created` first
 * moves to polling, where the direct response may still arrive and wins. Cancel runs the
 * `sendCancelNotification` action (`notifications/cancelled` for the original request id) and keeps
 * polling until the task shows `cancelled` or `maxCancelPolls` is spent (§4.8.6).
 *
 * 2025-11-25: `created` carries the `CreateTaskResult` task; polling ends in `tasks/result` on
 * `completed`, or at once on `input_required` (the receiver delivers its input requests over that
 * blocking call). Cancel invokes `cancelTask` (`tasks/cancel`).
 *
 * 2026-07-28 (the tasks extension): `created` carries the task, as in 2025-11-25; a `tasks/get`
 * inlines the outcome, so `getResult` reads what the last poll brought (`resultSource`
 * `tasks/get`). An `input_required` task lists its input requests: the ones not answered yet
 * are answered in `polling.answering` (actor `answerInput`, which sends `tasks/update`), each key
 * once, and polling goes on.
 *
 * Before it decides, a 2026-07-28 server may ask for input (SEP-2322): `sendRequest` answers and
 * sends the call again. A cancel then runs `stopAsking` (no more answers or rounds) and, as in
 * 2025-11-25, waits for the request: a task it still made is cancelled; a request that ends in an
 * error after the cancel ends `cancelled`.
 *
 * Effects: action `sendRequest` (entry of `requesting`; answers come back as events),
 * actions `sendCancelNotification` and `stopAsking`, actors `getTask`, `getResult`, `cancelTask`, `answerInput` and `wait` (the
 * pause between polls is an invoked actor rather than an `after` delay, because XState neither
 * persists nor re-arms delays and `createTestModel` refuses them).
 *
 * @example
 * ```ts
 * import { createActor, fromPromise } from 'xstate';
 * import { requesterMachine, requesterEvents } from 'mcp-task-actors/machines';
 *
 * const machine = requesterMachine.provide({
 *   actions: { sendRequest: () => void send(), sendCancelNotification: () => abort() },
 *   actors: { getTask: fromPromise(({ input }) => getTask(input.taskId)), wait: fromPromise(({ input }) => sleep(input.ms)) },
 * });
 * const actor = createActor(machine, { input: { dialect: 'sep-1686', taskId: crypto.randomUUID() } }).start();
 * actor.send(requesterEvents.created(null));
 * ```
 */
export const requesterMachine = setup({
  types: {
    context: {} as RequesterContext,
    events: {} as RequesterEvent,
    input: {} as RequesterInput,
    output: {} as RequesterOutput,
  },
  actors: {
    getTask: fromPromise<RequesterTask, RequesterTaskRef>(never),
    getResult: fromPromise<Record<string, unknown>, RequesterTaskRef>(never),
    cancelTask: fromPromise<RequesterTask, RequesterTaskRef>(never),
    answerInput: fromPromise<readonly string[], RequesterAnswerInput>(never),
    wait: fromPromise<void, RequesterWaitInput>(never),
  },
  guards: {
    isSep: ({ context }) => context.dialect === 'sep-1686',
    isResuming: ({ context }) => context.resume,
    cancelRequested: ({ context }) => context.cancelRequested,
    // 2025-11-25 knows its task id only from CreateTaskResult, so `created` must carry the task.
    createdIsValid: ({ context, event }) =>
      event.type === 'requester.created' && (context.dialect === 'sep-1686' || event.task !== null),
    // Only the blocking 2025-11-25 `tasks/result` of an input_required task is worth cancelling.
    awaitsInput: ({ context }) => context.dialect === '2025-11-25' && context.task?.status === 'input_required',
  },
  actions: {
    sendRequest: () => undefined,
    sendCancelNotification: () => undefined,
    stopAsking: () => undefined,
    recordCreated: assign(({ context, event }) => {
      if (event.type !== 'requester.created') return {};
      return {
        taskId: event.task?.taskId ?? context.taskId,
        task: event.task ?? context.task,
        pollFrequency: nextPollFrequency(context, event.task),
      };
    }),
    recordResponse: assign(({ event, context }) => ({
      result: event.type === 'requester.response' ? event.result : context.result,
      resultSource: 'response' as const,
      outcome: 'completed' as const,
    })),
    recordRequestError: assign(({ event }) => ({
      outcome: 'error' as const,
      error:
        event.type === 'requester.request.failed'
          ? { code: event.code ?? RequesterErrorCode.requestFailed, message: event.message, rpcCode: event.rpcCode }
          : null,
    })),
    recordTask: assign(({ context }, task: RequesterTask) => ({ task, pollFrequency: nextPollFrequency(context, task) })),
    // Only called for failed / cancelled / unknown, which are outcomes of the same name.
    recordTaskEnd: assign((_, task: RequesterTask) => ({ outcome: task.status as RequesterOutput['outcome'] })),
    markCancelRequested: assign({ cancelRequested: true }),
    // SEP-1686 before `created`: nothing proves a task exists, so this is plain MCP request
    // cancellation, which has no confirmation to wait for.
    recordCancelBeforeCreated: assign({ cancelRequested: true, outcome: 'cancelled' as const }),
    countCancelPoll: assign({ cancelPolls: ({ context }) => context.cancelPolls + 1 }),
    recordAnswered: assign(({ context }, keys: readonly string[]) => ({ answeredInputs: [...context.answeredInputs, ...keys] })),
  },
}).createMachine({
  id: 'requester',
  context: ({ input }) => ({
    dialect: input.dialect,
    taskId: input.taskId ?? null,
    resume: input.resume ?? false,
    defaultPollFrequency: input.pollFrequency ?? DEFAULT_REQUESTER_POLL_FREQUENCY,
    pollFrequency: input.pollFrequency ?? DEFAULT_REQUESTER_POLL_FREQUENCY,
    maxCancelPolls: input.maxCancelPolls ?? DEFAULT_MAX_CANCEL_POLLS,
    cancelPolls: 0,
    cancelRequested: false,
    task: null,
    answeredInputs: [],
    result: null,
    resultSource: null,
    outcome: null,
    error: null,
  }),
  initial: 'starting',
  output: ({ context }) => ({
    outcome: context.outcome ?? 'error',
    result: context.result,
    resultSource: context.resultSource,
    task: context.task,
    error: context.error,
  }),
  states: {
    starting: {
      always: [{ guard: 'isResuming', target: 'polling' }, { target: 'requesting' }],
    },
    requesting: {
      entry: 'sendRequest',
      on: {
        'requester.created': [
          { guard: and(['createdIsValid', 'cancelRequested']), target: 'cancelling', actions: 'recordCreated' },
          { guard: 'createdIsValid', target: 'polling', actions: 'recordCreated' },
        ],
        'requester.response': { target: 'done', actions: 'recordResponse' },
        'requester.request.failed': [
          // Cancelled before any task existed, and none came of it: what was asked for happened.
          { guard: 'cancelRequested', target: 'ended', actions: 'recordCancelBeforeCreated' },
          { target: 'ended', actions: 'recordRequestError' },
        ],
        'requester.cancel': [
          { guard: 'isSep', target: 'ended', actions: ['sendCancelNotification', 'recordCancelBeforeCreated'] },
          // The request may still make a task (cancelled once known); 2026-07-28 stops answering what it asks first.
          { guard: not('cancelRequested'), actions: ['markCancelRequested', 'stopAsking'] },
        ],
      },
    },
    polling: {
      initial: 'fetching',
      on: {
        'requester.response': { guard: 'isSep', target: 'done', actions: 'recordResponse' },
        'requester.cancel': [
          { guard: 'isSep', target: 'cancelling.confirming', actions: ['sendCancelNotification', 'markCancelRequested'] },
          { target: 'cancelling.sendingCancel', actions: 'markCancelRequested' },
        ],
      },
      states: {
        fetching: {
          invoke: {
            id: 'getTask',
            src: 'getTask',
            input: taskRef,
            onDone: [
              {
                guard: ({ event }) => event.output.status === 'completed',
                target: '#requester.fetchingResult',
                actions: { type: 'recordTask', params: ({ event }) => event.output },
              },
              {
                guard: ({ context, event }) => context.dialect === '2025-11-25' && event.output.status === 'input_required',
                target: '#requester.fetchingResult',
                actions: { type: 'recordTask', params: ({ event }) => event.output },
              },
              {
                guard: ({ event }) => ended(event.output.status),
                target: '#requester.ended',
                actions: [{ type: 'recordTask', params: ({ event }) => event.output }, { type: 'recordTaskEnd', params: ({ event }) => event.output }],
              },
              {
                guard: ({ context, event }) => Object.keys(unanswered(context, event.output)).length > 0,
                target: 'answering',
                actions: { type: 'recordTask', params: ({ event }) => event.output },
              },
              { target: 'waiting', actions: { type: 'recordTask', params: ({ event }) => event.output } },
            ],
            onError: {
              target: '#requester.ended',
              actions: assign(({ event }) => ({ outcome: 'error' as const, error: toRequesterError('poll_failed', event.error) })),
            },
          },
        },
        // 2026-07-28: answers what the task asks (`tasks/update`), then looks again at once.
        answering: {
          invoke: {
            id: 'answerInput',
            src: 'answerInput',
            input: ({ context }) => ({ ...taskRef({ context }), inputRequests: unanswered(context, context.task) }),
            onDone: { target: 'fetching', actions: { type: 'recordAnswered', params: ({ event }) => event.output } },
            onError: {
              target: '#requester.ended',
              actions: assign(({ event }) => ({ outcome: 'error' as const, error: toRequesterError('input_failed', event.error) })),
            },
          },
        },
        waiting: {
          invoke: { id: 'wait', src: 'wait', input: ({ context }) => ({ ms: context.pollFrequency }), onDone: 'fetching' },
        },
      },
    },
    fetchingResult: {
      invoke: {
        id: 'getResult',
        src: 'getResult',
        input: taskRef,
        onDone: {
          target: 'done',
          actions: assign(({ context, event }) => ({
            result: event.output,
            resultSource: context.dialect === EXTENSION ? ('tasks/get' as const) : ('tasks/result' as const),
            outcome: 'completed' as const,
          })),
        },
        onError: {
          target: 'ended',
          actions: assign(({ event }) => ({ outcome: 'error' as const, error: toRequesterError('result_failed', event.error) })),
        },
      },
      on: {
        'requester.response': { guard: 'isSep', target: 'done', actions: 'recordResponse' },
        'requester.cancel': { guard: 'awaitsInput', target: 'cancelling.sendingCancel', actions: 'markCancelRequested' },
      },
    },
    cancelling: {
      initial: 'choosing',
      on: {
        'requester.response': { guard: 'isSep', target: 'done', actions: 'recordResponse' },
      },
      states: {
        // Entered straight from `requesting` when a 2025-11-25 cancel waited for the task id.
        choosing: {
          always: [{ guard: 'isSep', target: 'confirming' }, { target: 'sendingCancel' }],
        },
        sendingCancel: {
          invoke: {
            id: 'cancelTask',
            src: 'cancelTask',
            input: taskRef,
            onDone: [
              {
                guard: ({ event }) => ended(event.output.status),
                target: '#requester.ended',
                actions: [{ type: 'recordTask', params: ({ event }) => event.output }, { type: 'recordTaskEnd', params: ({ event }) => event.output }],
              },
              { target: 'confirming', actions: { type: 'recordTask', params: ({ event }) => event.output } },
            ],
            // Refused (e.g. already terminal, -32602): polling tells what the task became.
            onError: { target: 'confirming' },
          },
        },
        confirming: {
          initial: 'fetching',
          states: {
            fetching: {
              invoke: {
                id: 'getTask',
                src: 'getTask',
                input: taskRef,
                onDone: [
                  // The work finished before the cancel took effect: its result is there to take.
                  {
                    guard: ({ event }) => event.output.status === 'completed',
                    target: '#requester.fetchingResult',
                    actions: { type: 'recordTask', params: ({ event }) => event.output },
                  },
                  {
                    guard: ({ event }) => ended(event.output.status),
                    target: '#requester.ended',
                    actions: [{ type: 'recordTask', params: ({ event }) => event.output }, { type: 'recordTaskEnd', params: ({ event }) => event.output }],
                  },
                  {
                    guard: ({ context }) => context.cancelPolls + 1 >= context.maxCancelPolls,
                    target: '#requester.ended',
                    actions: [
                      { type: 'recordTask', params: ({ event }) => event.output },
                      assign(({ context }) => ({
                        outcome: 'error' as const,
                        error: {
                          code: RequesterErrorCode.cancelUnconfirmed,
                          message: `The task was not cancelled after ${context.maxCancelPolls} polls`,
                          rpcCode: null,
                        },
                      })),
                    ],
                  },
                  { target: 'waiting', actions: [{ type: 'recordTask', params: ({ event }) => event.output }, 'countCancelPoll'] },
                ],
                onError: {
                  target: '#requester.ended',
                  actions: assign(({ event }) => ({ outcome: 'error' as const, error: toRequesterError('poll_failed', event.error) })),
                },
              },
            },
            waiting: {
              invoke: { id: 'wait', src: 'wait', input: ({ context }) => ({ ms: context.pollFrequency }), onDone: 'fetching' },
            },
          },
        },
      },
    },
    done: { type: 'final' },
    ended: { type: 'final' },
  },
});

/** The requester machine's type, for `machine.provide` results and snapshots. */
export type RequesterMachine = typeof requesterMachine;
