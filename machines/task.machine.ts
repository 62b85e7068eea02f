/**
 * The task lifecycle of SEP-1686 §4.3 as one XState v5 machine: exactly the edges of the spec's
 * state diagram, nothing more. Pure: the work runs beside the actor (in the runtime's task core),
 * which tells the machine how it ended with `task.complete` / `task.fail`, and stops the work when
 * the actor reaches a terminal state.
 *
 * @module
 */
import { assign, setup } from 'xstate';
import type { TaskEvent } from './task.events.js';
import type { TaskContext, TaskInput } from './task.types.js';

/**
 * The lifecycle machine. States are the SEP-1686 statuses; `completed`, `failed`, `cancelled` and
 * `unknown` are final, so a terminal task never changes. `input_required` is left only when no
 * input request is pending (§4.4). The machine invokes nothing: a task is one actor, whatever state
 * it is restored in (`taskMachine.resolveState`), and the work's outcome is an event like any
 * other, so a late outcome of a cancelled task is refused by the same rule as any late event.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { taskMachine, taskEvents } from 'mcp-task-actors/machines';
 *
 * const actor = createActor(taskMachine, {
 *   input: { taskId: 't1', owner: { session: null, principal: null }, dialect: 'sep-1686',
 *            method: 'tools/call', label: 'sleep', keepAlive: 60_000, pollFrequency: 1000, createdAt: Date.now() },
 * }).start();
 * actor.send(taskEvents.start());
 * actor.send(taskEvents.complete('r1')); // the work's outcome
 * ```
 */
export const taskMachine = setup({
  types: {
    context: {} as TaskContext,
    events: {} as TaskEvent,
    input: {} as TaskInput,
  },
  guards: {
    isNewInput: ({ context, event }) =>
      event.type === 'task.input.request' && !context.pendingInputs.includes(event.requestId),
    isLastPendingInput: ({ context, event }) =>
      event.type === 'task.input.response' &&
      context.pendingInputs.length === 1 &&
      context.pendingInputs[0] === event.requestId,
    isPendingInput: ({ context, event }) =>
      event.type === 'task.input.response' && context.pendingInputs.includes(event.requestId),
  },
  actions: {
    touch: assign({ updatedAt: ({ event }) => ('at' in event ? event.at : Date.now()) }),
    recordMessage: assign({
      statusMessage: ({ event, context }) => (event.type === 'task.message' ? event.message : context.statusMessage),
      updatedAt: ({ event, context }) => (event.type === 'task.message' ? event.at : context.updatedAt),
    }),
    addInput: assign({
      pendingInputs: ({ context, event }) =>
        event.type === 'task.input.request' ? [...context.pendingInputs, event.requestId] : context.pendingInputs,
    }),
    removeInput: assign({
      pendingInputs: ({ context, event }) =>
        event.type === 'task.input.response'
          ? context.pendingInputs.filter((id) => id !== event.requestId)
          : context.pendingInputs,
    }),
    recordResult: assign({
      resultRef: ({ event, context }) => (event.type === 'task.complete' ? event.resultRef : context.resultRef),
      pendingInputs: () => [],
    }),
    recordError: assign({
      error: ({ event, context }) => (event.type === 'task.fail' || event.type === 'task.lose' ? event.error : context.error),
      statusMessage: ({ event, context }) =>
        event.type === 'task.fail' || event.type === 'task.lose' ? event.error : context.statusMessage,
      pendingInputs: () => [],
    }),
    recordCancel: assign({
      statusMessage: ({ event, context }) =>
        event.type === 'task.cancel' ? (event.reason ?? 'Cancelled by the requester') : context.statusMessage,
      // Answers that arrive after a cancel are discarded (§4.8.5): nothing is pending any more.
      pendingInputs: () => [],
    }),
  },
}).createMachine({
  id: 'task',
  // Field by field rather than `{ ...input, … }`: on Node 20 a spread with extra keys costs
  // microseconds, and every task builds this once.
  context: ({ input }) => ({
    taskId: input.taskId,
    owner: input.owner,
    dialect: input.dialect,
    method: input.method,
    label: input.label,
    keepAlive: input.keepAlive,
    pollFrequency: input.pollFrequency,
    createdAt: input.createdAt,
    updatedAt: input.createdAt,
    statusMessage: null,
    error: null,
    pendingInputs: [],
    resultRef: null,
  }),
  initial: 'submitted',
  // Each live state lists all its edges, written out rather than shared, so that the machine reads
  // as the spec's list of valid paths (§4.3.2) and a reviewer can check it line by line.
  states: {
    submitted: {
      on: {
        'task.start': { target: 'working', actions: 'touch' },
        'task.input.request': { target: 'input_required', actions: ['addInput', 'touch'] },
        'task.message': { actions: 'recordMessage' },
        'task.complete': { target: 'completed', actions: ['recordResult', 'touch'] },
        'task.fail': { target: 'failed', actions: ['recordError', 'touch'] },
        'task.cancel': { target: 'cancelled', actions: ['recordCancel', 'touch'] },
        'task.lose': { target: 'unknown', actions: ['recordError', 'touch'] },
      },
    },
    working: {
      on: {
        'task.input.request': { target: 'input_required', actions: ['addInput', 'touch'] },
        'task.message': { actions: 'recordMessage' },
        'task.complete': { target: 'completed', actions: ['recordResult', 'touch'] },
        'task.fail': { target: 'failed', actions: ['recordError', 'touch'] },
        'task.cancel': { target: 'cancelled', actions: ['recordCancel', 'touch'] },
        'task.lose': { target: 'unknown', actions: ['recordError', 'touch'] },
      },
    },
    input_required: {
      on: {
        'task.input.request': { guard: 'isNewInput', actions: ['addInput', 'touch'] },
        'task.input.response': [
          { guard: 'isLastPendingInput', target: 'working', actions: ['removeInput', 'touch'] },
          { guard: 'isPendingInput', actions: ['removeInput', 'touch'] },
        ],
        'task.message': { actions: 'recordMessage' },
        'task.complete': { target: 'completed', actions: ['recordResult', 'touch'] },
        'task.fail': { target: 'failed', actions: ['recordError', 'touch'] },
        'task.cancel': { target: 'cancelled', actions: ['recordCancel', 'touch'] },
        'task.lose': { target: 'unknown', actions: ['recordError', 'touch'] },
      },
    },
    completed: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
    unknown: { type: 'final' },
  },
});

/** The machine's type, for `machine.provide` results and snapshots. */
export type TaskMachine = typeof taskMachine;
