/**
 * `mcp-task-actors/mastra` with a Mastra `Agent` driven by the AI SDK's scripted model
 * (`MockLanguageModelV4` from `ai/test`, which Mastra runs as it runs any AI SDK model) against a
 * real `serve` on memory: await mode returns the result, progress comes as `tool-output` chunks of
 * the agent's stream, the agent's abort signal cancels the task on the server, `ask_name` is
 * answered through `onInputRequest`, a failed tool is a tool error whose message the model reads,
 * and background mode starts, follows and collects `long_job`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Agent } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import type { MockLanguageModelV4 } from 'ai/test';
import type { TaskClient } from '../../../adapters/mcp-client/index.js';
import { mcpTaskTools } from '../../../adapters/agents/mastra/index.js';
import { onTarget, stopSharedNats, TARGETS } from './agent-target.js';
import { backgroundModel, scriptedModel, toolCall } from './ai-sdk-script.js';
import { serverShowsCancelled, workingLongJob } from './until.js';

let tasks: TaskClient;
afterAll(async () => {
  await stopSharedNats();
});

// Mastra declares its AI SDK model types from its own bundled copy of @ai-sdk/provider (4.0.17
// here, `ai` 7 has 4.0.39): the same model at run time, two types to the compiler.
const asMastraModel = (model: MockLanguageModelV4) => model as unknown as MastraModelConfig;
const agentWith = (model: MockLanguageModelV4, tools: Awaited<ReturnType<typeof mcpTaskTools>>) =>
  new Agent({ id: 'worker', name: 'worker', instructions: 'Run the tools you are asked to.', model: asMastraModel(model), tools });

describe.each(TARGETS)('mcpTaskTools for Mastra (await mode) against $name', (target) => {
  onTarget(target, 'mastra-agent', (t) => (tasks = t));
  it('should run sleep as a task in the agent loop and hand its result to the model', async () => {
    const model = scriptedModel([toolCall('sleep', { ms: 100 }), { text: 'It slept.' }]);
    const result = await agentWith(model, await mcpTaskTools(tasks, { tools: ['sleep'] })).generate('sleep 100 ms', { maxSteps: 3 });
    expect(result.text).toBe('It slept.');
    expect(result.toolResults.map((r) => r.payload.result)).toEqual(['slept 100 ms']);
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('slept 100 ms');
  });

  it('should write status and partial results to the tool stream as tool-output chunks', async () => {
    const model = scriptedModel([toolCall('long_job', { seconds: 1 }), { text: 'done' }]);
    const run = await agentWith(model, await mcpTaskTools(tasks, { tools: ['long_job'] })).stream('long job', { maxSteps: 3 });
    const updates: string[] = [];
    let final: unknown;
    for await (const part of run.fullStream) {
      if (part.type === 'tool-output') updates.push((part.payload.output as { text: string }).text);
      else if (part.type === 'tool-result') final = part.payload.result;
    }
    expect(final).toBe('long_job done in 1 s');
    // Some step's status message: which ones a poll sees depends on timing (a loaded machine skips some).
    expect(updates.some((t) => /^working: step \d+\/10$/.test(t)), JSON.stringify(updates)).toBe(true);
    expect(updates.some((u) => u.startsWith('partial '))).toBe(true);
  });

  it('should cancel the task on the server when the agent is aborted', async () => {
    const stop = new AbortController();
    const model = scriptedModel([toolCall('long_job', { seconds: 30 }), { text: 'never' }]);
    const running = agentWith(model, await mcpTaskTools(tasks, { tools: ['long_job'] })).generate('long', { maxSteps: 3, abortSignal: stop.signal });
    running.catch(() => undefined);
    const taskId = await workingLongJob(tasks);
    stop.abort();
    // Mastra ends an aborted run without rejecting; what matters is the task on the server.
    await running.catch(() => undefined);
    expect(await serverShowsCancelled(tasks, taskId)).toBe(true);
  });

  it('should answer ask_name through onInputRequest', async () => {
    const asked: string[] = [];
    const model = scriptedModel([toolCall('ask_name', {}), { text: 'ok' }]);
    const tools = await mcpTaskTools(tasks, {
      tools: ['ask_name'],
      onInputRequest: async ({ method }, { toolName }) => {
        asked.push(`${toolName}:${method}`);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const result = await agentWith(model, tools).generate('greet', { maxSteps: 3 });
    expect(result.toolResults.map((r) => r.payload.result)).toEqual(['Hello, Ada']);
    expect(asked).toEqual(['ask_name:elicitation/create']);
  });

  it('should turn a failed tool into a tool error whose message the model reads', async () => {
    const model = scriptedModel([toolCall('fail', { message: 'disk full' }), { text: 'sorry' }]);
    const result = await agentWith(model, await mcpTaskTools(tasks, { tools: ['fail'] })).generate('fail', { maxSteps: 3 });
    expect(result.text).toBe('sorry');
    expect(result.toolResults).toEqual([]);
    const prompt = JSON.stringify(model.doGenerateCalls[1]!.prompt);
    expect(prompt).toContain('error-text');
    expect(prompt).toContain('disk full');
  });
});

describe('mcpTaskTools for Mastra (background mode)', () => {
  onTarget(TARGETS[0], 'mastra-agent', (t) => (tasks = t));
  it('should start long_job, follow it with task_status and collect it with task_result', async () => {
    const model = backgroundModel();
    const tools = await mcpTaskTools(tasks, { mode: 'background', tools: ['long_job'] });
    expect(Object.keys(tools).sort()).toEqual(['long_job', 'task_cancel', 'task_respond', 'task_result', 'task_status']);
    const result = await agentWith(model, tools).generate('start the long job and collect it', { maxSteps: 40 });
    const calls = result.steps.flatMap((s) => s.toolCalls.map((c) => c.payload.toolName));
    expect(calls[0]).toBe('long_job');
    expect(calls).toContain('task_status');
    expect(calls.at(-1)).toBe('task_result');
    expect(result.text).toBe('collected');
  });
});
