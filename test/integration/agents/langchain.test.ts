/**
 * `mcp-task-actors/langchain` with LangChain's own scripted model (`fakeModel` from
 * `@langchain/core/testing`) driving LangGraph's real agent loop (`createReactAgent`, whose
 * `ToolNode` runs the tools) against a real `serve`: await mode returns the result, each update is
 * a custom event, the run's signal cancels the task on the server, background mode starts, follows
 * and collects `long_job`, `ask_name` is answered through `onInputRequest`, a failed tool is an
 * error `ToolMessage`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { Command, MemorySaver } from '@langchain/langgraph';
import type { TaskClient } from '../../../adapters/mcp-client/index.js';
import { MCP_TASK_UPDATE_EVENT, mcpTaskTools } from '../../../adapters/agents/langchain/index.js';
import { onTarget, stopSharedNats, TARGETS } from './agent-target.js';
import { serverShowsCancelled, workingLongJob } from './until.js';

let tasks: TaskClient;
afterAll(async () => {
  await stopSharedNats();
});

const toolMessages = (messages: BaseMessage[]): ToolMessage[] => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe.each(TARGETS)('mcpTaskTools for LangChain (await mode) against $name', (target) => {
  onTarget(target, 'langchain-agent', (t) => (tasks = t));
  it('should run sleep as a task in the agent loop and hand its result to the model', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'sleep', args: { ms: 100 } }]).respond(new AIMessage('It slept.'));
    const agent = createReactAgent({ llm, tools: await mcpTaskTools(tasks, { tools: ['sleep'] }) });
    const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'sleep' }] });
    expect(toolMessages(messages).map((m) => m.content)).toEqual(['slept 100 ms']);
    expect(messages.at(-1)!.content).toBe('It slept.');
  });

  it('should dispatch each update of long_job as a custom event', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'long_job', args: { seconds: 1 } }]).respond(new AIMessage('done'));
    const agent = createReactAgent({ llm, tools: await mcpTaskTools(tasks, { tools: ['long_job'] }) });
    const texts: string[] = [];
    for await (const event of agent.streamEvents({ messages: [{ role: 'user', content: 'go' }] }, { version: 'v2' })) {
      if (event.event === 'on_custom_event' && event.name === MCP_TASK_UPDATE_EVENT) texts.push(String((event.data as { text: string }).text));
    }
    // Some step's status message: which ones a poll sees depends on timing (a loaded machine skips some).
    expect(texts.some((t) => /^working: step \d+\/10$/.test(t)), JSON.stringify(texts)).toBe(true);
    expect(texts.some((t) => t.startsWith('partial '))).toBe(true);
  });

  it('should cancel the task on the server when the run is aborted', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'long_job', args: { seconds: 30 } }]).respond(new AIMessage('never'));
    const agent = createReactAgent({ llm, tools: await mcpTaskTools(tasks, { tools: ['long_job'] }) });
    const stop = new AbortController();
    const running = agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { signal: stop.signal });
    running.catch(() => undefined);
    const taskId = await workingLongJob(tasks);
    stop.abort();
    await expect(running).rejects.toThrow();
    expect(await serverShowsCancelled(tasks, taskId)).toBe(true);
  });

  it('should answer ask_name through onInputRequest', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'ask_name', args: {} }]).respond(new AIMessage('ok'));
    const tools = await mcpTaskTools(tasks, { tools: ['ask_name'], onInputRequest: async () => ({ action: 'accept', content: { name: 'Lin' } }) });
    const { messages } = await createReactAgent({ llm, tools }).invoke({ messages: [{ role: 'user', content: 'greet' }] });
    expect(toolMessages(messages).map((m) => m.content)).toEqual(['Hello, Lin']);
  });

  it('should turn a failed tool into an error ToolMessage the model reads', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'fail', args: { message: 'disk full' } }]).respond(new AIMessage('sorry'));
    const { messages } = await createReactAgent({ llm, tools: await mcpTaskTools(tasks, { tools: ['fail'] }) }).invoke({ messages: [{ role: 'user', content: 'x' }] });
    const [message] = toolMessages(messages);
    expect(message!.status).toBe('error');
    expect(JSON.stringify(message!.content)).toContain("disk full");
    expect(JSON.stringify(llm.calls[1]!.messages)).toContain('disk full');
  });
});

describe('mcpTaskTools for LangChain: a question as a LangGraph interrupt', () => {
  onTarget(TARGETS[0], 'langchain-agent', (t) => (tasks = t));

  it('should interrupt the graph at ask_name, and on resume answer the same task rather than start another', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'ask_name', args: {} }]).respond(new AIMessage('greeted'));
    const agent = createReactAgent({ llm, tools: await mcpTaskTools(tasks, { tools: ['ask_name'], humanInTheLoop: 'interrupt' }), checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: 'hitl-1' } };
    const before = (await tasks.listTasks()).length;
    const first = (await agent.invoke({ messages: [{ role: 'user', content: 'greet me' }] }, thread)) as { __interrupt__?: { value: unknown }[] };
    expect(first.__interrupt__?.[0]?.value).toMatchObject({ toolName: 'ask_name', method: 'elicitation/create', params: { message: 'What is your name?' } });
    const waiting = (await tasks.listTasks()).slice(before);
    expect(waiting.map((t) => t.status)).toEqual(['input_required']);
    const resumed = await agent.invoke(new Command({ resume: { action: 'accept', content: { name: 'Kim' } } }), thread);
    expect(toolMessages(resumed.messages).map((m) => m.content)).toEqual(['Hello, Kim']);
    // One task, the one the first run started, now completed.
    const after = (await tasks.listTasks()).slice(before);
    expect(after.map((t) => [t.taskId, t.status])).toEqual([[waiting[0]!.taskId, 'completed']]);
  });
});

describe('mcpTaskTools for LangChain (background mode)', () => {
  onTarget(TARGETS[0], 'langchain-agent', (t) => (tasks = t));
  it('should start long_job, follow it with task_status and collect it with task_result', async () => {
    const llm = fakeModel().respondWithTools([{ name: 'long_job', args: { seconds: 1 } }]);
    // The scripted model reads the task id from the tool's answer, then polls until it ended.
    for (let i = 0; i < 30; i++) {
      llm.respond((messages) => {
        const seen = JSON.stringify(messages);
        const taskId = /\\"taskId\\":\\"([0-9a-f-]{36})\\"/.exec(seen)?.[1] ?? '';
        if (seen.includes('long_job done in 1 s')) return new AIMessage('collected');
        const ended = /\\"status\\":\\"completed\\"/.test(seen);
        return new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: ended ? "task_result" : "task_status", args: ended ? { taskId } : { taskId, waitMs: 2_000 } }] });
      });
    }
    const tools = await mcpTaskTools(tasks, { mode: 'background', tools: ['long_job'] });
    expect(tools.map((t) => t.name).sort()).toEqual(['long_job', 'task_cancel', 'task_respond', 'task_result', 'task_status']);
    const slowTools = tools.map((t) => t);
    const { messages } = await createReactAgent({ llm, tools: slowTools }).invoke({ messages: [{ role: 'user', content: 'start and collect' }] }, { recursionLimit: 100 });
    const called = toolMessages(messages).map((m) => m.name);
    expect(called[0]).toBe('long_job');
    expect(called).toContain('task_status');
    expect(called.at(-1)).toBe('task_result');
    expect(messages.at(-1)!.content).toBe('collected');
  });
});

