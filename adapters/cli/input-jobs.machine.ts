/**
 * The demo tools that ask the requester for something, as machines: `ask_name` (elicitation) and
 * `summarize` (sampling). One state waits for the answer (an invoked actor the tool provides per
 * run, since it needs the run's context), then the tool's result. As machines they are durable:
 * a worker lost while the task waits for input leaves a checkpoint in `asking`, and the run that
 * resumes it asks again under the same input id, which finds the answer if it came meanwhile.
 *
 * @module
 */
import type { CallToolResult, CreateMessageResult, ElicitResult } from '../wire/mcp-shapes.js';
import { assign, fromPromise, setup } from 'xstate';

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError && { isError: true }) });

/** Until a run provides it: the request to the requester. */
const unprovided = fromPromise<never>(() => Promise.reject(new Error('the tool provides this actor per run')));

/**
 * `ask_name`: `asking` (elicitation) → `done`, whose output greets the name given.
 *
 * @example
 * ```ts
 * machineHandler(askNameMachine, { provide: (ctx) => ({ actors: { ask: fromPromise(() => ctx.elicit(form)) } }) });
 * ```
 */
export const askNameMachine = setup({
  types: { context: {} as { readonly answer: ElicitResult | null }, output: {} as CallToolResult },
  actors: { ask: unprovided as unknown as ReturnType<typeof fromPromise<ElicitResult>> },
}).createMachine({
  id: 'ask_name',
  context: { answer: null },
  initial: 'asking',
  states: {
    asking: { invoke: { src: 'ask', onDone: { target: 'done', actions: assign({ answer: ({ event }) => event.output }) } } },
    done: { type: 'final' },
  },
  output: ({ context }) => {
    const name = context.answer?.action === 'accept' ? context.answer.content?.['name'] : undefined;
    return typeof name === 'string' && name.length > 0 ? text(`Hello, ${name}`) : text(`No name given (${context.answer?.action ?? 'no answer'})`, true);
  },
});

/**
 * `summarize`: `sampling` (the requester's model) → `done`, whose output is the model's text.
 *
 * @example
 * ```ts
 * machineHandler(summarizeMachine, { provide: (ctx) => ({ actors: { sample: fromPromise(({ input }) => ctx.sample(requestFor(input))) } }) });
 * ```
 */
export const summarizeMachine = setup({
  types: { input: {} as { readonly text: string }, context: {} as { readonly text: string; readonly reply: CreateMessageResult | null }, output: {} as CallToolResult },
  actors: { sample: unprovided as unknown as ReturnType<typeof fromPromise<CreateMessageResult, string>> },
}).createMachine({
  id: 'summarize',
  context: ({ input }) => ({ text: input.text, reply: null }),
  initial: 'sampling',
  states: {
    // The text to summarize is the invoked request's input (the provided actor builds the request).
    sampling: { invoke: { src: 'sample', input: ({ context }) => context.text, onDone: { target: 'done', actions: assign({ reply: ({ event }) => event.output }) } } },
    done: { type: 'final' },
  },
  output: ({ context }) => {
    const content: unknown = Array.isArray(context.reply?.content) ? (context.reply.content as unknown[])[0] : context.reply?.content;
    const said = typeof content === 'object' && content !== null && 'text' in content && typeof content.text === 'string' ? content.text : null;
    return text(said ?? '(the model answered without text)');
  },
});
