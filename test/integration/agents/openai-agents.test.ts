/**
 * `mcp-task-actors/openai-agents` with the OpenAI Agents SDK's own scripted model (`ScriptedModel`
 * from `@openai/agents-core/testing`) driving its real agent loop (`Agent` + `Runner.run`) against a
 * real `serve` on memory: await mode returns the result, the run's abort signal cancels the task on
 * the server, `ask_name` is answered through `onInputRequest`, a failed tool is a tool error whose
 * message the model reads, and background mode starts, follows and collects `long_job`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, Runner } from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall, modelResponder, type RecordedModelCall } from '@openai/agents-core/testing';
import type { TaskClient } from '../../../adapters/mcp-client/index.js';
import { mcpTaskTools } from '../../../adapters/agents/openai-agents/index.js';
import { onTarget, stopSharedNats, TARGETS } from './agent-target.js';
import { serverShowsCancelled, workingLongJob } from './until.js';

let tasks: TaskClient;
const runner = new Runner({ tracingDisabled: true });
afterAll(async () => {
  await stopSharedNats();
});

let seq = 0;
const call = (name: string, args: Record<string, unknown>) => [functionCall(name, args, { callId: `call-${++seq}` })];
const say = (text: string) => [assistantMessage(text)];
/** The outputs of the function calls the model was shown, in order. */
const toolOutputs = (recorded: RecordedModelCall | undefined): string[] =>
  (Array.isArray(recorded?.request.input) ? recorded.request.input : [])
    .filter((item) => item.type === 'function_call_result')
    .map((item) => {
      const output = (item as { output: unknown }).output;
      return typeof output === 'string' ? output : ((output as { text?: string }).text ?? JSON.stringify(output));
    });

describe.each(TARGETS)('mcpTaskTools for the OpenAI Agents SDK (await mode) against $name', (target) => {
  onTarget(target, 'openai-agents-agent', (t) => (tasks = t));
  it('should run sleep as a task in the agent loop and hand its result to the model', async () => {
    const model = new ScriptedModel([call('sleep', { ms: 100 }), say('It slept.')]);
    const agent = new Agent({ name: 'sleeper', model, tools: await mcpTaskTools(tasks, { tools: ['sleep'] }) });
    const result = await runner.run(agent, 'sleep 100 ms');
    expect(result.finalOutput).toBe('It slept.');
    expect(toolOutputs(model.lastCall)).toEqual(['slept 100 ms']);
    model.assertComplete();
  });

  it('should cancel the task on the server when the run is aborted', async () => {
    const stop = new AbortController();
    const model = new ScriptedModel([call('long_job', { seconds: 30 }), say('never')]);
    const agent = new Agent({ name: 'worker', model, tools: await mcpTaskTools(tasks, { tools: ['long_job'] }) });
    const running = runner.run(agent, 'long', { signal: stop.signal });
    running.catch(() => undefined);
    const taskId = await workingLongJob(tasks);
    stop.abort();
    await expect(running).rejects.toThrow();
    expect(await serverShowsCancelled(tasks, taskId)).toBe(true);
  });

  it('should answer ask_name through onInputRequest', async () => {
    const asked: string[] = [];
    const model = new ScriptedModel([call('ask_name', {}), say('ok')]);
    const tools = await mcpTaskTools(tasks, {
      tools: ['ask_name'],
      onInputRequest: async ({ method }, { toolName }) => {
        asked.push(`${toolName}:${method}`);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    await runner.run(new Agent({ name: 'greeter', model, tools }), 'greet');
    expect(toolOutputs(model.lastCall)).toEqual(['Hello, Ada']);
    expect(asked).toEqual(['ask_name:elicitation/create']);
  });

  it('should turn a failed tool into a tool error whose message the model reads', async () => {
    const model = new ScriptedModel([call('fail', { message: 'disk full' }), say('sorry')]);
    const result = await runner.run(new Agent({ name: 'failer', model, tools: await mcpTaskTools(tasks, { tools: ['fail'] }) }), 'fail');
    expect(result.finalOutput).toBe('sorry');
    expect(toolOutputs(model.lastCall)).toEqual([expect.stringContaining('disk full')]);
  });

  it('should refuse a subset naming a tool the server does not have', async () => {
    await expect(mcpTaskTools(tasks, { tools: ['nope'] })).rejects.toThrow(/lists no tool 'nope'/);
  });
});

describe('mcpTaskTools for the OpenAI Agents SDK (background mode)', () => {
  onTarget(TARGETS[0], 'openai-agents-agent', (t) => (tasks = t));
  it('should start long_job, follow it with task_status and collect it with task_result', async () => {
    // The scripted model reads the task id from the tool's answer, then polls until it ended.
    const respond = async (recorded: RecordedModelCall) => {
      const outputs = toolOutputs(recorded).join('\n');
      const taskId = /"taskId":"([0-9a-f-]{36})"/.exec(outputs)?.[1];
      if (taskId === undefined) return call('long_job', { seconds: 1 });
      if (/long_job done in 1 s/.test(outputs)) return say('collected');
      if (/"status":"completed"/.test(outputs)) return call('task_result', { taskId });
      await new Promise((resolve) => setTimeout(resolve, 200));
      return call('task_status', { taskId });
    };
    const model = new ScriptedModel(Array.from({ length: 40 }, () => modelResponder(respond)));
    const tools = await mcpTaskTools(tasks, { mode: 'background', tools: ['long_job'] });
    expect(tools.map((t) => t.name).sort()).toEqual(['long_job', 'task_cancel', 'task_respond', 'task_result', 'task_status']);
    const result = await runner.run(new Agent({ name: 'dispatcher', model, tools }), 'start the long job and collect it', { maxTurns: 40 });
    const calls = result.newItems.filter((item) => item.type === 'tool_call_item').map((item) => (item.rawItem as { name: string }).name);
    expect(calls[0]).toBe('long_job');
    expect(calls).toContain('task_status');
    expect(calls.at(-1)).toBe('task_result');
    expect(result.finalOutput).toBe('collected');
  });
});
