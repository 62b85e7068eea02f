/**
 * Delegation end to end, with a lost worker. Agent A is an AI SDK agent (`generateText`; its model
 * here is the AI SDK's own scripted `MockLanguageModelV4`, a real provider in production) whose
 * tools are agent B's, through `mcpTaskTools`. Agent B is an MCP task server on NATS: a front
 * node serves MCP, worker nodes run the work. B's `plan_trip` is a durable machine handler
 * (`retry: 'resume'`): it asks A where to go (elicitation, answered by A's `onInputRequest`),
 * then books in steps. B's worker dies mid-booking (its NATS connection is cut, as when its
 * process is killed); another worker resumes the machine from its last checkpoint, without
 * asking again nor redoing the legs already booked; A's tool call simply gets the answer.
 *
 * All nodes run in this one process for brevity; in production each is its own program. Needs a
 * nats-server with JetStream (`nats-server -js`).
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { assign, emit, fromPromise, setup } from 'xstate';
import { z } from 'zod';
import { defineTaskTool, handlerStatus, machineHandler, registerTaskWork, type CallToolResult, type ElicitResult, type HandlerStatusEvent, type RequestWorkContext } from 'mcp-task-actors';
import { mcpTaskTools } from 'mcp-task-actors/ai-sdk';
import { TaskClient } from 'mcp-task-actors/adapters/mcp-client';
import { attachTaskServer } from 'mcp-task-actors/adapters/mcp-server';
import { createNatsTaskRuntime, type NatsTaskRuntime } from 'mcp-task-actors/nats';

const LEGS = 4;

/** B's job as a machine: ask where to, then book one leg per state entry (each one a checkpoint). */
const tripMachine = setup({
  types: {
    input: {} as { readonly traveller: string },
    context: {} as { readonly traveller: string; readonly city: string | null; readonly leg: number },
    output: {} as CallToolResult,
    emitted: {} as HandlerStatusEvent,
  },
  // Provided per run (it needs the run's context to ask the requester).
  actors: { ask: fromPromise<ElicitResult>(() => Promise.reject(new Error('provided per run'))) },
  delays: { leg: 150 },
}).createMachine({
  id: 'plan_trip',
  context: ({ input }) => ({ traveller: input.traveller, city: null, leg: 0 }),
  initial: 'asking',
  states: {
    asking: {
      invoke: {
        src: 'ask',
        onDone: { target: 'booking', actions: assign({ city: ({ event }) => (event.output.action === 'accept' ? String(event.output.content?.['city']) : 'nowhere'), leg: 1 }) },
      },
    },
    booking: {
      entry: emit(({ context }) => handlerStatus(`booking leg ${context.leg}/${LEGS} to ${context.city}`)),
      after: { leg: [{ guard: ({ context }) => context.leg < LEGS, target: 'booking', reenter: true, actions: assign({ leg: ({ context }) => context.leg + 1 }) }, { target: 'done' }] },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ content: [{ type: 'text', text: `Booked ${context.traveller} ${LEGS} legs to ${context.city}` }] }),
});

/** Each run of `plan_trip` on B's workers: which attempt, and the checkpoint it resumed from. */
const runs: { attempt: number; resumedFrom: string | null }[] = [];

// tools.ts (agent B): shared by its front and its workers.
const planTrip = defineTaskTool({
  name: 'plan_trip',
  description: 'Plans a trip: asks where to, then books it leg by leg.',
  inputSchema: z.object({ traveller: z.string() }),
  taskSupport: 'required',
  // A worker lost mid-job: another one restores the machine from its last checkpoint.
  retry: 'resume',
  run: (args, ctx) => {
    runs.push({ attempt: ctx.attempt ?? 1, resumedFrom: ctx.resumeFrom?.label ?? null });
    return handler(args, ctx);
  },
});
const handler = machineHandler(tripMachine, {
  provide: (ctx: RequestWorkContext) => ({
    actors: {
      ask: fromPromise(() =>
        ctx.elicit({ message: 'Where to?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }),
      ),
    },
  }),
});

/**
 * How long a worker's hold on a running task lasts without renewal: short, so that the lost
 * worker's task moves on soon, yet long enough that a busy machine renews it in time (at 600 ms a
 * loaded 2-core CI machine let a live worker's lease lapse now and then).
 */
const LEASE_TTL_MS = 2_000;

/** A worker node of agent B (its own program in production). */
async function startWorker(servers: string, prefix: string): Promise<NatsTaskRuntime> {
  const runtime = await createNatsTaskRuntime({ nats: { servers }, prefix, role: 'worker', leaseTtlMs: LEASE_TTL_MS });
  registerTaskWork(runtime, { tools: [planTrip] });
  return runtime;
}

/** A's model, scripted: call B's tool, then answer with what it returned. */
function scriptedModel(): MockLanguageModelV4 {
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      if (step++ === 0) {
        const input = JSON.stringify({ traveller: 'Ada' });
        return { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'plan_trip', input }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
      }
      const said = /Booked[^"\\]*/.exec(JSON.stringify(prompt))?.[0] ?? 'nothing booked';
      return { content: [{ type: 'text', text: `Done: ${said}.` }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
}

/** Runs agent B (a front and two workers, one after the other) and agent A; returns what happened. */
export async function main(
  servers = 'nats://127.0.0.1:4222',
  prefix = 'example08',
): Promise<{ text: string; toolOutput: unknown; asked: string[]; runs: { attempt: number; resumedFrom: string | null }[]; statuses: string[] }> {
  runs.length = 0;
  // Agent B: a front that serves MCP and runs nothing, and a first worker.
  const front = await createNatsTaskRuntime({ nats: { servers }, prefix, role: 'front', leaseTtlMs: LEASE_TTL_MS });
  const server = new Server({ name: 'agent-b', version: '1.0.0' });
  attachTaskServer(server, { runtime: front, tools: [planTrip] });
  const first = await startWorker(servers, prefix);
  let second: NatsTaskRuntime | undefined;

  // The loss: at leg 2, the first worker's connection is cut (no drain, no hand-over), and a
  // replacement worker starts; the front sees the lease run out and the task is resumed there.
  const statuses: string[] = [];
  let lost: Promise<void> | undefined;
  const stop = front.subscribe(({ task }) => {
    if (task.statusMessage !== null && statuses.at(-1) !== task.statusMessage) statuses.push(task.statusMessage);
    if (lost === undefined && task.statusMessage?.startsWith('booking leg 2/') === true) {
      lost = first.connection.close().then(async () => void (second = await startWorker(servers, prefix)));
    }
  });

  // Agent A: an AI SDK agent whose tools are B's, answering B's question itself.
  const client = new Client({ name: 'agent-a', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  const tasks = new TaskClient(client, { pollFrequency: 50 });
  const asked: string[] = [];
  const tools = await mcpTaskTools(tasks, {
    tools: ['plan_trip'],
    onInputRequest: async ({ method, params }, { toolName }) => {
      asked.push(`${toolName}: ${String((params as { message?: unknown }).message)}`);
      return method === 'elicitation/create' ? { action: 'accept', content: { city: 'Lisbon' } } : { action: 'decline' };
    },
  });
  try {
    const result = await generateText({ model: scriptedModel(), tools, prompt: 'Plan a trip for Ada.', stopWhen: stepCountIs(3) });
    return { text: result.text, toolOutput: result.steps[0]?.toolResults[0]?.output, asked, runs: [...runs], statuses };
  } finally {
    stop();
    await lost;
    tasks.dispose();
    await client.close();
    await Promise.allSettled([front.dispose(), first.dispose(), second?.dispose()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await main(process.argv[2]));
}
