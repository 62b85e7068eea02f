/**
 * The audit of `mcp-tasks serve`: JSON lines on stderr (never stdout) for task creation, status
 * changes, result retrieval, cancel, delete and refused look-ups, each naming the task, the
 * session, the principal and the node; a requester with many failed look-ups is flagged, and the
 * counters are visible through the runtime API.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../../runtime/index.js';
import { parseLogLines, pollUntil, type LogLine } from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok, type Rec } from './harness/json.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { connectStdio } from './harness/stdio-wire.js';
import { create2025, getTask, INVALID_PARAMS, NOT_FOUND, statusOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';
import { shortened } from '../../runtime/secrets.js';

type SessionWire = Wire & { readonly sessionId: string | undefined };

const audit = (text: string, event: string, taskId?: string): LogLine[] =>
  parseLogLines(text).filter((l) => l['event'] === event && (taskId === undefined || l['taskId'] === taskId));

/** Waits until the server's stderr has a line of `event` (for `taskId`) matching `fields`. */
async function line(stderr: () => string, event: string, taskId: string | undefined, fields: Rec = {}): Promise<LogLine> {
  const found = await pollUntil(
    `an audit line ${event} ${taskId ?? ''} ${JSON.stringify(fields)}`,
    async () => audit(stderr(), event, taskId).find((l) => Object.entries(fields).every(([k, v]) => l[k] === v)),
    (l) => l !== undefined,
    { timeoutMs: 5_000, diagnostics: () => stderr().slice(-4_000) },
  );
  return found!;
}

async function untilStatus(wire: Wire, taskId: string, status: string): Promise<void> {
  await pollUntil(`task ${taskId} ${status}`, () => getTask(wire, taskId), (t) => statusOf(t) === status, { intervalMs: 100 });
}

describe('audit lines of mcp-tasks serve --http with bearer tokens', () => {
  let server: HttpServerProcess;
  let alice: SessionWire;
  let mallory: SessionWire;

  beforeAll(async () => {
    server = await spawnHttpServer(['--auth-token', 'tok-a=alice', '--auth-token', 'tok-m=mallory']);
    alice = await attachHttpWire(server.url, () => server.stderr(), { bearerToken: 'tok-a' });
    mallory = await attachHttpWire(server.url, () => server.stderr(), { bearerToken: 'tok-m' });
  });

  afterAll(async () => {
    await alice?.close();
    await mallory?.close();
    await server?.close();
  });

  afterEach(() => {
    expect(alice.violations).toEqual([]);
    expect(mallory.violations).toEqual([]);
  });

  it('should log creation, working→completed, the result fetched and the delete, each with task, session, principal and node', async () => {
    const task = await create2025(alice, 'sleep', { ms: 50 });
    await untilStatus(alice, task.taskId, 'completed');
    ok(await alice.request('tasks/result', { taskId: task.taskId }));
    ok(await alice.request('tasks/delete', { taskId: task.taskId }));

    // A 2025-11-25 task of an authenticated requester belongs to its principal (the spec's
    // authorization context), not to the session that created it.
    const who = { taskId: task.taskId, session: null, principal: 'alice', node: 'local' };
    expect(await line(() => server.stderr(), 'task.created', task.taskId)).toMatchObject({ ...who, level: 'info', method: 'tools/call', label: 'sleep', dialect: '2025-11-25' });
    expect(await line(() => server.stderr(), 'task.status', task.taskId, { to: 'completed' })).toMatchObject({ ...who, from: 'working' });
    expect(await line(() => server.stderr(), 'task.result', task.taskId)).toMatchObject({ ...who, status: 'completed', hasResult: true });
    expect(await line(() => server.stderr(), 'task.deleted', task.taskId)).toMatchObject(who);
    // Every change once, in order.
    expect(audit(server.stderr(), 'task.status', task.taskId).map((l) => `${String(l['from'])}→${String(l['to'])}`)).toEqual(['submitted→working', 'working→completed']);
    expect(typeof (await line(() => server.stderr(), 'task.created', task.taskId))['time']).toBe('string');
  });

  it('should log a cancel and the change to cancelled', async () => {
    const task = await create2025(alice, 'long_job', { seconds: 5 });
    ok(await alice.request('tasks/cancel', { taskId: task.taskId }));
    const who = { taskId: task.taskId, session: null, principal: 'alice', node: 'local' };
    expect(await line(() => server.stderr(), 'task.cancelled', task.taskId)).toMatchObject({ ...who, status: 'cancelled' });
    expect(await line(() => server.stderr(), 'task.status', task.taskId, { to: 'cancelled' })).toMatchObject({ ...who, from: 'working' });
  });

  it("should log another session's look-up of a task as refused, answering it exactly as an unknown id", async () => {
    const task = await create2025(alice, 'sleep', { ms: 10 });
    const foreign = await mallory.request('tasks/get', { taskId: task.taskId });
    const unknown = await mallory.request('tasks/get', { taskId: 'no-such-task' });
    expect(foreign.error).toMatchObject({ code: INVALID_PARAMS, message: NOT_FOUND });
    expect(foreign.error).toEqual(unknown.error);
    const refused = await line(() => server.stderr(), 'task.refused', task.taskId);
    expect(refused).toMatchObject({ level: 'warn', op: 'get', reason: 'not-found', session: shortened(mallory.sessionId!), principal: 'mallory', node: 'local' });
    expect(await line(() => server.stderr(), 'task.refused', 'no-such-task')).toMatchObject({ session: shortened(mallory.sessionId!), principal: 'mallory' });
    // The owner still has it.
    expect(statusOf(await getTask(alice, task.taskId))).toMatch(/working|completed/);
  });

  it('should flag a requester that fails more than 20 look-ups in a minute, once', async () => {
    for (let i = 0; i < 25; i++) await mallory.request('tasks/get', { taskId: `guess-${i}` });
    const flag = await line(() => server.stderr(), 'suspicious', undefined, { reason: 'failed-lookups' });
    expect(flag).toMatchObject({ level: 'warn', session: null, principal: 'mallory', node: 'local', threshold: 20 });
    // One line per requester: an authenticated one is its principal, whichever session asked.
    expect(audit(server.stderr(), 'suspicious').filter((l) => l['principal'] === 'mallory')).toHaveLength(1);
    expect(audit(server.stderr(), 'suspicious').filter((l) => l['principal'] === 'alice')).toHaveLength(0);
  });
});

