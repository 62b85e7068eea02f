/**
 * A loopback webhook receiver for the push tests: a plain `node:http` server on a free port that
 * records every request and answers each as the test says (a status, or never).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  readonly path: string;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/** How the receiver answers its n-th request (0-based): a status (and headers), or never. */
export type Answer = (n: number, path: string) => { status: number; headers?: Record<string, string> } | 'hang';

/** A loopback webhook receiver on a free port, recording every request it gets. */
export async function startReceiver(answer: Answer): Promise<{ base: string; requests: Received[]; close: () => Promise<void> }> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = requests.length;
      requests.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      const a = answer(n, req.url ?? '');
      if (a !== 'hang') res.writeHead(a.status, a.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { base: `http://127.0.0.1:${port}`, requests, close };
}

/** Answers the n-th request with the n-th status (the last one from then on). */
export const statuses = (...list: number[]): Answer => (n) => ({ status: list[Math.min(n, list.length - 1)]! });
