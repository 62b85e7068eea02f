/**
 * `readBody` against a real `node:http` server: a request paused before it is read still flows,
 * and a refused body's drain lets go of the request once its client leaves.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyRefusal, PendingBodies, readBody } from '../../adapters/wire/http-body.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose handler is `handle`; resolves to its port. */
async function serve(handle: (req: IncomingMessage, answer: (status: number, text: string) => void) => void): Promise<number> {
  server = createServer((req, res) => handle(req, (status, text) => res.writeHead(status).end(text)));
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return (listening.address() as AddressInfo).port;
}

/** Polls `check` every 10 ms until it holds, for at most `ms`. */
async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
}

describe('readBody', () => {
  it('should read a request that was paused before it is called', async () => {
    const pending = new PendingBodies(null);
    const port = await serve((req, answer) => {
      req.pause();
      void readBody(req, { maxBytes: 1_000, pending }).then((body) => answer(200, `got ${body.length}`));
    });
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST' }, (res) => {
        let out = '';
        res.setEncoding('utf8').on('data', (d: string) => (out += d)).on('end', () => resolve(out));
      });
      req.on('error', reject).end('x'.repeat(700));
    });
    expect(text).toBe('got 700');
    expect(pending.held).toBe(0);
  });

  it("should let go of a refused request (its listeners, its bytes) once its client leaves in the middle of the drain", async () => {
    const pending = new PendingBodies(null);
    let refused: IncomingMessage | undefined;
    let refusal: unknown;
    const port = await serve((req, answer) => {
      void readBody(req, { maxBytes: 1_000, pending }).catch((error: unknown) => {
        refusal = error;
        refused = req;
        answer(413, 'too large');
      });
    });
    const listenersBefore = await new Promise<number>((resolve) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', headers: { 'content-length': '1000000' } }, (res) => {
        res.resume();
        // Answered while the body still arrives: the drain holds listeners on the request now.
        const held = refused!.listenerCount('data');
        req.destroy();
        resolve(held);
      });
      req.on('error', () => undefined);
      req.write('x'.repeat(5_000));
    });
    expect(refusal).toBeInstanceOf(BodyRefusal);
    expect((refusal as BodyRefusal).status).toBe(413);
    expect(listenersBefore).toBeGreaterThan(0);
    // Gone with the connection, not at the drain's 10 s bound.
    expect(await eventually(() => refused!.listenerCount('data') === 0, 3_000)).toBe(true);
    expect(pending.held).toBe(0);
  });
});
