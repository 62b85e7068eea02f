/**
 * One SDK v1 server session over its Streamable HTTP transport, driven with raw JSON-RPC: what the
 * standalone-input tests need to watch a session's standalone GET stream (every message the
 * server sends unattached) while a requester polls `tasks/get`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { attachTaskServer } from '../../../adapters/mcp-server/attach-task-server.js';
import type { TaskToolDefinition } from '../../../adapters/wire/definitions.js';
import type { StandaloneInputOptions } from '../../../adapters/wire/standalone-inputs.js';
import type { TaskRuntime } from '../../../runtime/index.js';

/** A JSON-RPC message as the tests read it. */
 
export type Message = Record<string, any>;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 25 ms until it holds, for at most 5 s. */
export async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 25) {
    if (waited > 5_000) throw new Error(`not within 5 s: ${what}`);
    await sleep(25);
  }
}

const NAME = { type: 'object', properties: { name: { type: 'string' } } } as const;

/** `ask`: asks each of `questions` in turn (elicitation), then returns the answers. */
export function askTool(...questions: string[]): TaskToolDefinition<Record<string, never>> {
  return {
    name: 'ask',
    inputSchema: z.object({}),
    run: async (_args, ctx) => {
      const answers = [];
      for (const message of questions.length > 0 ? questions : ['name?']) answers.push(await ctx.elicit({ message, requestedSchema: NAME }));
      return { content: [{ type: 'text', text: JSON.stringify(answers.length === 1 ? answers[0] : answers) }] };
    },
  };
}

/** A session: its requests, what its standalone stream carried, its GET stream opened on demand. */
export interface StandaloneSession {
  post(body: unknown): Promise<Message | undefined>;
  /** Messages the standalone GET stream carried, in order. */
  readonly seen: Message[];
  /** Opens the standalone GET stream (done at start unless `stream: false`). */
  openStream(): Promise<void>;
  next(): number;
  close(): Promise<void>;
}

/**
 * Begins a session of principal `alice` on a fresh server over `runtime`.
 *
 * @example
 * ```ts
 * const a = await standaloneSession(runtime, { tools: [askTool()] });
 * ```
 */
export async function standaloneSession(
  runtime: TaskRuntime,
  options: { tools: TaskToolDefinition<Record<string, never>>[]; capabilities?: Record<string, unknown>; standaloneInput?: StandaloneInputOptions; stream?: boolean },
): Promise<StandaloneSession> {
  const authInfo = { token: 't', clientId: 'alice', scopes: [] };
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  attachTaskServer(server, { runtime, tools: options.tools, ...(options.standaloneInput && { standaloneInput: options.standaloneInput }) });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: true });
  await server.connect(transport);
  let sid: string | undefined;
  let id = 0;
  const headers = () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sid && { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }) });
  const post = async (body: unknown): Promise<Message | undefined> => {
    const res = await transport.handleRequest(new Request('http://x/mcp', { method: 'POST', headers: headers(), body: JSON.stringify(body) }), { authInfo });
    sid ??= res.headers.get('mcp-session-id') ?? undefined;
    return res.status === 202 ? undefined : ((await res.json()) as Message);
  };
  await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: options.capabilities ?? { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const seen: Message[] = [];
  const openStream = async (): Promise<void> => {
    const get = await transport.handleRequest(new Request('http://x/mcp', { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' } }), { authInfo });
    if (get.status !== 200) throw new Error(`GET stream refused: ${get.status}`);
    void (async () => {
      const reader = get.body!.getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += new TextDecoder().decode(value);
        const parts = buf.split('\n\n');
        buf = parts.pop()!;
        for (const p of parts) {
          const data = p.split('\n').find((l) => l.startsWith('data: '));
          if (data) seen.push(JSON.parse(data.slice(6)) as Message);
        }
      }
    })();
  };
  if (options.stream !== false) await openStream();
  return { post, seen, openStream, next: () => ++id, close: () => transport.close() };
}
