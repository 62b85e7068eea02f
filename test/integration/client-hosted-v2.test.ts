/**
 * Client-hosted tasks on an SDK v2 `Client` (`attachTaskHostV2`): a v2 server's task-augmented
 * elicitation becomes a task of the client, polled with tasks/get and fetched with tasks/result;
 * listed and cancellable; a plain elicitation is still answered directly by the same answer.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { attachTaskHostV2 } from '../../adapters/mcp-client-v2/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';

const Any = z.looseObject({});
type Rec = Record<string, unknown>;

let runtime: TaskRuntime | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await runtime?.dispose();
});

/** A v2 server connected to a v2 client that hosts its elicitation answers as tasks. */
async function pair(answerMs: number): Promise<{ server: Server; asked: Rec[] }> {
  runtime = createTaskRuntime({ pollFrequency: 20 });
  const asked: Rec[] = [];
  client = new Client({ name: 'host', version: '1.0.0' });
  attachTaskHostV2(client, {
    runtime,
    elicitation: async (params, ctx) => {
      asked.push(params);
      await delay(answerMs, undefined, { signal: ctx.signal });
      return { action: 'accept', content: { name: 'Ada' } };
    },
  });
  const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return { server, asked };
}

const ELICIT = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
const ask = (server: Server, method: string, params: Rec): Promise<Rec> => server.request({ method, params } as never, Any);

describe('client-hosted tasks on an SDK v2 Client', () => {
  it('declares the task capability, answers a task-augmented elicitation with a task, and gives its result on tasks/result', async () => {
    const { server, asked } = await pair(200);
    expect(server.getClientCapabilities()).toMatchObject({ elicitation: {}, tasks: { requests: { elicitation: { create: {} } } } });
    const created = await ask(server, 'elicitation/create', { ...ELICIT, task: { ttl: 60_000 } });
    const task = created['task'] as Rec;
    expect(task).toMatchObject({ status: 'working' });
    const taskId = task['taskId'] as string;
    expect((await ask(server, 'tasks/list', {}))['tasks']).toEqual([expect.objectContaining({ taskId })]);
    const result = await ask(server, 'tasks/result', { taskId });
    expect(result).toMatchObject({ action: 'accept', content: { name: 'Ada' }, _meta: { 'io.modelcontextprotocol/related-task': { taskId } } });
    expect(await ask(server, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'completed' });
    // The work got the request's params without the task request.
    expect(asked).toEqual([expect.not.objectContaining({ task: expect.anything() })]);
    expect(asked[0]).toMatchObject({ message: 'Your name?' });
  });

  it('cancels a running client task', async () => {
    const { server } = await pair(60_000);
    const { task } = (await ask(server, 'elicitation/create', { ...ELICIT, task: { ttl: 60_000 } })) as { task: Rec };
    expect(await ask(server, 'tasks/cancel', { taskId: task['taskId'] })).toMatchObject({ taskId: task['taskId'], status: 'cancelled' });
  });

  it('answers a plain elicitation directly, with the same answer', async () => {
    const { server } = await pair(1);
    expect(await ask(server, 'elicitation/create', ELICIT)).toMatchObject({ action: 'accept', content: { name: 'Ada' } });
    expect((await ask(server, 'tasks/list', {}))['tasks']).toEqual([]);
  });

  it('refuses a task-augmented elicitation the SDK would refuse, with -32602 naming the field, and makes no task', async () => {
    const { server, asked } = await pair(1);
    await expect(ask(server, 'elicitation/create', { requestedSchema: ELICIT.requestedSchema, task: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/message/) });
    await expect(ask(server, 'elicitation/create', { ...ELICIT, task: { ttl: null } })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/task\.ttl/) });
    expect((await ask(server, 'tasks/list', {}))['tasks']).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('refuses an unknown task id with a clear error', async () => {
    const { server } = await pair(1);
    await expect(ask(server, 'tasks/get', { taskId: 'nope' })).rejects.toThrow(/Task not found/);
  });
});
