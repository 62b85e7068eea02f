/**
 * Tasks no live worker serves, on a real nats-server: a front node accepts them, and ends one
 * `failed` within `unservedTimeoutMs` (status message naming the tool, a warning in the front's
 * log) unless a worker that serves its tool starts within the bound, which then runs it. A
 * worker that serves other tools does not count.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as nativeWorkerExample } from '../../examples/07-nats-worker.js';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import { hashToken } from '../../runtime/backends/nats/keys.js';
import { capturingLogger } from '../fixtures/capturing-logger.js';
import { describeHandler, unservedMessage } from '../../runtime/backends/nats/unserved-tasks.js';
import { closeNodes, clusterStatus, describeNodes, freshPrefix, pollUntil, startNode, type ClusterNode } from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, getTask, statusOf, textOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const owner = { session: 's1', principal: null };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
let prefixSeq = 0;

interface Logged {
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A node with a log kept in memory, and `tools` (handler names) that echo what they got. */
async function node(options: NatsTaskRuntimeOptions, tools: readonly string[]): Promise<{ runtime: NatsTaskRuntime; logs: Logged[] }> {
  const logs: Logged[] = [];
  const logger = capturingLogger(({ level, message, fields }) => void logs.push({ level, message, fields }));
  const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, logger, ...options });
  runtimes.push(runtime);
  for (const tool of tools) runtime.registerHandler(tool, async (params) => ({ ran: tool, on: runtime.nodeId, params }));
  return { runtime, logs };
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string) =>
  r.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler, params: { n: 1 } });

/** Waits (polling, bounded) until `check` holds. */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await delay(25);
  }
}

