/**
 * No request ends a node (issue 31, items 1, 4, 7 and 10), on every HTTP front of `mcp-tasks serve`:
 * the MCP endpoint of SDK v1 and of SDK v2, and the inspector beside each.
 *
 * - Odd request targets (`//`, `///`, `//@`, `/\`, and a fuzzed set sent byte for byte) used to end
 *   the SDK v2 process (`TypeError: Invalid URL`, unhandled) and got 500 on SDK v1: now each gets
 *   400 or 404 (or Node's own 400 for what its parser refuses) and the process serves on.
 * - `Host: [::1].evil.example` was read as loopback: now 403 on every front.
 * - Headers and bodies that never finish are cut at their deadlines (408), and the bytes of bodies
 *   still arriving are capped node-wide (503 naming maxPendingBodyBytes).
 * - SIGTERM ends the process (exit 0) although a client holds an idle keep-alive connection and
 *   another a half-sent request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnInspectorServer, type InspectorServer } from '../integration/harness/inspector-server.js';
import { spawnHttpServer } from '../integration/harness/process.js';
import { answerOf, openSocket, rawRequest } from './raw-http.js';

const ODD_TARGETS = ['//', '///', '//@', '/\\', '//evil.example/mcp', '/%zz', '/mcp/../mcp', '*', '@evil', 'http://[::1', '/api/tasks/%E0%A4%A8%E0', '/api/tasks/%E0%A4'];
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

/** An initialize whose params carry `bytes` more characters. */
const padded = (bytes: number): string => {
  const message = JSON.parse(INITIALIZE) as { params: Record<string, unknown> };
  return JSON.stringify({ ...message, params: { ...message.params, pad: 'x'.repeat(bytes) } });
};

const portOf = (url: string): number => Number(new URL(url).port);

/** Targets a fuzzer makes of the characters that trip URL parsers. */
const fuzzedTarget = fc
  .tuple(fc.constantFrom('/', '//', '///', '/\\', '', 'http://'), fc.array(fc.constantFrom('/', '\\', '@', ':', '?', '#', '%', '.', '[', ']', 'a', 'mcp', '%2F', '%00', '~', '!'), { maxLength: 12 }))
  .map(([head, rest]) => head + rest.join(''))
  // What Node's own parser refuses never reaches a handler: keep to what it takes.
  .filter((t) => t !== '' && !t.includes(' '));

