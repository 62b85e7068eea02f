import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { NatsUnavailableError } from '../../runtime/backends/nats/errors.js';
import { isTaskRuntimeError } from '../../runtime/errors.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

/** A port nobody listens on (bound, read, released). */
async function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1));
    });
  });
}

describe('connectNats', () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('should fail fast with an error naming the URL when nothing listens', async () => {
    const url = `nats://127.0.0.1:${await deadPort()}`;
    const started = Date.now();
    const error = await connectNats({ servers: url, connectTimeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(NatsUnavailableError);
    expect(isTaskRuntimeError(error)).toBe(true);
    expect((error as Error).message).toContain(url);
    expect((error as NatsUnavailableError).servers).toEqual([url]);
  });

  it('should name every URL of the list when none answers', async () => {
    const urls = [`nats://127.0.0.1:${await deadPort()}`, `nats://127.0.0.1:${await deadPort()}`];
    const error = await connectNats({ servers: urls, connectTimeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NatsUnavailableError);
    for (const url of urls) expect((error as Error).message).toContain(url);
  });

  it('should report a bad credentials file as unavailable, naming the URL', async () => {
    const error = await connectNats({ servers: server.url, credsFile: '/nonexistent/x.creds' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NatsUnavailableError);
    expect((error as Error).message).toContain(server.url);
  });

  it('should connect, and reconnect after the server restarts', async () => {
    const nc = await connectNats({ servers: server.url, reconnectTimeWaitMs: 100 });
    try {
      const sub = nc.subscribe('ping');
      void (async () => {
        for await (const m of sub) m.respond('pong');
      })();
      expect((await nc.request('ping', '', { timeout: 1_000 })).string()).toBe('pong');
      await server.restart();
      const deadline = Date.now() + 8_000;
      let answer = '';
      while (answer === '' && Date.now() < deadline) {
        answer = await nc
          .request('ping', '', { timeout: 500 })
          .then((m) => m.string())
          .catch(() => '');
      }
      expect(answer).toBe('pong');
      expect(nc.isClosed()).toBe(false);
    } finally {
      await nc.close();
    }
  });
});

describe('startNatsServer', () => {
  it('should support await using and remove its store dir', async () => {
    const { existsSync } = await import('node:fs');
    let dir = '';
    {
      await using s = await startNatsServer({ jetstream: true });
      dir = s.storeDir;
      expect(existsSync(dir)).toBe(true);
      expect(s.pid).toBeGreaterThan(0);
    }
    expect(existsSync(dir)).toBe(false);
  });
});
