/**
 * The official tasks requester, `@modelcontextprotocol/ext-tasks` on an SDK v2 `Client`, as a
 * test peer on either era, and the scenarios every server of ours must pass with it: call and
 * settle, cancel, input through its application input handler, and recovery of a serialized task
 * reference on a new connection.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createApplicationInputHandler, createTaskSessionFromClient, resultFromTaskOutcome, TaskCancelledError } from '@modelcontextprotocol/ext-tasks/client';
import { describe, expect, it } from 'vitest';
import { createRawDispatch } from '../../../adapters/mcp-client-v2/raw-dispatch.js';

/** `legacy`: the 2025-11-25 handshake; `modern`: the client pinned to 2026-07-28. */
export type Era = 'legacy' | 'modern';

type TaskSession = ReturnType<typeof createTaskSessionFromClient>;

/** What the peer's application input handler was asked, in order. */
export interface Asked {
  readonly elicitations: unknown[];
}

const CLIENT_INFO = { name: 'ext-tasks-peer', version: '1.0.0' };
const CAPABILITIES = { elicitation: {}, sampling: {} };

/**
 * Opens a v2 client on `url` and an ext-tasks session over it.
 *
 * @example
 * ```ts
 * const peer = await openPeer(url, 'modern', { token: 'tok-a' });
 * ```
 */
export async function openPeer(url: string, era: Era, options: { readonly token?: string } = {}): Promise<{ tasks: TaskSession; asked: Asked; close(): Promise<void>; drop(): Promise<void> }> {
  const headers: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  const client = new Client(CLIENT_INFO, { capabilities: CAPABILITIES, ...(era === 'modern' && { versionNegotiation: { mode: { pin: '2026-07-28' } } }) });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  expect(client.getProtocolEra()).toBe(era);
  const asked: Asked = { elicitations: [] };
  const onInputRequest = createApplicationInputHandler({
    elicitation: async (request: unknown) => {
      asked.elicitations.push(request);
      return { action: 'accept', content: { name: 'Ada' } };
    },
    sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'short' }, model: 'test-model' }),
    roots: async () => ({ roots: [] }),
  } as never);
  const framing =
    era === 'modern'
      ? { rawDispatch: createRawDispatch(url, { headers }), v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: CLIENT_INFO, clientCapabilities: CAPABILITIES } }
      : {};
  const tasks = createTaskSessionFromClient(client, { endpointId: 'server-under-test', onInputRequest, ...framing }) as TaskSession;
  return {
    tasks,
    asked,
    async close() {
      await tasks.close();
      await client.close();
    },
    /** The connection goes away with the session still open (a requester that crashed). */
    async drop() {
      await client.close();
    },
  };
}

const TASK = { task: { preference: 'require' } } as const;

/**
 * Registers the ext-tasks scenarios for one server on both eras. The server serves the demo
 * tools (`sleep`, `long_job`, `ask_name`) and accepts `token` as one principal.
 *
 * @example
 * ```ts
 * describeExtTasksPeer('the v2-embedded server (memory)', () => url, { token: 'tok-a' });
 * ```
 */
export function describeExtTasksPeer(title: string, url: () => string, options: { readonly token: string; readonly eras?: readonly Era[] }): void {
  for (const era of options.eras ?? (['legacy', 'modern'] as const)) {
    describe(`${title}, ext-tasks on the ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} wire`, () => {
      it('calls a tool as a task and settles it with the tool result', async () => {
        const peer = await openPeer(url(), era, options);
        try {
          const execution = await peer.tasks.callTool('sleep', { ms: 50 }, TASK);
          expect(execution.kind).toBe('task');
          const { outcome } = await execution.settle();
          expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'slept 50 ms' }] });
        } finally {
          await peer.close();
        }
      });

      it('cancels a running task: it settles cancelled', async () => {
        const peer = await openPeer(url(), era, options);
        try {
          const execution = await peer.tasks.callTool('long_job', { seconds: 30 }, TASK);
          expect(execution.kind).toBe('task');
          await execution.cancel();
          const settled = await execution.settle().then((s) => s.outcome as unknown, (e: unknown) => e);
          expect(settled instanceof TaskCancelledError || (settled as { status?: string }).status === 'cancelled', String(settled)).toBe(true);
        } finally {
          await peer.close();
        }
      });

      it('answers an elicitation through its application input handler', async () => {
        const peer = await openPeer(url(), era, options);
        try {
          const execution = await peer.tasks.callTool('ask_name', {}, TASK);
          expect(execution.kind).toBe('task');
          const { outcome } = await execution.settle();
          expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada' }] });
          // Asked once: neither two channels nor a resumed poll sent the question twice.
          expect(peer.asked.elicitations).toHaveLength(1);
          expect(JSON.stringify(peer.asked.elicitations[0])).toContain('What is your name?');
        } finally {
          await peer.close();
        }
      });

      it('recovers a serialized task reference on a new connection and settles it there', async () => {
        const first = await openPeer(url(), era, options);
        const execution = await first.tasks.callTool('sleep', { ms: 1500 }, TASK);
        if (execution.kind !== 'task') throw new Error('sleep did not become a task');
        // The requester's own recovery flow: persist the reference, let go of the task, and lose
        // the connection. (Not `close()`: ext-tasks 0.2.2 still cancels a handed-off 2026-07-28
        // task when its session closes.)
        let reference: unknown;
        await execution.handoff((r) => void (reference = JSON.parse(JSON.stringify(r))));
        await first.drop();
        const second = await openPeer(url(), era, options);
        try {
          const recovered = await second.tasks.resumeTask(reference as never);
          const { outcome } = await recovered.settle();
          expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: 'text', text: 'slept 1500 ms' }] });
        } finally {
          await second.close();
        }
      });
    });
  }
}