describe.each([
  { sdk: 'v1', flags: [] as string[] },
  { sdk: 'v2', flags: ['--sdk', 'v2'] },
])('HTTP fronts of serve --sdk $sdk', ({ flags }) => {
  let server: InspectorServer;
  let ports: { mcp: number; inspector: number };
  beforeAll(async () => {
    server = await spawnInspectorServer([...flags, '--header-timeout', '800', '--body-timeout', '1500', '--max-pending-body-bytes', '100000', '--max-body-bytes', '50000']);
    ports = { mcp: portOf(server.url), inspector: portOf(server.inspectorUrl) };
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });

  /** Still alive, and still serving a normal request on both fronts. */
  async function stillServing(): Promise<void> {
    expect(server.child.exitCode).toBeNull();
    expect((await rawRequest(ports.mcp, '/mcp', { method: 'POST', body: INITIALIZE })).status).toBe(200);
    expect((await rawRequest(ports.inspector, '/api/tasks')).status).toBe(200);
  }

  it('should answer odd request targets with 400 or 404 and serve on', async () => {
    for (const front of ['mcp', 'inspector'] as const) {
      for (const target of ODD_TARGETS) {
        const { status, text } = await rawRequest(ports[front], target);
        expect([400, 404], `${front} ${target}: ${text.slice(0, 300)}`).toContain(status);
      }
    }
    await stillServing();
  });

  it('should answer a method a fetch Request cannot carry (TRACE) with 405, not 500', async () => {
    const answer = await rawRequest(ports.mcp, '/mcp', { method: 'TRACE' });
    expect(answer.status, answer.text.slice(0, 300)).toBe(405);
    expect(answer.text).toContain('Method not allowed: TRACE');
    await stillServing();
  });

  it('should answer a fuzzed set of targets and methods without a 500 or a dropped connection', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzedTarget, fc.constantFrom('mcp', 'inspector'), fc.constantFrom('GET', 'GET', 'GET', 'POST', 'DELETE', 'HEAD', 'PUT', 'OPTIONS', 'TRACE', 'PROPFIND', 'M-SEARCH'), async (target, front, method) => {
        const { status } = await rawRequest(ports[front], target, { method });
        expect([200, 400, 404, 405], `${method} ${front} ${JSON.stringify(target)}`).toContain(status);
      }),
      { seed: 3105, numRuns: 150, verbose: true },
    );
    await stillServing();
  });

  it("should refuse a Host that only begins like an IPv6 literal, '[::1].evil.example', with 403 on every front", async () => {
    for (const front of ['mcp', 'inspector'] as const) {
      for (const host of ['[::1].evil.example', '[::1]evil', '[::1]:3000.evil.example']) {
        const { status } = await rawRequest(ports[front], front === 'mcp' ? '/mcp' : '/api/tasks', { host, ...(front === 'mcp' && { method: 'POST', body: INITIALIZE }) });
        expect(status, `${front} Host: ${host}`).toBe(403);
      }
    }
    // The exact literal, with a port, is loopback.
    expect((await rawRequest(ports.mcp, '/mcp', { host: `[::1]:${ports.mcp}`, method: 'POST', body: INITIALIZE })).status).toBe(200);
    await stillServing();
  });

  it('should cut headers and bodies that do not arrive within their deadlines with 408', async () => {
    const started = Date.now();
    const headers = await openSocket(ports.mcp);
    headers.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // the rest never comes
    const body = await openSocket(ports.mcp);
    body.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`);
    const [h, b] = await Promise.all([answerOf(headers, 10_000), answerOf(body, 10_000)]);
    expect(h.status).toBe(408);
    expect(b.status).toBe(408);
    // Each names its limit and the flag that raises it, in a JSON-RPC error.
    expect(h.text).toMatch(/"code":-32600,"message":"Request Timeout: the request headers did not arrive within 800 ms \(headersTimeoutMs; raise it with --header-timeout MS\)"/);
    expect(b.text).toMatch(/"code":-32600,"message":"Request Timeout: the request did not arrive whole within 1500 ms \(bodyTimeoutMs; raise it with --body-timeout MS\)"/);
    expect(Date.now() - started).toBeLessThan(6_000);
    await stillServing();
  });

  it('should refuse a body over --max-body-bytes with 413 naming the limit and its flag', async () => {
    const answer = await rawRequest(ports.mcp, '/mcp', { method: 'POST', body: padded(60_000) });
    expect(answer.status).toBe(413);
    expect(answer.text).toContain('Request body is larger than 50000 bytes (maxBodyBytes; raise it with --max-body-bytes N)');
    await stillServing();
  });

  it.each(['keep-alive', 'close'] as const)('should let a client (Connection: %s) that sends all of an oversized body read its 413 whole, then serve its next request on the connection or close it', async (connection) => {
    // More than the kernel's socket buffers hold (a few MiB on loopback): the write ends only if the server reads it.
    const body = padded(12 * 1024 * 1024);
    const socket = await openSocket(ports.mcp);
    // Like a busy client: nothing is read until every byte is sent. Closing under such a client
    // resets the connection, and the reset drops the 413 before the client reads it ("fetch failed").
    socket.pause();
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${ports.mcp}\r\nConnection: ${connection}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const written = await new Promise<Error | null>((resolve) => socket.write(head + body, (error) => resolve(error ?? null)));
    expect(written?.message ?? null).toBeNull();
    socket.resume();
    const refused = await answerOf(socket, 10_000, { keepOpen: true });
    expect(refused.status, refused.text.slice(0, 300)).toBe(413);
    expect(refused.text).toContain('(maxBodyBytes; raise it with --max-body-bytes N)');
    if (connection === 'close') {
      // As asked: closed after the answer (an end, not a reset).
      const ended = await new Promise<string>((resolve) => {
        socket.once('end', () => resolve('end')).once('error', (error) => resolve(error.message));
        socket.resume();
      });
      expect(ended).toBe('end');
      socket.destroy();
    } else {
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${ports.mcp}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(INITIALIZE)}\r\n\r\n${INITIALIZE}`);
      const next = await answerOf(socket, 10_000);
      expect(next.status, next.text.slice(0, 300)).toBe(200);
    }
    await stillServing();
  }, 30_000);

  it('should cut a refused body that goes on past the drain bound (64 MiB), and serve on', async () => {
    const socket = await openSocket(ports.mcp);
    const total = 96 * 1024 * 1024;
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${ports.mcp}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`);
    socket.on('data', () => undefined);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const cut = await new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true)).once('error', () => resolve(true));
      const more = (): void => {
        while (sent < total) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', more);
        }
        resolve(false);
      };
      more();
    });
    socket.destroy();
    expect(cut, `the server read all ${total} bytes of a refused body`).toBe(true);
    expect(sent).toBeLessThan(total);
    await stillServing();
  }, 30_000);

  it('should refuse, with 503 naming the limit, every body that would take the bytes of unfinished bodies over the cap', async () => {
    // Twelve clients each send 30,000 bytes of a 60,000-byte body and stall: the 100,000-byte cap holds three.
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`;
    const sockets = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const s = await openSocket(ports.mcp);
        s.write(`${head}${'x'.repeat(30_000)}`);
        return s;
      }),
    );
    const answers = await Promise.all(sockets.map((s) => answerOf(s, 10_000)));
    const refused = answers.filter((a) => a.status === 503);
    const cut = answers.filter((a) => a.status === 408);
    // Every one answered: refused at once, or cut at the body deadline.
    expect(refused.length + cut.length, answers.map((a) => a.text.slice(0, 40)).join(' | ')).toBe(12);
    // The cut ones held their 30,000 bytes together until their deadline: never more than the cap.
    expect(cut.length * 30_000).toBeLessThanOrEqual(100_000);
    for (const r of refused) {
      expect(r.text).toMatch(/retry-after: 1/i);
      expect(r.text).toContain('maxPendingBodyBytes, --max-pending-body-bytes');
    }
    // Every byte given back: a 45,000-byte body passes again.
    expect((await rawRequest(ports.mcp, '/mcp', { method: 'POST', body: padded(45_000) })).status).toBe(200);
    await stillServing();
  });
});

describe.each([
  { sdk: 'v1', flags: [] as string[] },
  { sdk: 'v2', flags: ['--sdk', 'v2'] },
])('shutdown of serve --sdk $sdk', ({ flags }) => {
  it('should exit 0 on SIGTERM although a client holds an idle keep-alive connection and another a half-sent request', async () => {
    const server = await spawnHttpServer(flags);
    const port = portOf(server.url);
    const idle = await openSocket(port);
    idle.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\n\r\n${INITIALIZE}`);
    await new Promise<void>((resolve) => idle.once('data', () => resolve())); // answered; the connection stays open
    const half = await openSocket(port);
    half.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{');
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    const started = Date.now();
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);
    idle.destroy();
    half.destroy();
  }, 20_000);

  it('should exit at once on a second signal while a request is still in flight', async () => {
    const server = await spawnHttpServer(flags);
    const half = await openSocket(portOf(server.url));
    // Dispatched and waiting for its body: the first signal would give it the close grace (5 s).
    half.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    await vi.waitFor(() => expect(server.stderr()).toContain('SIGTERM: shutting down'), { timeout: 5_000, interval: 20 });
    const again = Date.now();
    server.child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - again).toBeLessThan(2_000);
    half.destroy();
  }, 20_000);
});
