/**
 * The demo tool `long_job` as a machine: ten steps of `seconds / 10` each, announcing `step i/10`
 * as it enters each one. Written as a machine (rather than a loop) so that the inspector can draw
 * the handler itself and show which state each running job is in.
 *
 * @module
 */
import type { CallToolResult } from '../wire/mcp-shapes.js';
import { assign, emit, setup } from 'xstate';
import { handlerPartial, handlerProgress, handlerStatus, type HandlerPartialEvent, type HandlerProgressEvent, type HandlerStatusEvent } from '../../runtime/handlers/machine-handler.js';

/** Steps of a long job. */
export const LONG_JOB_STEPS = 10;

/**
 * `long_job {seconds}`: `working` re-entered once per step (each entry sets the status message,
 * and reports progress `i` of 10, each step's end publishes `step i/10 done` as an intermediate
 * result), then `done`, whose output is the tool result. Pure: time passes through XState's own delayed
 * transitions, which stop with the actor when the task is cancelled.
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
    emitted: {} as HandlerStatusEvent | HandlerPartialEvent | HandlerProgressEvent,
  },
  delays: {
    step: ({ context }) => (context.seconds * 1000) / LONG_JOB_STEPS,
  },
  guards: {
    moreSteps: ({ context }) => context.step < LONG_JOB_STEPS,
  },
  actions: {
    publishStep: emit(({ context }) => handlerPartial([{ type: 'text', text: `step ${context.step}/${LONG_JOB_STEPS} done` }])),

  },
}).createMachine({
  id: 'long_job',
  context: ({ input }) => ({ seconds: input.seconds, step: 1 }),
  initial: 'working',
  states: {
    working: {
      // Entry runs after the transition's `assign`, so it announces the step just begun.
      // and reports progress: step i of 10 under way (its message the same text).
      entry: [
        emit(({ context }) => handlerStatus(`step ${context.step}/${LONG_JOB_STEPS}`)),
        emit(({ context }) => handlerProgress(context.step, LONG_JOB_STEPS, `step ${context.step}/${LONG_JOB_STEPS}`)),
      ],
      after: {
        // Each step ends by publishing what it produced (an intermediate result), then the next begins.
        step: [
          { guard: 'moreSteps', target: 'working', reenter: true, actions: ['publishStep', assign({ step: ({ context }) => context.step + 1 })] },
          { target: 'done', actions: 'publishStep' },
        ],
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ content: [{ type: 'text', text: `long_job done in ${context.seconds} s` }] }),
});
