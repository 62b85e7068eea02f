/**
 * The task lifecycle of SEP-1686 §4.3 as one XState v5 machine: exactly the edges of the spec's
 * state diagram, nothing more. Pure: the work runs beside the actor (in the runtime's task core),
 * which tells the machine how it ended with `task.complete` / `task.fail`, and stops the work when
 * the actor reaches a terminal state.
 *
 * @module
 */
import { assign, setup } from 'xstate';
import { advancesProgress, type TaskEvent } from './task.events.js';
import { isTerminalStatus, type TaskContext, type TaskInput } from './task.types.js';

/** A subtask's context names its parent and depth; a top-level task's carries neither (smaller records). */
function withParent(input: TaskInput, context: TaskContext): TaskContext {
  if (input.parentId === undefined || input.parentId === null) return context;
  return { ...context, parentId: input.parentId, depth: input.depth ?? 1 };
}

/** No pending input: the context's own empty list when it has one, so ending a task allocates nothing for it. */
function noInputs(context: TaskContext): string[] {
  return context.pendingInputs.length === 0 ? context.pendingInputs : [];
}

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
    advancesProgress: ({ context, event }) => event.type === 'task.progress' && advancesProgress(context.progress, event.progress),
  },
  // One assignment per transition, each setting `updatedAt` itself: XState copies the context
  // (and clones the snapshot) once per assign action, so two actions on an edge meant two copies.
  actions: {
    touch: assign(({ event }) => ({ updatedAt: event.at })),
    recordMessage: assign(({ event, context }) =>
      event.type === 'task.message' ? { statusMessage: event.message, updatedAt: event.at } : context,
    ),
    addInput: assign(({ context, event }) =>
      event.type === 'task.input.request' ? { pendingInputs: [...context.pendingInputs, event.requestId], updatedAt: event.at } : context,
    ),
    removeInput: assign(({ context, event }) =>
      event.type === 'task.input.response'
        ? { pendingInputs: context.pendingInputs.filter((id) => id !== event.requestId), updatedAt: event.at }
        : context,
    ),
    recordResult: assign(({ event, context }) =>
      event.type === 'task.complete' ? { resultRef: event.resultRef, pendingInputs: noInputs(context), updatedAt: event.at } : context,
    ),
    recordError: assign(({ event, context }) =>
      event.type === 'task.fail' || event.type === 'task.lose'
        ? { error: event.error, statusMessage: event.error, pendingInputs: noInputs(context), updatedAt: event.at }
        : context,
    ),
    recordChild: assign(({ context, event }) => {
      if (event.type !== 'task.child') return context;
      const children = context.children ?? [];
      const at = children.findIndex((c) => c.taskId === event.childId);
      // A late report never moves a child back out of a terminal status.
      if (at >= 0 && isTerminalStatus(children[at]!.status)) return context;
      const child = { taskId: event.childId, status: event.status };
      const next = at < 0 ? [...children, child] : children.map((c, i) => (i === at ? child : c));
      return { children: next, updatedAt: event.at };
    }),
    recordPartial: assign(({ context, event }) => {
      if (event.type !== 'task.partial') return context;
      const partials = context.partials ?? [];
      const seq = (partials.at(-1)?.seq ?? 0) + 1;
      return { partials: [...partials, { seq, at: event.at, content: event.content }], updatedAt: event.at };
    }),
    recordProgress: assign(({ event }) => {
      if (event.type !== 'task.progress') return {};
      const { progress, total, message, at } = event;
      const report = { progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) };
      return message === undefined ? { progress: report, updatedAt: at } : { progress: report, statusMessage: message, updatedAt: at };
    }),
    recordHandler: assign(({ event }) => (event.type === 'task.handler' ? { handler: event.position, updatedAt: event.at } : {})),
    recordCancel: assign(({ event, context }) =>
      event.type === 'task.cancel'
        ? // Answers that arrive after a cancel are discarded (§4.8.5): nothing is pending any more.
          // A cancelled task's subtree is cancelled with it: its live children are recorded so,
          // since an ended task's record never changes again.
          {
            statusMessage: event.reason ?? 'Cancelled by the requester',
            pendingInputs: noInputs(context),
            updatedAt: event.at,
            ...(context.children?.some((c) => !isTerminalStatus(c.status)) && {
              children: context.children.map((c) => (isTerminalStatus(c.status) ? c : { taskId: c.taskId, status: 'cancelled' as const })),
            }),
          }
        : context,
    ),
  },
}).createMachine({
  id: 'task',
  // Field by field rather than `{ ...input, … }`: on Node 20 a spread with extra keys costs
  // microseconds, and every task builds this once.
  context: ({ input }) => withParent(input, {
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
        'task.input.request': { target: 'input_required', actions: 'addInput' },
        'task.message': { actions: 'recordMessage' },
        'task.complete': { target: 'completed', actions: 'recordResult' },
        'task.fail': { target: 'failed', actions: 'recordError' },
        'task.cancel': { target: 'cancelled', actions: 'recordCancel' },
        'task.lose': { target: 'unknown', actions: 'recordError' },
        'task.child': { actions: 'recordChild' },
        'task.partial': { actions: 'recordPartial' },
        'task.progress': { guard: 'advancesProgress', actions: 'recordProgress' },
        'task.handler': { actions: 'recordHandler' },
      },
    },
    working: {
      on: {
        'task.input.request': { target: 'input_required', actions: 'addInput' },
        'task.message': { actions: 'recordMessage' },
        'task.complete': { target: 'completed', actions: 'recordResult' },
        'task.fail': { target: 'failed', actions: 'recordError' },
        'task.cancel': { target: 'cancelled', actions: 'recordCancel' },
        'task.lose': { target: 'unknown', actions: 'recordError' },
        'task.child': { actions: 'recordChild' },
        'task.partial': { actions: 'recordPartial' },
        'task.progress': { guard: 'advancesProgress', actions: 'recordProgress' },
        'task.handler': { actions: 'recordHandler' },
      },
    },
    input_required: {
      on: {
        'task.input.request': { guard: 'isNewInput', actions: 'addInput' },
        'task.input.response': [
          { guard: 'isLastPendingInput', target: 'working', actions: 'removeInput' },
          { guard: 'isPendingInput', actions: 'removeInput' },
        ],
        'task.message': { actions: 'recordMessage' },
        'task.complete': { target: 'completed', actions: 'recordResult' },
        'task.fail': { target: 'failed', actions: 'recordError' },
        'task.cancel': { target: 'cancelled', actions: 'recordCancel' },
        'task.lose': { target: 'unknown', actions: 'recordError' },
        'task.child': { actions: 'recordChild' },
        'task.partial': { actions: 'recordPartial' },
        'task.progress': { guard: 'advancesProgress', actions: 'recordProgress' },
        'task.handler': { actions: 'recordHandler' },
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
