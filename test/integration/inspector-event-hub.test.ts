/**
 * The inspector's event hub over a real `node:http` server: paced counts never go back in time,
 * and a stream the hub ended while its snapshot was made gets nothing written after its end.
 */
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../adapters/inspector/event-hub.js';

let server: Server | undefined;
let hub: EventHub<string> | undefined;
afterEach(async () => {
  hub?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = hub = undefined;
});

/** A server whose every request is `handle`d; resolves to its URL. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const listening = createServer(handle);
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}/`;
}

/** Opens a stream and collects its text. */
function listen(url: string): Promise<{ text: () => string; status: number }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      resolve({ text: () => text, status: res.statusCode ?? 0 });
    }).on('error', reject);
  });
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('EventHub', () => {
  it('should send paced counts in the order they were read, even when a read takes longer than the interval', async () => {
    const reads: { resolve: () => void }[] = [];
    let made = 0;
    hub = new EventHub<string>(60_000, {
      event: 'counts',
      intervalMs: 20,
      make: async () => {
        const tick = ++made;
        // The first read is slow: it ends only when the test says so.
        if (tick === 1) await new Promise<void>((resolve) => reads.push({ resolve }));
        return () => ({ tick });
      },
    });
    const url = await serve((_req, res) => void hub!.open(res, 'all', async () => 'event: snapshot\ndata: {}\n\n'));
    const stream = await listen(url);
    await until(() => stream.text().includes('snapshot'));
    hub.broadcast('change', { n: 1 });
    await until(() => reads.length === 1);
    // A change while the first read is slow, then more than one interval for its tick to come.
    hub.broadcast('change', { n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    reads[0]!.resolve();
    await until(() => (stream.text().match(/event: counts/g) ?? []).length === 2);
    const ticks = [...stream.text().matchAll(/event: counts\ndata: \{"tick":(\d)\}/g)].map((m) => Number(m[1]));
    expect(ticks).toEqual([1, 2]);
  });

  it('should write nothing to a stream the hub ended while its snapshot was made, and refuse streams once closed', async () => {
    let finishSnapshot!: () => void;
    const errors: unknown[] = [];
    let opened: Promise<boolean> | undefined;
    hub = new EventHub<string>(60_000);
    const url = await serve((_req, res) => {
      res.on('error', (error) => errors.push(error));
      opened = hub!.open(res, 'all', async () => {
        await new Promise<void>((resolve) => (finishSnapshot = resolve));
        return 'event: snapshot\ndata: {}\n\n';
      });
    });
    await listen(url);
    await until(() => finishSnapshot !== undefined);
    hub.close();
    finishSnapshot();
    expect(await opened).toBe(true);
    // A write after the end would be reported on the next turns of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([]);
    expect((await listen(url)).status).toBe(503);
  });
});
