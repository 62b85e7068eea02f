/**
 * Agents delegating to agents: agent A calls agent B's `research` tool as a task. Mid-task, B asks
 * A a clarifying question (elicitation) and borrows A's model (sampling); A keeps doing its own
 * work while it follows the task, then prints B's report. Both agents run in this one process,
 * linked by the SDK's in-memory transport; over HTTP or stdio the code is the same.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TaskClient } from 'mcp-task-actors/adapters/mcp-client';
import { createTaskServer } from 'mcp-task-actors/adapters/mcp-server';
import { createTaskRuntime, defineTaskTool } from 'mcp-task-actors';

/** Agent B's tool: research a topic, asking the caller which aspect matters and using its model. */
const research = defineTaskTool({
  name: 'research',
  description: 'Researches a topic; asks which aspect matters, and uses your model to write it up.',
  inputSchema: z.object({ topic: z.string() }),
  taskSupport: 'required',
  run: async ({ topic }, ctx) => {
    ctx.setStatusMessage('reading sources');
    await delay(30, undefined, { signal: ctx.signal });
    const question = await ctx.elicit({
      message: `Which aspect of ${topic} should I focus on?`,
      requestedSchema: { type: 'object', properties: { aspect: { type: 'string' } }, required: ['aspect'] },
    });
    const aspect = question.action === 'accept' ? String(question.content?.['aspect'] ?? 'everything') : 'everything';
    ctx.setStatusMessage(`writing up ${aspect}`);
    const draft = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `Write one sentence on the ${aspect} of ${topic}.` } }],
      maxTokens: 100,
    });
    const text = !Array.isArray(draft.content) && draft.content.type === 'text' ? draft.content.text : '';
    return { content: [{ type: 'text', text: `Report on ${topic} (${aspect}): ${text}` }] };
  },
});

/** Runs both agents; returns what agent A saw. */
export async function main(): Promise<{ report: string; statuses: string[]; otherWork: number }> {
  // Agent B: a task server on its own runtime.
  const runtimeB = createTaskRuntime();
  const agentB = createTaskServer({ name: 'agent-b', version: '1.0.0' }, { runtime: runtimeB, tools: [research] });

  // Agent A: a client that can answer questions and lend its model.
  const agentA = new Client({ name: 'agent-a', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  agentA.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { aspect: 'failure modes' } }));
  agentA.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const prompt = request.params.messages[0]?.content;
    const asked = prompt && !Array.isArray(prompt) && prompt.type === 'text' ? prompt.text : '';
    return { role: 'assistant', model: 'agent-a-model', content: { type: 'text', text: `(A's model on "${asked}") Retries hide them.` } };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([agentB.connect(b), agentA.connect(a)]);

  // A delegates, then keeps working while the task runs.
  // The dialect is negotiated: B declares 2025-11-25 tasks and lists `research` as a task tool.
  const tasks = new TaskClient(agentA, { pollFrequency: 20 });
  const call = tasks.callTool({ name: 'research', arguments: { topic: 'distributed queues' } }, { ttl: 60_000 });
  const statuses: string[] = [];
  void (async () => {
    for await (const update of call.updates()) if (update.type === 'status' && statuses.at(-1) !== update.task.status) statuses.push(update.task.status);
  })();
  let finished = false;
  const outcome = call.result().finally(() => (finished = true));
  let otherWork = 0;
  while (!finished) {
    otherWork++; // A's own work: here, just counting
    await delay(5);
  }
  const result = await outcome;
  const first = result.content[0];
  await agentA.close();
  await runtimeB.dispose();
  return { report: first?.type === 'text' ? first.text : '', statuses, otherWork };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { report, statuses, otherWork } = await main();
  console.log(`statuses seen by A: ${statuses.join(' → ')}`);
  console.log(`A did ${otherWork} units of its own work meanwhile`);
  console.log(report);
}
