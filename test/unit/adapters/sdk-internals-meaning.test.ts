// What each accessor of sdk-internals means, shown on real SDK peers talking over the SDK's
// in-memory transport (and its web-standard HTTP transport): the start-up check can only see
// kinds and what needs no I/O, these see the fields doing their job.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, ListToolsRequestSchema, PingRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  awaitsResponse,
  isHandlingRequest,
  markSessionInitialized,
  notificationHandler,
  readSdkField,
  restoreClientInfo,
  sdkCancelHandler,
  setNextRequestId,
} from '../../../adapters/mcp-server/sdk-internals.js';

const info = { name: 't', version: '0' };
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function pair(): Promise<{ server: Server; client: Client; sent: JSONRPCMessage[] }> {
  const server = new Server(info, { capabilities: { tools: {} } });
  const client = new Client(info);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => (sent.push(message), send(message, options));
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closing.push(() => client.close(), () => server.close());
  return { server, client, sent };
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('sdk-internals accessors on real SDK peers', () => {
  it('should send the next request with the id set, and know while it awaits the answer', async () => {
    const { server, client, sent } = await pair();
    const answer = gate();
    client.setRequestHandler(PingRequestSchema, async () => (await answer.wait, {}));
    setNextRequestId(server, 4242);
    const ping = server.ping();
    await vi.waitFor(() => expect(sent.some((m) => 'id' in m && m.id === 4242)).toBe(true));
    expect(awaitsResponse(server, 4242)).toBe(true);
    expect(awaitsResponse(server, 4243)).toBe(false);
    answer.open();
    await ping;
    expect(awaitsResponse(server, 4242)).toBe(false);
  });

  it('should see a request being handled, and abort it through the SDK cancel', async () => {
    const { server, client } = await pair();
    const release = gate();
    let seen: { id: string | number; signal: AbortSignal } | undefined;
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      seen = { id: extra.requestId, signal: extra.signal };
      await release.wait;
      return { tools: [] };
    });
    const listing = client.listTools();
    await vi.waitFor(() => expect(seen).toBeDefined());
    const { id, signal } = seen!;
    expect(isHandlingRequest(server, id)).toBe(true);
    expect(isHandlingRequest(server, `${id}-other`)).toBe(false);
    await sdkCancelHandler(server)({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'test' } });
    expect(signal.aborted).toBe(true);
    release.open();
    // An aborted request gets no answer: the client's call ends only with the connection.
    await client.close();
    await expect(listing).rejects.toThrow();
  });

  it('should hand back the notification handler someone installed before', async () => {
    const { client } = await pair();
    const handled = vi.fn();
    client.setNotificationHandler(z.object({ method: z.literal('notifications/tasks/created'), params: z.looseObject({}) }), handled);
    await notificationHandler(client, 'notifications/tasks/created')?.({ method: 'notifications/tasks/created', params: { x: 1 } });
    expect(handled).toHaveBeenCalledWith({ method: 'notifications/tasks/created', params: { x: 1 } });
    expect(notificationHandler(client, 'notifications/none')).toBeUndefined();
  });

  it('should make a transport accept requests of a session it never saw initialized', async () => {
    const server = new Server(info, { capabilities: {} });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 's-1', enableJsonResponse: true });
    await server.connect(transport);
    closing.push(() => server.close());
    // The outer transport speaks node's http; the web-standard one it wraps takes a Request.
    const inner = readSdkField(transport, '_webStandardTransport') as { handleRequest(request: Request): Promise<Response> };
    const ping = (): Promise<Response> =>
      inner.handleRequest(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 's-1', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        }),
      );
    expect((await ping()).status).toBe(400);
    markSessionInitialized(transport, 's-1');
    const answered = await ping();
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(transport.sessionId).toBe('s-1');
    const capabilities = { sampling: {} };
    restoreClientInfo(server, capabilities, { name: 'c', version: '1' });
    expect(server.getClientCapabilities()).toBe(capabilities);
    expect(server.getClientVersion()).toEqual({ name: 'c', version: '1' });
  });
});