describe('audit destinations of mcp-tasks serve --stdio', () => {
  let wire: Wire | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await wire?.close();
    wire = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('should write audit lines to stderr by default and keep stdout to the protocol', async () => {
    wire = await connectStdio([]);
    const task = await create2025(wire, 'sleep', { ms: 10 });
    ok(await wire.request('tasks/result', { taskId: task.taskId }));
    const w = wire;
    expect(await line(() => w.stderr(), 'task.created', task.taskId)).toMatchObject({ session: expect.stringMatching(/^[0-9a-f]{8}…$/), principal: null, node: 'local' }); // the stdio connection's own, shortened
    expect(await line(() => w.stderr(), 'task.result', task.taskId)).toMatchObject({ op: expect.stringMatching(/^(peek|waitForOutcome)$/), hasResult: true });
    expect(wire.violations).toEqual([]);
  });

  it('should write them through the node\'s own log with --audit log (and stderr, the default): one format with every other line', async () => {
    for (const flags of [['--audit', 'log'], ['--audit', 'stderr'], []]) {
      wire = await connectStdio(flags);
      const task = await create2025(wire, 'sleep', { ms: 10 });
      ok(await wire.request('tasks/result', { taskId: task.taskId }));
      const w = wire;
      const created = await line(() => w.stderr(), 'task.created', task.taskId);
      // The CLI's log line (time, level, msg, then the fields), not a pino line of its own (level first).
      expect(Object.keys(created).slice(0, 3), flags.join(' ')).toEqual(['time', 'level', 'msg']);
      expect(created).toMatchObject({ level: 'info', msg: 'task.created', node: 'local' });
      // The runtime's own lines are in the same log: serve gives the runtime its logger.
      const end = await pollUntil('the task end line', async () => parseLogLines(w.stderr()).find((l) => l['msg'] === 'task end' && l['taskId'] === task.taskId), (l) => l !== undefined);
      expect(Object.keys(end!).slice(0, 3)).toEqual(['time', 'level', 'msg']);
      await wire.close();
      wire = undefined;
    }
  });

  it('should write them to a file with --audit FILE, and none with --audit off', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'audit-'));
    const file = path.join(dir, 'audit.jsonl');
    wire = await connectStdio(['--audit', file, '--node-id', 'edge-1']);
    const task = await create2025(wire, 'sleep', { ms: 10 });
    ok(await wire.request('tasks/result', { taskId: task.taskId }));
    const fromFile = await pollUntil('the audit file', () => readFile(file, 'utf8').catch(() => ''), (t) => audit(t, 'task.result', task.taskId).length > 0);
    expect(audit(fromFile, 'task.created', task.taskId)[0]).toMatchObject({ node: 'edge-1', session: expect.stringMatching(/^[0-9a-f]{8}…$/) });
    expect(audit(wire.stderr(), 'task.created')).toEqual([]); // not on stderr
    await wire.close();

    wire = await connectStdio(['--audit', 'off']);
    const quiet = await create2025(wire, 'sleep', { ms: 10 });
    ok(await wire.request('tasks/result', { taskId: quiet.taskId }));
    expect(parseLogLines(wire.stderr()).filter((l) => typeof l['event'] === 'string')).toEqual([]);
  });
});

describe('audit through the runtime API, with an SDK client', () => {
  it('should count many failed look-ups of one session in security() and flag it', async () => {
    const lines: LogLine[] = [];
    const logger = pino({ base: null }, { write: (l: string) => void lines.push(JSON.parse(l) as LogLine) });
    const runtime = createTaskRuntime({ audit: { logger, node: 'embedded' }, limits: {} });
    const server = createTaskServer({ name: 't', version: '0' }, { runtime, ...demoDefinitions });
    const client = new Client({ name: 'c', version: '0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    try {
      for (let i = 0; i < 30; i++) {
        await expect(client.request({ method: 'tasks/get', params: { taskId: `guess-${i}` } }, ResultSchema)).rejects.toThrow(/Task not found/);
      }
      const report = runtime.security();
      expect(report).toMatchObject({ enabled: true, node: 'embedded', flagged: 1, totals: { failedLookups: 30, flags: 1 } });
      expect(report.top).toEqual([expect.objectContaining({ session: null, principal: null, failedLookups: 30, flagged: true })]);
      expect(lines.filter((l) => l['event'] === 'task.refused')).toHaveLength(30);
      expect(lines.filter((l) => l['event'] === 'suspicious')).toEqual([expect.objectContaining({ reason: 'failed-lookups', node: 'embedded', count: 21 })]);
    } finally {
      await client.close();
      await runtime.dispose();
    }
  });
});
