/**
 * `serve --stdio` frames on bytes: a request whose UTF-8 character is cut between two writes to
 * the real process's stdin comes back intact (decoding each read on its own gives U+FFFD).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { killChild, spawnServe, withStderr, type CliProcess } from './harness/process.js';

type Reply = { id?: unknown; result?: { content?: { type: string; text?: string }[] }; error?: unknown };

/** Answers on the server's stdout, by request id. */
function replies(cli: CliProcess): (id: number) => Promise<Reply> {
  const seen: Reply[] = [];
  const wake = new Set<() => void>();
  let buffer = '';
  cli.child.stdout.on('data', (text: string) => {
    buffer += text;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') seen.push(JSON.parse(line) as Reply);
    for (const w of wake) w();
    wake.clear();
  });
  return async (id) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = seen.find((r) => r.id === id);
      if (found) return found;
      if (Date.now() > deadline) throw withStderr(`no answer to request ${id} within 10 s`, cli.tail.toString());
      // Woken by the next stdout chunk; the timer only bounds the wait for the deadline check.
      await new Promise<void>((resolve) => {
        wake.add(resolve);
        setTimeout(resolve, 100).unref();
      });
    }
  };
}

const write = (cli: CliProcess, bytes: Buffer): Promise<void> =>
  new Promise((resolve, reject) => cli.child.stdin.write(bytes, (error) => (error ? reject(error) : resolve())));

describe('serve --stdio: byte framing', () => {
  let cli: CliProcess | undefined;
  afterEach(async () => {
    if (cli) await killChild(cli.child);
  });

  it('should echo a text whose multi-byte character was cut between two writes', async () => {
    cli = spawnServe(['--stdio']);
    const answer = replies(cli);
    const line = (m: object): Buffer => Buffer.from(`${JSON.stringify(m)}\n`, 'utf8');
    const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bytes', version: '0' } };
    await write(cli, line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init }));
    expect((await answer(0)).error).toBeUndefined();
    await write(cli, line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const call = line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a€b' } } });
    const cut = call.indexOf(Buffer.from('€')) + 1; // after E2, before 82 AC
    await write(cli, call.subarray(0, cut));
    // Give the server time to read the first half on its own; if both halves arrive in one read,
    // this test passes without proving anything, it cannot fail wrongly.
    await delay(100);
    await write(cli, call.subarray(cut));
    expect((await answer(1)).result?.content).toEqual([{ type: 'text', text: 'a€b' }]);
  });
});
