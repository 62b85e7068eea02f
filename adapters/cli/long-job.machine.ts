/**
 * The demo tool `long_job` as a machine: ten steps of `seconds / 10` each, announcing `step i/10`
 * as it enters each one. Written as a machine (rather than a loop) so that the inspector can draw
 * the handler itself and show which state each running job is in.
 *
 * @module
 */
import type { CallToolResult } from '../wire/mcp-shapes.js';
import { assign, emit, setup } from 'xstate';
import { handlerPartial, handlerProgress, type HandlerPartialEvent, type HandlerProgressEvent } from '../../runtime/handlers/machine-handler.js';

/** Steps of a long job. */
export const LONG_JOB_STEPS = 10;

/**
 * `long_job {seconds}`: ten steps of `seconds / 10` each. `working` is re-entered for each of the
 * first nine (each entry reports progress `i` of 10 with the status message `step i/10`, each
 * step's end publishes `step i/10 done` as an intermediate result), the last step is `finishing`,
 * then `done`, whose output is the tool result. Two states before the end, so that the inspector's
 * drawing of the job shows it move on, not only its step count. Pure: time passes through XState's
 * own delayed transitions, which stop with the actor when the task is cancelled.
 *
 * @example
 * ```ts
 * const run = machineHandler(longJobMachine, { input: ({ seconds }: { seconds: number }) => ({ seconds }) });
 * ```
 */
export const longJobMachine = setup({
  types: {
    input: {} as { readonly seconds: number },
    context: {} as { readonly seconds: number; readonly step: number },
    output: {} as CallToolResult,
    emitted: {} as HandlerPartialEvent | HandlerProgressEvent,
  },
  delays: {
    step: ({ context }) => (context.seconds * 1000) / LONG_JOB_STEPS,
  },
  guards: {
    beforeLastStep: ({ context }) => context.step < LONG_JOB_STEPS - 1,
  },
  actions: {
    // Entry runs after the transition's `assign`, so it announces the step just begun: progress
    // i of 10, whose message is the status message too (one change of the task, not two: a
    // reader between two would see the progress of one step beside the message of the next).
    announceStep: emit(({ context }) => handlerProgress(context.step, LONG_JOB_STEPS, `step ${context.step}/${LONG_JOB_STEPS}`)),
    publishStep: emit(({ context }) => handlerPartial([{ type: 'text', text: `step ${context.step}/${LONG_JOB_STEPS} done` }])),
    nextStep: assign({ step: ({ context }) => context.step + 1 }),
  },
}).createMachine({
  id: 'long_job',
  context: ({ input }) => ({ seconds: input.seconds, step: 1 }),
  initial: 'working',
  states: {
    working: {
      entry: 'announceStep',
      after: {
        // Each step ends by publishing what it produced (an intermediate result), then the next begins.
        step: [
          { guard: 'beforeLastStep', target: 'working', reenter: true, actions: ['publishStep', 'nextStep'] },
          { target: 'finishing', actions: ['publishStep', 'nextStep'] },
        ],
      },
    },
    finishing: {
      entry: 'announceStep',
      after: { step: { target: 'done', actions: 'publishStep' } },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ content: [{ type: 'text', text: `long_job done in ${context.seconds} s` }] }),
});
