/**
 * The demo server's tools (DESIGN.md, "The demo server"): `sleep`, `long_job`, `fan_out`, `delegate`, `fail`, `echo`,
 * `ask_name` (elicitation) and `summarize` (sampling),
 * plus one prompt and one resource to show that those requests become tasks too.
 *
 * @module
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { CallToolResult } from '../wire/mcp-shapes.js';
import type { TaskPromptDefinition, TaskResourceDefinition, TaskToolDefinition } from '../mcp-server/index.js';
import { fromPromise } from 'xstate';
import type { RequestWorkContext } from '../mcp-server/index.js';
import { machineHandler } from '../../runtime/handlers/machine-handler.js';
import { askNameMachine, summarizeMachine } from './input-jobs.machine.js';
import { longJobMachine } from './long-job.machine.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** `sleep {ms}`: waits, then says so. Task support optional. */
export const sleepTool: TaskToolDefinition<{ ms: z.ZodNumber }> = {
  name: 'sleep',
  description: 'Waits `ms` milliseconds, then returns "slept <ms> ms".',
  inputSchema: z.object({ ms: z.number().int().min(0).max(3_600_000) }),
  taskSupport: 'optional',
  // Waiting again from the start harms nothing: a lost worker's sleep is simply re-run.
  retry: 'restart',
  run: async ({ ms }, ctx) => {
    await delay(ms, undefined, { signal: ctx.signal });
    return text(`slept ${ms} ms`);
  },
};

/**
 * `long_job {seconds}`: ten steps, a status message and a progress report per step, honours cancel. Task required. Its
 * work is {@link longJobMachine}, so the inspector draws the job's own machine as it runs, and a
 * durable one: a worker lost at step 4 leaves a checkpoint there, and another worker resumes the
 * job from it with what was left of the step's delay.
 */
export const longJobTool: TaskToolDefinition<{ seconds: z.ZodNumber }> = {
  name: 'long_job',
  description: 'Works for `seconds` in 10 steps, reporting "step i/10" as status message and progress i of 10. Must run as a task.',
  inputSchema: z.object({ seconds: z.number().min(0).max(86_400) }),
  taskSupport: 'required',
  retry: 'resume',
  run: machineHandler(longJobMachine, { input: ({ seconds }: { seconds: number }) => ({ seconds }) }),
};

/**
 * `fan_out {count, ms}`: runs `count` `sleep {ms}` subtasks (on any worker, on NATS), waits for
 * all, and says how many completed. Task required: subtasks belong to a task. Cancelling it
 * cancels every subtask; a subtask the requester's running-task cap refuses fails it.
 */
export const fanOutTool: TaskToolDefinition<{ count: z.ZodNumber; ms: z.ZodNumber }> = {
  name: 'fan_out',
  description: 'Runs `count` sleep subtasks of `ms` each (nested tasks), then returns "fan_out: N of N subtasks completed". Must run as a task.',
  inputSchema: z.object({ count: z.number().int().min(1).max(100), ms: z.number().int().min(0).max(3_600_000) }),
  taskSupport: 'required',
  run: async ({ count, ms }, ctx) => {
    if (!ctx.spawnTask || !ctx.waitForSubtasks) throw new Error('fan_out runs only as a task');
    const children = [];
    for (let i = 0; i < count; i++) children.push(await ctx.spawnTask('sleep', { ms }));
    ctx.setStatusMessage(`waiting for ${count} subtasks`);
    const outcomes = await ctx.waitForSubtasks(children, 'all');
    const done = outcomes.filter((o) => o.task.status === 'completed').length;
    return text(`fan_out: ${done} of ${count} subtasks completed`);
  },
};

/**
 * `delegate {tool, arguments}`: runs one other tool of this server as a subtask and answers with
 * its result. A subtask that asks for input (`delegate {tool: 'ask_name'}`) makes this task
 * `input_required` with the same request, answerable through either task. Task required.
 */
