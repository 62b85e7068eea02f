/**
 * Requests larger than a NATS message (`max_payload`, 1 MiB on the test's nats-server) through
 * built CLI nodes: two front nodes A and B and a worker W on one NATS task space, and a memory node
 * M with the same flags. What `nats-payload-http.test.ts` does not: a session begun with megabytes
 * of capabilities, a webhook URL of megabytes, and requests over `--max-request-bytes` (params, an
 * elicitation reply relayed from B to A), on both backends alike: a named refusal, never -32603
 * "max_payload", an HTTP 500 or an answer dropped. (Based on the first payload helper's file.)
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { hashToken, nameFromPrefix } from '../../runtime/backends/nats/keys.js';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from '../integration/harness/cluster.js';
import { attachHttpSession, attachInteractiveHttpWire } from '../integration/harness/http-wire.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from '../integration/harness/process.js';
import { createSep, getTask, statusOf } from '../integration/harness/task-calls.js';
import type { InteractiveWire, Wire } from '../integration/harness/types.js';
import { startReceiver, statuses } from '../integration/harness/webhook-receiver.js';

const MB = 1024 * 1024;
const MAX_REQUEST = 3_500_000;
const PUSH = 'io.github.mcp-task-actors/push';

let nats: NatsServer | undefined;
let prefix = '';
let nodes: ClusterNode[] = [];
let memory: HttpServerProcess | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
const wires: Wire[] = [];
const diag = (): string => describeNodes(nodes, { memory: memory?.stderr().slice(-1_500) ?? '' });
const node = (label: string): ClusterNode => nodes.find((n) => n.label === label)!;

beforeAll(async () => {
  [nats, receiver] = await Promise.all([startNatsServer({ jetstream: true }), startReceiver(statuses(200))]);
  prefix = freshPrefix('payload');
  const flags = ['--max-request-bytes', String(MAX_REQUEST), '--push-allow', `${receiver.base}/hooks/`];
  [nodes, memory] = await Promise.all([
    startNodes([
      { label: 'A', role: 'front', nats: nats.url, prefix, flags },
      { label: 'B', role: 'front', nats: nats.url, prefix, flags },
      { label: 'W', role: 'worker', nats: nats.url, prefix, flags },
    ]),
    spawnHttpServer(flags),
  ]);
}, 60_000);

afterAll(async () => {
  for (const w of wires) await w.close().catch(() => undefined);
  await closeNodes(nodes);
  await memory?.close();
  await receiver?.close();
  await nats?.stop();
}, 30_000);

async function session(url: string, capabilities: Record<string, unknown> = { elicitation: {} }): Promise<InteractiveWire & { readonly sessionId: string | undefined }> {
  const wire = await attachInteractiveHttpWire(url, diag, capabilities);
  wires.push(wire);
  return wire;
}

/** Messages the sessions bucket holds for a session (its record, or its record's chunks). */
async function sessionMessages(sessionId: string): Promise<number> {
  const nc = await connectNats({ servers: nats!.url });
  try {
    const bucket = `${nameFromPrefix(prefix)}_sessions`;
    const jsm = await jetstreamManager(nc);
    const count = async (filter: string): Promise<number> => Object.values((await jsm.streams.info(`KV_${bucket}`, { subjects_filter: filter })).state.subjects ?? {}).reduce((n, c) => n + c, 0);
    const key = hashToken(sessionId);
    return (await count(`$KV.${bucket}.${key}`)) + (await count(`$KV.${bucket}.${key}.>`));
  } finally {
    await nc.close();
  }
}

const backends = [
  { name: 'NATS (front A, worker W)', url: () => node('A').url },
  { name: 'memory', url: () => memory!.url },
];

describe('NATS payload size: requests as large as memory takes, refusals named alike', () => {
  it('should serve on front B a session begun on front A with 2 MB of capabilities, and keep nothing of it once closed', async () => {
    // Before: the initialize answered 400 "Parse error … 'payload' max_payload size exceeded".
    const onA = await session(node('A').url, { elicitation: {}, experimental: { large: { blob: 'c'.repeat(2 * MB) } } });
    const onB = attachHttpSession(node('B').url, onA.sessionId!, { serverStderr: diag });
    const listed = await onB.request('tools/list', {});
    expect(listed.error, diag()).toBeUndefined();
    expect(await sessionMessages(onA.sessionId!)).toBeGreaterThan(1); // chunked
    const closed = await fetch(node('A').url, { method: 'DELETE', headers: { 'mcp-session-id': onA.sessionId!, 'mcp-protocol-version': '2025-11-25' } });
    expect(closed.status, diag()).toBe(200);
    expect(await sessionMessages(onA.sessionId!)).toBe(0);
  }, 60_000);

  for (const backend of backends) {
    it(`should refuse a webhook URL of 2 MB with -32602 naming its bound (${backend.name})`, async () => {
      const wire = await session(backend.url());
      const url = `${receiver!.base}/hooks/?q=${'u'.repeat(2 * MB)}`;
      const res = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 10 }, task: { ttl: 60_000 }, _meta: { [PUSH]: { url, secret: 'a-requester-chosen-secret-0123456789' } } }, { timeoutMs: 30_000 });
      // Before: -32603 "'payload' max_payload size exceeded" on NATS, and taken on memory.
      expect(res.error, JSON.stringify(res).slice(0, 300)).toMatchObject({ code: -32602 });
      expect(res.error?.message).toContain('url must be at most 4096 characters');
    }, 60_000);

    it(`should refuse params over --max-request-bytes with -32029 naming the limit (${backend.name})`, async () => {
      const wire = await session(backend.url());
      const res = await wire.request('tools/call', { name: 'fail', arguments: { message: 'o'.repeat(MAX_REQUEST) }, task: { ttl: 60_000 } }, { timeoutMs: 30_000 });
      expect(res.error?.code, JSON.stringify(res).slice(0, 500)).toBe(-32029);
      expect(res.error?.data).toMatchObject({ limit: 'maxRequestBytes', retryAfterMs: null });
      expect(res.error?.message).toMatch(/maxRequestBytes.*--max-request-bytes/);
    }, 60_000);
  }

  for (const backend of [{ name: 'NATS, relayed from front B to A', answerOn: () => node('B').url }, { name: 'memory', answerOn: () => memory!.url }]) {
    it(`should fail the task naming the limit when an elicitation reply is over it (${backend.name})`, async () => {
      const asker = await session(backend.name === 'memory' ? memory!.url : node('A').url);
      const { taskId, requestId } = await createSep(asker, 'ask_name', {});
      const ask = await asker.waitForServerRequest((r) => r.message.method === 'elicitation/create', 15_000);
      const replier = backend.name === 'memory' ? asker : attachHttpSession(backend.answerOn(), asker.sessionId!, { interactive: true, serverStderr: diag });
      if (replier !== asker) wires.push(replier);
      await replier.answer(ask.message.id, { action: 'accept', content: { name: 'o'.repeat(MAX_REQUEST) } });
      const res = await asker.responseFor(requestId, 30_000);
      expect(JSON.stringify(res).slice(0, 2_000), diag()).toMatch(/maxRequestBytes.*--max-request-bytes/);
      expect(statusOf(await getTask(asker, taskId))).toBe('failed');
      expect(replier.violations, diag()).toEqual([]);
    }, 60_000);
  }
});
