/**
 * Malformed input on `serve --stdio` gets the JSON-RPC error that JSON-RPC 2.0 requires, naming
 * what was wrong: -32700 (id null) for a line that is not JSON, -32600 otherwise, echoing the id
 * when the message had one; a malformed notification gets nothing. The same answers from SDK v1
 * (`serve --stdio`) and SDK v2 (`serve --sdk v2 --stdio`, whose own stdio transport answers none
 * of them), on both eras, and the server still answers a valid request afterwards.
 */
import { describe, expect, it } from 'vitest';
import { killChild, spawnServe } from './harness/process.js';

type Message = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'stdio-garbage', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

/** Each malformed line and the reply it must get (none for a malformed notification). */
const GARBAGE: [line: string, reply: Message | undefined][] = [
  ['{not json', { id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: .+/) } }],
  ['{"foo":1}', { id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .+/) } }],
  ['{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":[1]}', { id: 7, error: { code: -32600, message: 'Invalid Request: params must be an object' } }],
  ['{"jsonrpc":"2.0","id":8}', { id: 8, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .+/) } }],
  ['[{"jsonrpc":"2.0","id":9,"method":"ping"}]', { id: null, error: { code: -32600, message: expect.stringContaining('batches are not supported') } }],
  ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', { id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .+/) } }],
  ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":3}', undefined],
];
const REPLIES = GARBAGE.flatMap(([, reply]) => (reply ? [reply] : []));

/** A line-delimited JSON-RPC peer on a spawned `serve --stdio [flags]`; every stdout line must be JSON. */
function stdioPeer(flags: readonly string[]) {
  const { child, tail } = spawnServe(['--stdio', '--audit', 'off', ...flags]);
  const seen: Message[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') seen.push(JSON.parse(line) as Message);
    }
  });
  const write = (line: string): void => void child.stdin.write(`${line}\n`);
  const answer = async (id: string): Promise<Message> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = seen.find((m) => m.id === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no answer to ${id} within 15 s; stdout so far: ${JSON.stringify(seen)}; stderr:\n${tail.toString().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const request = (id: string, method: string, params: Record<string, unknown>): Promise<Message> => {
    write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return answer(id);
  };
  /** Sends the malformed lines, then a valid request: the replies must come in that order, and nothing else. */
  const garbageThen = async (id: string, method: string, params: Record<string, unknown>): Promise<Message[]> => {
    const from = seen.length;
    for (const [line] of GARBAGE) write(line);
    await request(id, method, params);
    return seen.slice(from);
  };
  return { request, garbageThen, close: () => killChild(child) };
}

describe.each([
  ['serve --stdio (SDK v1)', []],
  ['serve --sdk v2 --stdio', ['--sdk', 'v2']],
])('malformed input on %s', (_name, flags) => {
  it('should answer each malformed line on 2025-11-25 with its JSON-RPC error, and still serve', async () => {
    const peer = stdioPeer(flags);
    try {
      const init = await peer.request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stdio-garbage', version: '1' } });
      expect(init.result).toMatchObject({ protocolVersion: '2025-11-25' });
      const replies = await peer.garbageThen('after', 'ping', {});
      expect(replies).toEqual([...REPLIES.map((r) => ({ jsonrpc: '2.0', ...r })), { jsonrpc: '2.0', id: 'after', result: {} }]);
      // The extension's checks are the 2026-07-28 wire's: on this era tasks/update does not exist.
      const update = await peer.request('update', 'tasks/update', { taskId: 'any', inputResponses: [] });
      expect(update.error?.code).toBe(-32601);
    } finally {
      await peer.close();
    }
  }, 30_000);

  it('should answer each malformed line on 2026-07-28 with its JSON-RPC error, before and after the opening, and still serve', async () => {
    const peer = stdioPeer(flags);
    try {
      const before = await peer.garbageThen('discover', 'server/discover', { _meta: ENVELOPE });
      expect(before.slice(0, -1)).toEqual(REPLIES.map((r) => ({ jsonrpc: '2.0', ...r })));
      expect(before.at(-1)?.result?.['capabilities']).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
      const after = await peer.garbageThen('list', 'tools/list', { _meta: ENVELOPE });
      expect(after.slice(0, -1)).toEqual(REPLIES.map((r) => ({ jsonrpc: '2.0', ...r })));
      expect(after.at(-1)).toMatchObject({ id: 'list', result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'sleep' })]) as unknown } });
    } finally {
      await peer.close();
    }
  }, 30_000);

  it('should refuse a tasks/update whose inputResponses is not a map (-32602) and task ids on subscriptions/listen without the extension (-32021)', async () => {
    const peer = stdioPeer(flags);
    try {
      const created = await peer.request('call', 'tools/call', { name: 'long_job', arguments: { seconds: 30 }, _meta: ENVELOPE });
      const taskId = created.result?.['taskId'];
      expect(typeof taskId).toBe('string');
      const update = await peer.request('update', 'tasks/update', { taskId, inputResponses: [], _meta: ENVELOPE });
      expect(update.error).toEqual({ code: -32602, message: 'Invalid params for tasks/update: inputResponses must map input request ids to responses' });
      const undeclared = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': {} };
      const listen = await peer.request('listen', 'subscriptions/listen', { notifications: { taskIds: [taskId] }, _meta: undeclared });
      expect(listen.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
      expect((await peer.request('cancel', 'tasks/cancel', { taskId, _meta: ENVELOPE })).error).toBeUndefined();
    } finally {
      await peer.close();
    }
  }, 30_000);
});
