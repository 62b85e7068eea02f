import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readLine } from '../../../adapters/cli/stdio-transport.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

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
