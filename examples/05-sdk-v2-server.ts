/**
 * Tasks in an SDK v2 server: a `McpServer` of `@modelcontextprotocol/server` 2.x hosts one tool
 * of its own as a task (`book_room`, which asks the requester for a name half-way through), on
 * the 2026-07-28 wire through the tasks extension. The requester is the official one,
 * `@modelcontextprotocol/ext-tasks` on a v2 `Client`: it calls the tool, answers the elicitation
 * through its application input handler, and prints the result.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createApplicationInputHandler, createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createRawDispatch } from 'mcp-task-actors/adapters/mcp-client-v2';
import { attachTaskServerV2, createTaskHttpHandlerV2, toNodeListener } from 'mcp-task-actors/adapters/mcp-server-v2';
import { createTaskRuntime, defineTaskTool } from 'mcp-task-actors';

/** A tool of our own: books a room after asking whom for. Runs as a task only. */
const bookRoom = defineTaskTool({
  name: 'book_room',
  description: 'Books a meeting room; asks whom it is for.',
  inputSchema: z.object({ room: z.string() }),
  taskSupport: 'required',
  run: async ({ room }, ctx) => {
    ctx.setStatusMessage('checking the calendar');
    const answer = await ctx.elicit({
      message: `Who is ${room} for?`,
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    const name = answer.action === 'accept' ? String(answer.content?.['name']) : 'nobody';
    return { content: [{ type: 'text', text: `${room} booked for ${name}` }] };
  },
});

/** Runs the example and returns what the requester saw. */
export async function main(): Promise<{ result: string; asked: string[] }> {
  // The server side: one runtime, a v2 server per request (2026-07-28) or session (2025-11-25).
  const runtime = createTaskRuntime();
  const endpoint = createTaskHttpHandlerV2(() => {
    const server = new McpServer({ name: 'rooms', version: '1.0.0' });
    attachTaskServerV2(server, { runtime, tools: [bookRoom] });
    return server;
  });
  const http = createServer(toNodeListener(endpoint));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

  // The requester: a v2 client on the 2026-07-28 wire, and ext-tasks over it.
  const clientInfo = { name: 'front-desk', version: '1.0.0' };
  const clientCapabilities = { elicitation: {} };
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const asked: string[] = [];
  const tasks = createTaskSessionFromClient(client, {
    endpointId: 'rooms',
    // The v2 Client refuses `resultType: "task"`: task traffic goes through this raw path.
    rawDispatch: createRawDispatch(url),
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo, clientCapabilities },
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request: { params: { message: string } }) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    } as never),
  });
  try {
    const execution = await tasks.callTool('book_room', { room: 'Room 4' }, { task: { preference: 'require' } });
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as { content: { type: string; text: string }[] };
    return { result: result.content[0]!.text, asked };
  } finally {
    await tasks.close();
    await client.close();
    await endpoint.close();
    http.closeAllConnections();
    http.close();
    await runtime.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await main());
}
