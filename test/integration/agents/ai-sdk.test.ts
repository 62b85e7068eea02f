/**
 * `mcp-task-actors/ai-sdk` with the AI SDK's own scripted model (`MockLanguageModelV4` from
 * `ai/test`) driving its real agent loop (`generateText` / `streamText` with tools) against a real
 * `serve` on memory, and one run on a NATS front with a worker: await mode returns the result,
 * progress comes as preliminary tool results, the abort signal cancels the task on the server,
 * background mode starts, follows and collects `long_job`, `ask_name` is answered through
 * `onInputRequest`, a failed tool is a tool error.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateText, stepCountIs, streamText } from 'ai';
import type { TaskClient } from '../../../adapters/mcp-client/index.js';
import { mcpTaskTools } from '../../../adapters/agents/ai-sdk/index.js';
import { onTarget, stopSharedNats, TARGETS } from './agent-target.js';
import { serverShowsCancelled, workingLongJob } from './until.js';
import { backgroundModel, scriptedModel, toolCall } from './ai-sdk-script.js';

let tasks: TaskClient;
afterAll(async () => {
  await stopSharedNats();
});

describe.each(TARGETS)('mcpTaskTools for the AI SDK (await mode) against $name', (target) => {
  onTarget(target, 'ai-sdk-agent', (t) => (tasks = t));
  it('should run sleep as a task in the agent loop and hand its result to the model', async () => {
    const model = scriptedModel([toolCall('sleep', { ms: 100 }), { text: 'It slept.' }]);
    const result = await generateText({ model, tools: await mcpTaskTools(tasks, { tools: ['sleep'] }), prompt: 'sleep 100 ms', stopWhen: stepCountIs(3) });
    expect(result.steps[0]!.toolResults.map((r) => r.output)).toEqual(['slept 100 ms']);
    expect(result.text).toBe('It slept.');
    // The model's second step saw the tool's output.
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('slept 100 ms');
  });

  it('should stream status and partial results as preliminary tool results', async () => {
    const model = scriptedModel([toolCall('long_job', { seconds: 1 }), { text: 'done' }]);
    const run = streamText({ model, tools: await mcpTaskTools(tasks, { tools: ['long_job'] }), prompt: 'long job', stopWhen: stepCountIs(3) });
    const preliminary: string[] = [];
    let final: unknown;
    for await (const part of run.fullStream) {
      if (part.type === 'tool-result' && part.preliminary === true) preliminary.push(String(part.output));
      else if (part.type === 'tool-result') final = part.output;
    }
    expect(final).toBe('long_job done in 1 s');
    // Some step's status message: which ones a poll sees depends on timing (a loaded machine skips some).
    expect(preliminary.some((t) => /^working: step \d+\/10$/.test(t)), JSON.stringify(preliminary)).toBe(true);
    expect(preliminary.some((p) => p.startsWith('partial '))).toBe(true);
  });

  it('should cancel the task on the server when the agent aborts', async () => {
    const stop = new AbortController();
    const model = scriptedModel([toolCall('long_job', { seconds: 30 }), { text: 'never' }]);
    const running = generateText({ model, tools: await mcpTaskTools(tasks, { tools: ['long_job'] }), prompt: 'long', stopWhen: stepCountIs(3), abortSignal: stop.signal });
    running.catch(() => undefined);
    const taskId = await workingLongJob(tasks);
    stop.abort();
    await expect(running).rejects.toThrow();
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
    const result = await generateText({ model, tools, prompt: 'greet', stopWhen: stepCountIs(3) });
    expect(result.steps[0]!.toolResults.map((r) => r.output)).toEqual(['Hello, Ada']);
    expect(asked).toEqual(['ask_name:elicitation/create']);
  });

  it('should turn a failed tool into an AI SDK tool error the model reads', async () => {
    const model = scriptedModel([toolCall('fail', { message: 'disk full' }), { text: 'sorry' }]);
    const result = await generateText({ model, tools: await mcpTaskTools(tasks, { tools: ['fail'] }), prompt: 'fail', stopWhen: stepCountIs(3) });
    const errors = result.steps[0]!.content.filter((c) => c.type === 'tool-error');
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as { error: unknown }).error)).toContain('disk full');
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('disk full');
  });

  it('should refuse a subset naming a tool the server does not have', async () => {
    await expect(mcpTaskTools(tasks, { tools: ['nope'] })).rejects.toThrow(/lists no tool 'nope'/);
  });
});

describe('mcpTaskTools for the AI SDK (background mode)', () => {
  onTarget(TARGETS[0], 'ai-sdk-agent', (t) => (tasks = t));
  it('should start long_job, follow it with task_status and collect it with task_result', async () => {
    const model = backgroundModel();
    const tools = await mcpTaskTools(tasks, { mode: 'background', tools: ['long_job'] });
    expect(Object.keys(tools).sort()).toEqual(['long_job', 'task_cancel', 'task_respond', 'task_result', 'task_status']);
    const result = await generateText({ model, tools, prompt: 'start the long job and collect it', stopWhen: stepCountIs(40) });
    const calls = result.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName));
    expect(calls[0]).toBe('long_job');
    expect(calls).toContain('task_status');
    expect(calls.at(-1)).toBe('task_result');
    expect(result.text).toBe('collected');
  });
});


