import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { JsonRpcStdioTransport, readLine, type JsonRpcStdioTransportOptions } from '../../adapters/mcp-server/stdio-transport.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

type Reply = { id: unknown; error?: { code: number; message: string } };

/** A transport on PassThrough streams; `write` hands it one chunk and lets it be read as one read. */
async function openTransport(options: JsonRpcStdioTransportOptions = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  stdout.setEncoding('utf8');
  let out = '';
  stdout.on('data', (text: string) => (out += text));
  const transport = new JsonRpcStdioTransport(stdin, stdout, options);
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (m) => messages.push(m);
  await transport.start();
  return {
    messages,
    replies: (): Reply[] => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Reply),
    async write(bytes: Buffer | string): Promise<void> {
      stdin.write(bytes);
      // A flowing PassThrough emits each write as its own 'data' event by the next turn.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const ping = (text: string): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { text } });

describe('stdio transport', () => {
  it('should answer unparseable, batch and malformed lines with JSON-RPC errors, and ignore malformed notifications', () => {
    expect(readLine('not json')).toMatchObject({ reply: { id: null, error: { code: -32700 } } });
    expect(readLine('[1,2]')).toMatchObject({ reply: { id: null, error: { code: -32600, message: expect.stringContaining('batches') } } });
    expect(readLine('{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":[]}')).toMatchObject({
      reply: { id: 7, error: { code: -32600, message: 'Invalid Request: params must be an object' } },
    });
    expect(readLine('{"jsonrpc":"2.0","method":"notifications/x","params":"bad"}')).toBeNull();
    expect(readLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  });

  it('should deliver characters split across reads intact (a 3-byte and a 4-byte one)', async () => {
    const t = await openTransport();
    const line = Buffer.from(`${ping('a€b😀c')}\n`, 'utf8');
    const euro = line.indexOf(Buffer.from('€'));
    const emoji = line.indexOf(Buffer.from('😀'));
    // Cut after the first byte of '€' (E2 | 82 AC) and after two bytes of '😀' (F0 9F | 98 80).
    for (const [from, to] of [[0, euro + 1], [euro + 1, emoji + 2], [emoji + 2, line.length]] as const) await t.write(line.subarray(from, to));
    expect(t.replies()).toEqual([]);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping', params: { text: 'a€b😀c' } }]);
  });

  it('should count the line limit in UTF-8 bytes, skip an oversized line to its end, and go on', async () => {
    const limit = 80;
    const t = await openTransport({ maxLineBytes: limit });
    const atLimit = ping('x'.repeat(limit - ping('').length)); // ASCII: bytes = UTF-16 units
    const multiByte = ping('€'.repeat(10)); // 10 UTF-16 units, 30 bytes
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    expect(multiByte.length).toBeLessThanOrEqual(limit);
    expect(Buffer.byteLength(multiByte)).toBeGreaterThan(limit);
    await t.write(`${atLimit}\r\n${multiByte}\n`);
    expect(t.messages).toEqual([JSON.parse(atLimit)]);
    expect(t.replies()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: line longer than ${limit} bytes` } }]);
    // An oversized line spread over reads is refused once, its tail is not read as a new line.
    const long = Buffer.from(ping('€'.repeat(30)), 'utf8');
    await t.write(long.subarray(0, 50));
    await t.write(long.subarray(50, 100));
    await t.write(Buffer.concat([long.subarray(100), Buffer.from(`\n${atLimit}\n`)]));
    expect(t.replies().map((r) => r.error?.code)).toEqual([-32600, -32600]);
    expect(t.messages).toEqual([JSON.parse(atLimit), JSON.parse(atLimit)]);
  });

  it('should answer a line that is not UTF-8 with -32700', async () => {
    const t = await openTransport();
    await t.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"p'), Buffer.from([0xff]), Buffer.from('"}\n')]));
    expect(t.replies()).toMatchObject([{ id: null, error: { code: -32700, message: expect.stringContaining('UTF-8') } }]);
    expect(t.messages).toEqual([]);
  });

  it('should keep serving after bad input, over the real CLI', async () => {
    const child = spawn(process.execPath, ['dist/adapters/cli/main.js', 'serve', '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const lines = [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } },
      'this is not json',
      { jsonrpc: '2.0', id: 1, method: 'tasks/delete', params: null },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'alive' } } },
    ];
    for (const line of lines) child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    const deadline = Date.now() + 10_000;
    while (!out.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill();
    const messages = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: unknown; error?: { code: number }; result?: unknown });
    expect(messages.find((m) => m.id === null)?.error?.code).toBe(-32700);
    expect(messages.find((m) => m.id === 1)?.error?.code).toBe(-32600);
    expect(messages.find((m) => m.id === 2)?.result).toEqual({ content: [{ type: 'text', text: 'alive' }] });
  });
});
