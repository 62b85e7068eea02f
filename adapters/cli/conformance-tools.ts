/**
 * The tools the official conformance suite (`@modelcontextprotocol/conformance`, the `tasks-*`
 * scenarios) calls: `greet`, `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
 * `multi_input` and `test_tool_with_task`. `mcp-tasks serve --conformance` adds them to the demo tools.
 * Names, arguments and replies follow the scenario sources (`src/scenarios/server/tasks/*.ts`);
 * the behaviours follow the reference fixtures the extension cites.
 *
 * @module
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ElicitRequestParams } from '../wire/mcp-shapes.js';
import { z } from 'zod';
import type { TaskToolDefinition } from '../mcp-server/index.js';
// The SDK-free error module, not the SDK v1 adapter entry: `serve --sdk v2 --conformance` runs without SDK v1.
import { JsonRpcCode, JsonRpcError } from '../wire/wire-errors.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** `greet {name}`: `Hello, <name>!` at once. Never a task (the suite checks the synchronous shape). */
export const greetTool: TaskToolDefinition<{ name: z.ZodString }> = {
  name: 'greet',
  description: 'Returns "Hello, <name>!" at once. Never runs as a task.',
  inputSchema: z.object({ name: z.string() }),
  taskSupport: 'forbidden',
  run: async ({ name }) => text(`Hello, ${name}!`),
};

/** `slow_compute {seconds?, label?}`: sleeps `seconds` (default 3), honouring cancel. Task optional. */
export const slowComputeTool: TaskToolDefinition<{ seconds: z.ZodOptional<z.ZodNumber>; label: z.ZodOptional<z.ZodString> }> = {
  name: 'slow_compute',
  description: 'Sleeps `seconds` (default 3), then returns "Computation "<label>" completed after N seconds. Result: 42."',
  inputSchema: z.object({ seconds: z.number().min(0).max(3600).optional(), label: z.string().optional() }),
  taskSupport: 'optional',
  // Sleeping again from the start harms nothing.
  retry: 'restart',
  run: async ({ seconds = 3, label = 'unnamed' }, ctx) => {
    await delay(seconds * 1000, undefined, { signal: ctx.signal });
    return text(`Computation "${label}" completed after ${seconds} seconds. Result: 42.`);
  },
};

/** `failing_job {}`: after a moment, a tool error (`isError: true`). Task required. */
export const failingJobTool: TaskToolDefinition<Record<string, never>> = {
  name: 'failing_job',
  description: 'After a moment, returns a tool result with isError: true. Must run as a task.',
  inputSchema: z.object({}),
  taskSupport: 'required',
  run: async (_args, ctx) => {
    await delay(300, undefined, { signal: ctx.signal });
    return { ...text('job failed: simulated tool error'), isError: true };
  },
};

/** `protocol_error_job {}`: after a moment, throws JSON-RPC error -32603 (the task fails). Task optional. */
export const protocolErrorJobTool: TaskToolDefinition<Record<string, never>> = {
  name: 'protocol_error_job',
  description: 'After a moment, fails with JSON-RPC error -32603 "simulated protocol error".',
  inputSchema: z.object({}),
  taskSupport: 'optional',
  run: async (_args, ctx) => {
    await delay(300, undefined, { signal: ctx.signal });
    throw new JsonRpcError(JsonRpcCode.internalError, 'simulated protocol error');
  },
};

/** `confirm_delete {filename?}`: asks for `{confirm: boolean}` (elicitation), then says what it did. Task required. */
export const confirmDeleteTool: TaskToolDefinition<{ filename: z.ZodOptional<z.ZodString> }> = {
  name: 'confirm_delete',
  description: 'Asks you to confirm (elicitation), then returns "deleted <f>" or "kept <f>". Deletes nothing. Must run as a task.',
  inputSchema: z.object({ filename: z.string().optional() }),
  taskSupport: 'required',
  run: async ({ filename = 'file.txt' }, ctx) => {
    const answer = await ctx.elicit({
      message: `Delete '${filename}'?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Confirm' } }, required: ['confirm'] },
    });
    const confirmed = answer.action === 'accept' && answer.content?.['confirm'] === true;
    return text(`${confirmed ? 'deleted' : 'kept'} '${filename}'`);
  },
};

/** `multi_input {}`: two elicitations at once (name, confirm), so two inputs are pending together. Task required. */
export const multiInputTool: TaskToolDefinition<Record<string, never>> = {
  name: 'multi_input',
  description: 'Asks for a name and a confirmation in parallel (two elicitations), then returns both. Must run as a task.',
  inputSchema: z.object({}),
  taskSupport: 'required',
  run: async (_args, ctx) => {
    const [nameAnswer, confirmAnswer] = await Promise.all([
      ctx.elicit({
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
      }),
      ctx.elicit({
        message: 'Confirm?',
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Confirm' } }, required: ['confirm'] },
      }),
    ]);
    const name = nameAnswer.action === 'accept' ? nameAnswer.content?.['name'] : undefined;
    const confirmed = confirmAnswer.action === 'accept' && confirmAnswer.content?.['confirm'] === true;
    return text(`name=${typeof name === 'string' ? name : '(none)'} confirmed=${String(confirmed)}`);
  },
};

/** The form `test_tool_with_task` asks for, as elicitation parameters. */
const userNameForm = (): ElicitRequestParams => ({
  mode: 'form',
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
});

const acceptedName = (response: unknown): string | undefined => {
  if (typeof response !== 'object' || response === null) return undefined;
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action !== 'accept' || typeof content !== 'object' || content === null) return undefined;
  const name = (content as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : undefined;
};

/**
 * `test_tool_with_task {name?}`: gathers the user's name first, then runs as a task that greets
 * them. On the 2026-07-28 wire the name comes from an MRTR round (`beforeTask`, key `user_name`);
 * on the older dialects, which have no such round, the task itself asks (elicitation) when no `name`
 * argument was given. Task required.
 */
export const testToolWithTask: TaskToolDefinition<{ name: z.ZodOptional<z.ZodString> }> = {
  name: 'test_tool_with_task',
  description: 'Asks for your name (before the task on 2026-07-28, inside it otherwise), then a task returns "Hello, <name>!".',
  inputSchema: z.object({ name: z.string().optional() }),
  taskSupport: 'required',
  beforeTask: (args, inputResponses) => {
    const name = acceptedName(inputResponses?.['user_name']);
    return name === undefined ? { inputRequests: { user_name: { method: 'elicitation/create', params: userNameForm() } } } : { args: { ...args, name } };
  },
  run: async ({ name }, ctx) => {
    let who = name;
    if (who === undefined) {
      const answer = await ctx.elicit(userNameForm());
      who = acceptedName(answer);
      if (who === undefined) return { ...text(`No name given (${answer.action})`), isError: true };
    }
    await delay(300, undefined, { signal: ctx.signal });
    return text(`Hello, ${who}!`);
  },
};

/** Every conformance fixture, in the order the suite's scenarios introduce them. */
export const conformanceTools = [
  greetTool,
  slowComputeTool,
  failingJobTool,
  protocolErrorJobTool,
  confirmDeleteTool,
  multiInputTool,
  testToolWithTask,
] as const;
