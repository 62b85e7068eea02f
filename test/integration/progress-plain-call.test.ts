/**
 * `ctx.progress` of work called plainly (not as a task), on both SDK lines embedded in a user's
 * `McpServer`, with a real client of the same line that asks for progress (`onprogress` adds a
 * `progressToken`): each increasing report arrives as `notifications/progress` before the result,
 * a report that does not increase is dropped, and a call without a token gets none.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { InMemoryTransport as InMemoryV2, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { attachTaskServer } from '../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../adapters/mcp-server-v2/index.js';
import { createTaskRuntime, defineTaskTool, type TaskRuntime } from '../../index.js';

interface Progress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** Reports 1..n of n, repeating each once (the repeat is dropped), then answers. */
const count = defineTaskTool({
  name: 'count',
  inputSchema: z.object({ n: z.number().int() }),
  taskSupport: 'optional',
  run: async ({ n }, ctx) => {
    const kept: boolean[] = [];
    for (let i = 1; i <= n; i++) kept.push(ctx.progress(i, n, `item ${i}`), ctx.progress(i, n, 'again'));
    return { content: [{ type: 'text', text: kept.join(',') }] };
  },
});

let runtime: TaskRuntime | null = null;
afterEach(async () => {
  await runtime?.dispose();
  runtime = null;
});

const STEPS = [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `item ${i}` }));

describe.each([
  [
    'SDK v1',
    async (rt: TaskRuntime) => {
      const server = new McpServerV1({ name: 's', version: '1' });
      attachTaskServer(server, { runtime: rt, tools: [count] });
      const client = new ClientV1({ name: 'c', version: '1' });
      const [a, b] = InMemoryV1.createLinkedPair();
      await Promise.all([server.connect(b), client.connect(a)]);
      return (onprogress?: (p: Progress) => void) => client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, onprogress ? { onprogress } : {});
    },
  ],
  [
    'SDK v2',
    async (rt: TaskRuntime) => {
      const server = new McpServerV2({ name: 's', version: '1' });
      attachTaskServerV2(server, { runtime: rt, tools: [count] });
      const client = new ClientV2({ name: 'c', version: '1' });
      const [a, b] = InMemoryV2.createLinkedPair();
      await Promise.all([server.connect(b), client.connect(a)]);
      return (onprogress?: (p: Progress) => void) => client.callTool({ name: 'count', arguments: { n: 3 } }, onprogress ? { onprogress } : {});
    },
  ],
] as const)('progress of a plain call (%s)', (_name, connect) => {
  it('should send each increasing report before the result, dropping the repeats', async () => {
    runtime = createTaskRuntime();
    const call = await connect(runtime);
    const seen: Progress[] = [];
    const result = (await call((p) => seen.push(p))) as { content: { text: string }[] };
    expect(seen).toEqual(STEPS);
    expect(result.content[0]!.text).toBe('true,false,true,false,true,false');
  });

  it('should send nothing to a call that carried no token (the reports are still checked)', async () => {
    runtime = createTaskRuntime();
    const call = await connect(runtime);
    const result = (await call()) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('false,false,false,false,false,false');
  });
});
