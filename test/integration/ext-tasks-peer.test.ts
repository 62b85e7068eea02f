/**
 * The official tasks requester, `@modelcontextprotocol/ext-tasks` 0.2 on an SDK v2 `Client`,
 * against `mcp-tasks serve` on both eras: SDK v1 embedded (the default; the 2026-07-28 wire through
 * its stateless dispatcher) on the memory backend and on NATS, and `--sdk v2`.
 */
import { afterAll, beforeAll } from 'vitest';
import { describeExtTasksPeer } from './harness/ext-tasks-peer.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

const AUTH = ['--auth-token', 'tok-a=alice'];
let v1: HttpServerProcess;
let v1Nats: HttpServerProcess;
let v2: HttpServerProcess;
let nats: NatsServer;

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  [v1, v1Nats, v2] = await Promise.all([spawnHttpServer(AUTH), spawnHttpServer([...AUTH, '--nats', nats.url]), spawnHttpServer([...AUTH, '--sdk', 'v2'])]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([v1?.close(), v1Nats?.close(), v2?.close()]);
  await nats?.stop();
});

describeExtTasksPeer('serve (SDK v1, memory)', () => v1.url, { token: 'tok-a' });
describeExtTasksPeer('serve (SDK v1, NATS)', () => v1Nats.url, { token: 'tok-a' });
describeExtTasksPeer('serve --sdk v2 (memory)', () => v2.url, { token: 'tok-a' });