const failedUnserved = (logs: readonly Logged[]): Logged[] => logs.filter((l) => l.level === 'warn' && l.message === 'task failed: no live worker serves its handler');

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('NATS: tasks no live worker serves', () => {
  it('should name tools, prompts and resources in the message, and the option and flag that bound the wait', () => {
    expect(describeHandler('tools/call:sleep')).toBe('tool "sleep"');
    expect(describeHandler('tools/call:sleep\u00012')).toBe('tool "sleep"');
    expect(describeHandler('prompts/get:greet')).toBe('prompt "greet"');
    expect(describeHandler('resources/read:file:///a')).toBe('resource "file:///a"');
    expect(describeHandler('plain')).toBe('handler "plain"');
    expect(unservedMessage('tools/call:x', 30_000)).toBe(
      'No live worker serves tool "x" (waited 30 s, unservedTimeoutMs / --unserved-timeout; start a worker that registers it)',
    );
  });

  it('should end a task whose tool no worker serves failed within the bound, naming the tool, once across two fronts, with warnings in the front log', async () => {
    const prefix = `unserved${++prefixSeq}`;
    const bound = 1_500;
    // The fronts accept tasks of tool x (they register its definition) but run nothing.
    const a = await node({ prefix, role: 'front', nodeId: `${prefix}-a`, unservedTimeoutMs: bound }, ['tools/call:x']);
    const b = await node({ prefix, role: 'front', nodeId: `${prefix}-b`, unservedTimeoutMs: bound }, ['tools/call:x']);
    const started = Date.now();
    const created = await create(a.runtime, 't1', 'tools/call:x');
    expect(created.status).toBe('submitted');
    // At create, the front says no live worker serves it.
    expect(a.logs.some((l) => l.level === 'warn' && l.message.includes('no live worker serves tool "x"') && l.message.includes('--unserved-timeout'))).toBe(true);

    const outcome = await b.runtime.waitForOutcome('t1', owner, { timeout: bound + 10_000 });
    const waited = Date.now() - started;
    expect(outcome.task.status).toBe('failed');
    expect(outcome.task.statusMessage).toBe(unservedMessage('tools/call:x', bound));
    expect(outcome.task.statusMessage).toContain('tool "x"');
    expect(waited, 'ended no sooner than the bound').toBeGreaterThanOrEqual(bound - 100);
    expect(waited, 'ended within the bound and a few seconds').toBeLessThan(bound + 8_000);

    // One front ended it (the check is one queued item; the end a compare-and-swap), and logged it.
    await until('a front logs the failed task', () => failedUnserved([...a.logs, ...b.logs]).length > 0, 5_000);
    const ended = failedUnserved([...a.logs, ...b.logs]);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.fields).toMatchObject({ taskId: 't1', handler: 'tools/call:x', waitedMs: bound });
    expect((await a.runtime.get('t1', owner)).status).toBe('failed');
  }, 30_000);

  it('should let a worker that starts within the bound take the task, which completes', async () => {
    const prefix = `unserved${++prefixSeq}`;
    const bound = 4_000;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front`, unservedTimeoutMs: bound }, ['tools/call:y']);
    await create(front.runtime, 't2', 'tools/call:y');
    expect((await front.runtime.get('t2', owner)).status).toBe('submitted');
    // A user's worker process joins after the create, and serves the tool.
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-worker` }, ['tools/call:y']);
    const outcome = await front.runtime.waitForOutcome('t2', owner, { timeout: 15_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ ran: 'tools/call:y', on: worker.runtime.nodeId, params: { n: 1 } });
    expect(failedUnserved(front.logs)).toEqual([]);
  }, 30_000);

  it('should never end a task a worker took, even when its worker’s announcement is gone at the bound', async () => {
    const prefix = `unserved${++prefixSeq}`;
    const bound = 1_500;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front`, unservedTimeoutMs: bound }, ['tools/call:z']);
    await create(front.runtime, 't4', 'tools/call:z');
    // A worker joins and takes the task; its handler holds until the front's check has been made.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const logs: Logged[] = [];
    const worker = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role: 'worker', nodeId: `${prefix}-worker`, logger: capturingLogger(({ level, message, fields }) => void logs.push({ level, message, fields })) });
    runtimes.push(worker);
    worker.registerHandler('tools/call:z', async () => {
      await held;
      return { ran: 'z' };
    });
    await until('the worker starts the task', () => logs.some((l) => l.message === 'task run' && l.fields['taskId'] === 't4'), 10_000);
    expect((await front.runtime.get('t4', owner)).status).toBe('working');
    // Its announcement is removed again and again (as if its heartbeats were late) until the
    // front's check, queued at create, has been made and acked.
    const nodes = await new Kvm(front.runtime.connection).open(`${prefix}_nodes`);
    const jsm = await jetstreamManager(front.runtime.connection);
    const deadline = Date.now() + bound + 10_000;
    for (;;) {
      await nodes.delete(hashToken(worker.nodeId));
      const checks = await jsm.consumers.info(`${prefix}_unserved_work`, `${prefix}_unserved_workers`);
      if (checks.delivered.stream_seq >= 1 && checks.num_pending === 0 && checks.num_ack_pending === 0) break;
      if (Date.now() > deadline) throw new Error(`the unserved check was not made within ${bound + 10_000} ms: ${JSON.stringify(checks)}`);
      await delay(50);
    }
    release();
    const outcome = await front.runtime.waitForOutcome('t4', owner, { timeout: 10_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ ran: 'z' });
    expect(failedUnserved(front.logs)).toEqual([]);
  }, 30_000);

  it('should not count a worker that serves other tools, and leave the tasks it serves alone', async () => {
    const prefix = `unserved${++prefixSeq}`;
    const bound = 1_500;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front`, unservedTimeoutMs: bound }, ['tools/call:x', 'tools/call:other']);
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-worker` }, ['tools/call:other']);
    // The worker's announcement reaches the front (the first beat may come before its handlers).
    await create(front.runtime, 'served', 'tools/call:other');
    const served = await front.runtime.waitForOutcome('served', owner, { timeout: 10_000 });
    expect(served.task.status).toBe('completed');
    expect(served.result).toMatchObject({ ran: 'tools/call:other', on: worker.runtime.nodeId });

    const started = Date.now();
    await create(front.runtime, 't3', 'tools/call:x');
    const outcome = await front.runtime.waitForOutcome('t3', owner, { timeout: bound + 10_000 });
    expect(outcome.task.status).toBe('failed');
    expect(outcome.task.statusMessage).toBe(unservedMessage('tools/call:x', bound));
    expect(Date.now() - started).toBeLessThan(bound + 8_000);
    await until('the front logs the failed task', () => failedUnserved(front.logs).length === 1, 5_000);
    expect(failedUnserved(front.logs)[0]!.fields).toMatchObject({ taskId: 't3', handler: 'tools/call:x' });
    // The worker never ran it.
    expect(worker.logs.filter((l) => l.message === 'task run' && l.fields['taskId'] === 't3')).toEqual([]);
  }, 30_000);
});

describe('mcp-tasks serve --role front --unserved-timeout', () => {
  const nodes: ClusterNode[] = [];
  let wire: Wire | undefined;
  const diag = (): string => describeNodes(nodes);

  afterAll(async () => {
    await wire?.close();
    await closeNodes(nodes);
  }, 30_000);

  it('should fail a task no worker serves after the flag’s bound, then run tasks once `serve --role worker` has joined', async () => {
    const prefix = freshPrefix('unserved-cli');
    const front = await startNode({ label: 'front', role: 'front', nats: server.url, prefix, flags: ['--unserved-timeout', '1500'] });
    nodes.push(front);
    const w = (wire = await attachHttpWire(front.url, diag));
    const { taskId } = await create2025(w, 'sleep', { ms: 10 });
    const failed = await pollUntil('the task to fail', () => getTask(w, taskId), (t) => statusOf(t) !== 'working', { timeoutMs: 12_000, intervalMs: 100, diagnostics: diag });
    expect(statusOf(failed), diag()).toBe('failed');
    expect(failed['statusMessage'], diag()).toBe(unservedMessage('tools/call:sleep', 1_500));
    const warned = await front.waitForLine((l) => l['msg'] === 'task failed: no live worker serves its handler' && l['taskId'] === taskId, 'the front’s warning', 5_000);
    expect(warned['level'], diag()).toBe('warn');

    // A worker process serving the same definitions joins: tasks of its tools run.
    nodes.push(await startNode({ label: 'worker', role: 'worker', nats: server.url, prefix }));
    const next = await create2025(w, 'sleep', { ms: 10 });
    const result = ok(await w.request('tasks/result', { taskId: next.taskId }, { timeoutMs: 15_000 }));
    expect(textOf(result), diag()).toBe('slept 10 ms');
    // `mcp-tasks status` shows what each worker announces.
    const status = await clusterStatus(server.url, prefix);
    const announced = new Map((status.raw as { nodes: { nodeId: string; handlers: string[] }[] }).nodes.map((n) => [n.nodeId, n.handlers]));
    expect(announced.get(front.nodeId), diag()).toEqual([]);
    expect(announced.get(nodes[1]!.nodeId), diag()).toContain('tools/call:sleep');
  }, 60_000);
});

describe('examples/07-nats-worker', () => {
  it('should run a tool on the worker process and fail the tool no worker serves, naming it', async () => {
    const seen = await nativeWorkerExample(server.url, `example07-${Date.now()}`);
    expect(seen.counted).toBe('6 words');
    expect(seen.translate).toEqual({ status: 'failed', statusMessage: unservedMessage('tools/call:translate', 1_000) });
  }, 30_000);
});
