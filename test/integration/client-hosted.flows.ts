/**
 * Client-hosted tasks: a v1 SDK `Client` with `attachTaskHost` answers a server's task-augmented
 * elicitation and sampling requests, and the server polls them with `requestClientTask`. The
 * client's runtime comes from a {@link HostRuntimeFactory}, so the same tests run on the memory
 * backend and on NATS (client runtime on a front node, the work on a separate worker runtime).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateMessageResultSchema, ElicitRequestSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { attachTaskHost, type TaskHostOptions } from '../../adapters/mcp-client/task-host.js';
import { requestClientTask } from '../../adapters/mcp-server/index.js';
import type { TaskRuntime } from '../../runtime/index.js';

/** Where a task-hosting client keeps its tasks. */
export interface HostRuntimes {
  /** The runtime the client serves its tasks/* methods from. */
  readonly runtime: TaskRuntime;
  /**
   * Further runtimes that run the client's work (worker nodes): they get the same answers
   * registered, as a worker process registers the same definitions as its front. Empty when
   * `runtime` runs the work itself.
   */
  readonly workers: readonly TaskRuntime[];
  /** Disposes every runtime. */
  dispose(): Promise<void>;
}

/** Makes fresh runtimes for one test, with the given suggested poll interval. */
export type HostRuntimeFactory = (options: { pollFrequency: number }) => Promise<HostRuntimes>;

export function defineClientHostedFlows(name: string, makeRuntimes: HostRuntimeFactory): void {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  async function pair(client: Client): Promise<Server> {
    const server = new Server({ name: 'asker', version: '0' }, { capabilities: {} });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    cleanups.push(() => client.close());
    return server;
  }

  /** A client that hosts its answers as tasks; elicitation takes 300 ms so that polling sees it working. */
  async function taskHostingClient(): Promise<{ server: Server; runtime: TaskRuntime; seen: unknown[] }> {
    const runtimes = await makeRuntimes({ pollFrequency: 50 });
    cleanups.push(() => runtimes.dispose());
    const { runtime } = runtimes;
    const seen: unknown[] = [];
    const answers: Omit<TaskHostOptions, 'runtime'> = {
      elicitation: async (params, ctx) => {
        seen.push(params);
        ctx.setStatusMessage('asking the user');
        await delay(300, undefined, { signal: ctx.signal });
        return { action: 'accept', content: { name: 'Ada' } };
      },
      sampling: async () => ({ role: 'assistant', model: 'canned', content: { type: 'text', text: 'summary' } }),
    };
    const client = new Client({ name: 'host', version: '0' });
    attachTaskHost(client, { runtime, ...answers });
    // A worker registers the same answers through a client that is never connected.
    for (const worker of runtimes.workers) attachTaskHost(new Client({ name: 'host-worker', version: '0' }), { runtime: worker, ...answers });
    return { server: await pair(client), runtime, seen };
  }

  const elicit = { method: 'elicitation/create' as const, params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } };
  const sample = { method: 'sampling/createMessage' as const, params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } };
  const owner = { session: null, principal: null };

  describe(`client-hosted tasks (${name})`, () => {
    for (const dialect of ['2025-11-25', 'sep-1686'] as const) {
      it(`should poll a ${dialect} elicitation task hosted by the client to its result`, async () => {
        const { server, runtime, seen } = await taskHostingClient();
        const statuses: string[] = [];
        const answer = await requestClientTask(server, elicit, ElicitResultSchema, { dialect, onStatus: (t) => statuses.push(String(t['status'])) });
        expect(answer).toMatchObject({ action: 'accept', content: { name: 'Ada' } });
        expect(statuses).toContain('working');
        // The task lives in the client's runtime, in the dialect it was asked in, and the work saw clean params.
        const { tasks } = await runtime.list(owner);
        expect(tasks).toHaveLength(1);
        expect(tasks[0]).toMatchObject({ dialect, method: 'elicitation/create', status: 'completed' });
        expect(seen[0]).toEqual(elicit.params);
      });

      it(`should host a ${dialect} sampling task`, async () => {
        const { server, runtime } = await taskHostingClient();
        const reply = await requestClientTask(server, sample, CreateMessageResultSchema, { dialect });
        expect(reply.content).toEqual({ type: 'text', text: 'summary' });
        expect((await runtime.list(owner)).tasks[0]).toMatchObject({ dialect, method: 'sampling/createMessage' });
      });
    }

    it('should pick 2025-11-25 automatically when the client declares task support for the method', async () => {
      const { server, runtime } = await taskHostingClient();
      await requestClientTask(server, elicit, ElicitResultSchema);
      expect((await runtime.list(owner)).tasks[0]?.dialect).toBe('2025-11-25');
    });

    it('should fall back to the direct response with a plain SDK client that has no task support', async () => {
      const client = new Client({ name: 'plain', version: '0' }, { capabilities: { elicitation: {} } });
      let asked = 0;
      client.setRequestHandler(ElicitRequestSchema, async () => {
        asked++;
        return { action: 'accept', content: { name: 'Plain' } };
      });
      const server = await pair(client);
      const statuses: unknown[] = [];
      for (const dialect of ['auto', 'sep-1686', '2025-11-25'] as const) {
        const answer = await requestClientTask(server, elicit, ElicitResultSchema, { dialect, onStatus: (t) => statuses.push(t) });
        expect(answer).toMatchObject({ content: { name: 'Plain' } });
      }
      expect(asked).toBe(3);
      expect(statuses).toEqual([]); // never polled: there was no task
    });
  });
}