export const delegateTool: TaskToolDefinition<{ tool: z.ZodString; arguments: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>> }> = {
  name: 'delegate',
  description: "Runs another tool of this server as a subtask (nested tasks) and returns the subtask's result. Must run as a task.",
  inputSchema: z.object({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() }),
  taskSupport: 'required',
  run: async ({ tool, arguments: args }, ctx) => {
    if (!ctx.spawnTask || !ctx.waitForSubtasks) throw new Error('delegate runs only as a task');
    const child = await ctx.spawnTask(tool, args ?? {});
    const [outcome] = await ctx.waitForSubtasks([child], 'all');
    if (outcome!.task.status === 'completed' && outcome!.hasResult) return outcome!.result as CallToolResult;
    const why = outcome!.task.error ?? outcome!.task.statusMessage;
    return { ...text(`delegate: subtask ${child.taskId} ended ${outcome!.task.status}${why ? `: ${why}` : ''}`), isError: true };
  },
};

/** `fail {message}`: a tool-level error (`isError: true`), which in SEP-1686 still completes the task. */
export const failTool: TaskToolDefinition<{ message: z.ZodString }> = {
  name: 'fail',
  description: 'Returns a tool result with isError: true and the given message.',
  inputSchema: z.object({ message: z.string() }),
  taskSupport: 'optional',
  run: async ({ message }) => ({ ...text(message), isError: true }),
};

/** `echo {text}`: answers at once; never a task. */
export const echoTool: TaskToolDefinition<{ text: z.ZodString }> = {
  name: 'echo',
  description: 'Returns the text at once. Task augmentation is forbidden (ignored).',
  inputSchema: z.object({ text: z.string() }),
  taskSupport: 'forbidden',
  run: async ({ text: t }) => text(t),
};

/**
 * `ask_name {}`: asks the requester for `{name}` with `elicitation/create`, then greets. A durable
 * machine handler: a task waiting for the name outlives its worker.
 */
export const askNameTool: TaskToolDefinition<Record<string, never>> = {
  name: 'ask_name',
  description: 'Asks you for your name (elicitation), then returns "Hello, <name>".',
  inputSchema: z.object({}),
  taskSupport: 'optional',
  retry: 'resume',
  run: machineHandler(askNameMachine, {
    input: () => undefined,
    provide: (ctx: RequestWorkContext) => ({
      actors: {
        ask: fromPromise(() =>
          ctx.elicit({
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
          }),
        ),
      },
    }),
  }),
};

/** `summarize {text}`: borrows the requester's model with `sampling/createMessage`; durable like `ask_name`. */
export const summarizeTool: TaskToolDefinition<{ text: z.ZodString }> = {
  name: 'summarize',
  description: "Summarizes the text with the requester's model (sampling) and returns the model's text.",
  inputSchema: z.object({ text: z.string().max(100_000) }),
  taskSupport: 'optional',
  retry: 'resume',
  run: machineHandler(summarizeMachine, {
    input: ({ text: t }: { text: string }) => ({ text: t }),
    provide: (ctx: RequestWorkContext) => ({
      actors: {
        sample: fromPromise(({ input }: { input: string }) =>
          ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize in one sentence:\n\n${input}` } }], maxTokens: 200 }),
        ),
      },
    }),
  }),
};

/** `greeting {name}`: a prompt, rendered after a short pause so that it is worth a task. */
export const greetingPrompt: TaskPromptDefinition = {
  name: 'greeting',
  description: 'A greeting prompt for `name`.',
  arguments: [{ name: 'name', description: 'who to greet', required: true }],
  run: async (args, ctx) => {
    await delay(50, undefined, { signal: ctx.signal });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${args['name'] ?? 'someone'}.` } }] };
  },
};

/** `demo://report`: a resource that takes a moment to build. */
export const reportResource: TaskResourceDefinition = {
  uri: 'demo://report',
  name: 'report',
  description: 'A small report built in about 100 ms.',
  mimeType: 'text/plain',
  run: async (uri, ctx) => {
    await delay(100, undefined, { signal: ctx.signal });
    return { contents: [{ uri, mimeType: 'text/plain', text: `report built at ${new Date().toISOString()}` }] };
  },
};

/** Everything the demo server serves. */
export const demoDefinitions = {
  tools: [sleepTool, longJobTool, fanOutTool, delegateTool, failTool, echoTool, askNameTool, summarizeTool],
  prompts: [greetingPrompt],
  resources: [reportResource],
} as const;
