/**
 * Answer inline if fast, on the 2026-07-28 wire: `serve --inline-within 500` (SDK v2 and SDK v1,
 * memory and a NATS front + worker) answers a quick `tools/call` with its plain result and a slow
 * one with its task at the deadline, which `tasks/get` then follows to its result. A 2025-11-25
 * requester asked for a task and still gets one. A definition's own window wins over the
 * server's (the SDK v2 embedding over HTTP and SDK v1's stateless handler, in this process).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTaskTool } from '../../index.js';
import { createStatelessHandler } from '../../adapters/mcp-server/index.js';
import { attachTaskServerV2, createTaskHttpHandlerV2, toNodeListener } from '../../adapters/mcp-server-v2/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { EXT_VERSION, extWire, isTerminal, WITH_EXT, type ExtWire } from './harness/ext-wire.js';
import { attachHttpWire } from './harness/http-wire.js';
import { startFrontWorker, stopSharedNats, type FrontWorkerPair } from './harness/nats-front-worker.js';
import { assertCliBuilt, spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { create2025 } from './harness/task-calls.js';

const WINDOW_MS = 500;
/** What a loaded 2-core machine may add to the deadline, between the server's timer and the reply. */
const SLACK_MS = 1_000;

/** `tools/call` on the stateless wire, timed. */
async function timedCall(wire: ExtWire, name: string, args: Record<string, unknown>): Promise<{ result: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const result = await wire.call(name, args);
  return { result, ms: performance.now() - started };
}

/** The quick and the slow call against one server, and what each must answer. */
function describeInline(label: string, start: () => Promise<{ url: string; stderr: () => string; close: () => Promise<void> }>, checkRunner?: (taskId: string) => void): void {
  describe(label, () => {
    let server: { url: string; stderr: () => string; close: () => Promise<void> } | undefined;
    let wire: ExtWire;
    beforeAll(async () => {
      server = await start();
      wire = extWire(server.url);
    }, 40_000);
    afterAll(async () => {
      await server?.close();
    }, 30_000);

    it('should answer a sleep that ends within the window with its plain result', async () => {
      const { result } = await timedCall(wire, 'sleep', { ms: 50 });
      expect(result, server!.stderr()).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slept 50 ms' }] });
      expect(result['taskId']).toBeUndefined();
    }, 20_000);

    it('should answer a longer sleep with its task at the deadline, and tasks/get then gives its result', async () => {
      const { result, ms } = await timedCall(wire, 'sleep', { ms: 2_000 });
      expect(result, server!.stderr()).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String) as string });
      expect(ms).toBeGreaterThanOrEqual(WINDOW_MS - 5);
      expect(ms).toBeLessThan(WINDOW_MS + SLACK_MS);
      const taskId = String(result['taskId']);
      const done = await wire.until(taskId, isTerminal, 15_000);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'slept 2000 ms' }] } });
      checkRunner?.(taskId);
    }, 30_000);

    it('should still answer a 2025-11-25 request for a task with its task, however quick the work', async () => {
      const legacy = await attachHttpWire(server!.url, server!.stderr);
      try {
        const { taskId } = await create2025(legacy, 'sleep', { ms: 0 });
        expect(taskId).toEqual(expect.any(String));
      } finally {
        await legacy.close();
      }
    }, 20_000);
  });
}

const spawned = (sdk: string) => async () => {
  assertCliBuilt();
  const p: HttpServerProcess = await spawnHttpServer(['--sdk', sdk, '--inline-within', String(WINDOW_MS)]);
  return { url: p.url, stderr: () => p.stderr(), close: () => p.close() };
};

describeInline('serve --sdk v2 --inline-within 500', spawned('v2'));
describeInline('serve --sdk v1 --inline-within 500', spawned('v1'));

let pair: FrontWorkerPair | undefined;
describeInline(
  'serve --nats (front + worker) --inline-within 500',
  async () => {
    pair = await startFrontWorker(['--inline-within', String(WINDOW_MS)]);
    const started = pair;
    return { url: started.url, stderr: () => started.stderr(), close: () => started.close() };
  },
  // The front waited for the outcome; the worker ran the work.
  (taskId) => {
    expect(pair!.worker.taskRuns(taskId).length, pair!.stderr()).toBeGreaterThan(0);
    expect(pair!.front.taskRuns(taskId)).toEqual([]);
  },
);
afterAll(stopSharedNats, 30_000);

describe("a definition's own inlineWithinMs", () => {
  const instant = (name: string, inlineWithinMs?: number) =>
    defineTaskTool({
      name,
      inputSchema: z.object({}),
      ...(inlineWithinMs !== undefined && { inlineWithinMs }),
      run: () => Promise.resolve({ content: [{ type: 'text', text: `${name} done` }] }),
    });
  const tools = [instant('inherits'), instant('never_inline', 0), instant('inline', 1_000)];
  let runtime: TaskRuntime;
  beforeAll(() => {
    runtime = createTaskRuntime();
  });
  afterAll(async () => {
    await runtime.dispose();
  });

  it('should win over the SDK v2 server window (500 ms): 0 always answers a task', async () => {
    const endpoint = createTaskHttpHandlerV2(() => {
      const server = new McpServer({ name: 'inline-v2', version: '1.0.0' });
      attachTaskServerV2(server, { runtime, tools, inlineWithinMs: WINDOW_MS });
      return server;
    });
    const http = createServer(toNodeListener(endpoint));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const wire = extWire(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
      expect(await wire.call('inherits', {})).toMatchObject({ resultType: 'complete', content: [{ text: 'inherits done' }] });
      const task = await wire.call('never_inline', {});
      expect(task).toMatchObject({ resultType: 'task', taskId: expect.any(String) as string });
      expect(await wire.until(String(task['taskId']), isTerminal)).toMatchObject({ status: 'completed', result: { content: [{ text: 'never_inline done' }] } });
    } finally {
      await endpoint.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("should win over SDK v1's stateless handler with no server window: 1000 answers inline", async () => {
    const handle = createStatelessHandler({ runtime, info: { name: 'inline-v1', version: '1' }, tools });
    const meta = { 'io.modelcontextprotocol/protocolVersion': EXT_VERSION, 'io.modelcontextprotocol/clientCapabilities': WITH_EXT };
    const callTool = async (name: string) => {
      const reply = await handle({ id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }, { principal: null, signal: new AbortController().signal });
      if (!('body' in reply)) throw new Error('answered with a stream');
      return (reply.body as { result: Record<string, unknown> }).result;
    };
    expect(await callTool('inline')).toMatchObject({ resultType: 'complete', content: [{ text: 'inline done' }] });
    expect(await callTool('inherits')).toMatchObject({ resultType: 'task', taskId: expect.any(String) as string });
  });
});
