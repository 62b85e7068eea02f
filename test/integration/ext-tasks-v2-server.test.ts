/**
 * The official tasks requester (`@modelcontextprotocol/ext-tasks` on an SDK v2 `Client`) against
 * our runtime embedded in an SDK v2 server, on both eras and both backends: call, settle, cancel,
 * input through its application input handler, and recovery on a new connection.
 */
import { afterAll, beforeAll } from 'vitest';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { describeExtTasksPeer } from './harness/ext-tasks-peer.js';
import { inProcessNodes } from './harness/nats-nodes.js';
import { startV2Server, type V2Server } from './harness/v2-server.js';

const TOKENS = { 'tok-a': 'alice' };

let memory: { runtime: TaskRuntime; server: V2Server };
let nats: { server: V2Server };
const nodes = inProcessNodes(() => undefined);

beforeAll(async () => {
  const runtime = createTaskRuntime();
  memory = { runtime, server: await startV2Server(runtime, TOKENS) };
  const node = await nodes.node({ prefix: `v2${process.pid}`, nodeId: 'v2-node' });
  nats = { server: await startV2Server(node, TOKENS) };
}, 30_000);

afterAll(async () => {
  await memory?.server.close();
  await memory?.runtime.dispose();
  await nats?.server.close();
});

describeExtTasksPeer('the v2-embedded server (memory)', () => memory.server.url, { token: 'tok-a' });
describeExtTasksPeer('the v2-embedded server (NATS)', () => nats.server.url, { token: 'tok-a' });
