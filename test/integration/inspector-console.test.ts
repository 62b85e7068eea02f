/**
 * The inspector as an operator console, over HTTP against real `mcp-tasks serve` processes: on
 * the memory backend, and on NATS with a front (where the inspector and the requester are) and a
 * worker (which runs the tasks). Paging and filters, the page at deep links, the question a task
 * waits on, an operator's cancel seen by the requester through its own session and audited, the
 * cluster view, and the per-stream live events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPrefix, parseLogLines, pollUntil, startNodes, closeNodes, type ClusterNode } from './harness/cluster.js';
import { attachHttpWire, attachInteractiveHttpWire } from './harness/http-wire.js';
import { getJson, inspectorUrlFrom, openEvents } from './harness/inspector.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { create2025, getTask, statusOf } from './harness/task-calls.js';
import type { InteractiveWire, Wire } from './harness/types.js';

const OPERATOR = 'op-s3cret-token';
/** The public origin of a reverse proxy that rewrites Host: its page's requests name it, not the inspector's Host. */
const PROXY_ORIGIN = 'https://ops.example';
const FLAGS = ['--inspect', '0', '--inspect-results', '--inspect-operator', `${OPERATOR}=alice`, '--allowed-origin', PROXY_ORIGIN, '--max-creates-per-second', 'off', '--max-running-tasks', 'off'];
const AS_OPERATOR = { authorization: `Bearer ${OPERATOR}` };

interface Deployment {
  /** The MCP endpoint the requester talks to. */
  readonly mcpUrl: string;
  /** The inspector, without a trailing slash. */
  readonly base: string;
  /** The node names the cluster view must list, with their roles. */
  readonly nodes: readonly { readonly nodeId: string | null; readonly role: string }[];
  /** The audit and log lines of the node that serves the inspector. */
  lines(): Record<string, unknown>[];
  stderr(): string;
  close(): Promise<void>;
}

async function memoryDeployment(): Promise<Deployment> {
  const server: HttpServerProcess = await spawnHttpServer(FLAGS);
  const url = await pollUntil('the inspector log line', async () => inspectorUrlFrom(server.stderr()), (u) => u !== undefined, { timeoutMs: 10_000, intervalMs: 50 });
  return { mcpUrl: server.url, base: url!.slice(0, -1), nodes: [{ nodeId: null, role: 'both' }], lines: () => parseLogLines(server.stderr()), stderr: () => server.stderr(), close: () => server.close() };
}

async function natsDeployment(): Promise<Deployment> {
  const nats: NatsServer = await startNatsServer({ jetstream: true });
  const prefix = freshPrefix('console');
  let nodes: ClusterNode[] = [];
  try {
    nodes = await startNodes([
      { label: 'front', role: 'front', nats: nats.url, prefix, flags: FLAGS },
      { label: 'worker', role: 'worker', nats: nats.url, prefix, flags: ['--max-running-tasks', 'off'] },
    ]);
  } catch (error) {
    await nats.stop();
    throw error;
  }
  const [front, worker] = nodes as [ClusterNode, ClusterNode];
  const url = await pollUntil('the inspector log line', async () => inspectorUrlFrom(front.stderr()), (u) => u !== undefined, { timeoutMs: 10_000, intervalMs: 50 });
  return {
    mcpUrl: front.url,
    base: url!.slice(0, -1),
    nodes: [
      { nodeId: front.nodeId, role: 'front' },
      { nodeId: worker.nodeId, role: 'worker' },
    ],
    lines: () => front.lines(),
    stderr: () => `${front.stderr().slice(-3_000)}\n--- worker ---\n${worker.stderr().slice(-2_000)}`,
    close: async () => {
      await closeNodes(nodes);
      await nats.stop();
    },
  };
}

interface Listed {
  key: string;
  taskId: string;
  status: string;
  label: string;
  node: string | null;
  createdAt: number;
  owner: { session: string | null; principal: string | null };
}

describe.each([
  ['memory', memoryDeployment],
  ['NATS front + worker', natsDeployment],
] as const)('the inspector console on %s', (_name, deploy) => {
  let env: Deployment;
  let requester: Wire & { readonly sessionId: string | undefined };
  const page = async (query: string, headers: Record<string, string> = {}) => getJson(`${env.base}/api/tasks${query}`, headers);
  const byTaskId = async (taskId: string, headers: Record<string, string> = {}): Promise<Listed> =>
    (await pollUntil(`task ${taskId} listed`, async () => (await page(`?taskId=${taskId}`, headers)).body.tasks[0] as Listed | undefined, (t) => t !== undefined, { timeoutMs: 10_000, intervalMs: 50, diagnostics: () => env.stderr() }))!;

  beforeAll(async () => {
    env = await deploy();
    requester = await attachHttpWire(env.mcpUrl, () => env.stderr());
  }, 40_000);
  afterAll(async () => {
    await requester?.close().catch(() => undefined);
    await env?.close();
  }, 30_000);

  it('should page 250 tasks newest first by 100 with cursors, with the total and the counts per status', async () => {
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const created = await Promise.all(Array.from({ length: 25 }, (_, i) => create2025(requester, batch === 0 && i < 10 ? 'long_job' : 'sleep', batch === 0 && i < 10 ? { seconds: 120 } : { ms: 1 })));
      ids.push(...created.map((c) => c.taskId));
    }
    await pollUntil('240 sleeps completed', async () => (await page('?status=completed')).body.total as number, (n) => n === 240, { timeoutMs: 30_000, intervalMs: 200, diagnostics: () => env.stderr() });
    const first = (await page('')).body;
    expect(first).toMatchObject({ total: 250, first: true, limit: 100, showResults: true, actions: true, counts: { completed: 240, working: 10, failed: 0, cancelled: 0 } });
    expect(first.tasks).toHaveLength(100);
    const second = (await page(`?cursor=${first.next}`)).body;
    const third = (await page(`?cursor=${second.next}`)).body;
    expect(second).toMatchObject({ first: false, total: 250, limit: 100 });
    expect((await page('?limit=7')).body).toMatchObject({ limit: 7, tasks: expect.any(Array) });
    expect(third.tasks).toHaveLength(50);
    expect(third.next).toBeNull();
    const all = [...first.tasks, ...second.tasks, ...third.tasks] as Listed[];
    expect(new Set(all.map((t) => t.taskId))).toEqual(new Set(ids));
    const created = all.map((t) => t.createdAt);
    expect(created).toEqual([...created].sort((a, b) => b - a));
  }, 60_000);

  it('should apply every filter on the server, and refuse a bad parameter with a 400 naming it', async () => {
    const job = (await page('?label=long_job&limit=1')).body;
    expect(job.total).toBe(10);
    const one = job.tasks[0] as Listed;
    expect((await page('?status=working&label=long_job')).body.total).toBe(10);
    expect((await page('?method=tools/call&status=completed')).body.total).toBe(240);
    expect((await page('?method=prompts/get')).body.total).toBe(0);
    expect((await page(`?node=${encodeURIComponent(one.node!)}&label=long_job`)).body.total).toBe(10);
    expect((await page('?node=no-such-node')).body.total).toBe(0);
    expect((await page('?dialect=2025-11-25')).body.total).toBeGreaterThanOrEqual(250);
    expect((await page('?dialect=sep-1686')).body.total).toBe(0);
    expect((await page(`?since=${one.createdAt + 3_600_000}`)).body.total).toBe(0);
    expect((await page(`?since=${new Date(one.createdAt - 60_000).toISOString()}&label=long_job`)).body.total).toBe(10);
    expect((await page(`?taskId=${one.taskId}`)).body.tasks.map((t: Listed) => t.key)).toEqual([one.key]);
    expect((await page('?q=LONG_J')).body.total).toBe(10);
    // On an inspector that needs no token to read, the session id is shown shortened and cannot be
    // probed, an operator's token included: what a page sees is the inspector's rule, not the asker's.
    expect(one.owner.session).toBe(`${requester.sessionId!.slice(0, 8)}…`);
    expect((await page(`?owner=${requester.sessionId!}`)).body.total).toBe(0);
    const asOperator = (await page(`?owner=${requester.sessionId!}&label=long_job`, AS_OPERATOR)).body;
    expect(asOperator.total).toBe(0);
    expect((await page('?label=long_job&limit=1', AS_OPERATOR)).body.tasks[0].owner.session).toBe(`${requester.sessionId!.slice(0, 8)}…`);
    for (const [query, parameter] of [['status=nope', 'status'], ['limit=abc', 'limit'], ['limit=501', 'limit'], ['limit=0', 'limit'], ['since=last-week', 'since'], ['cursor=%21%21', 'cursor']] as const) {
      const res = await page(`?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ parameter, error: expect.stringContaining(`'${parameter}'`) });
      expect((await fetch(`${env.base}/api/events?${query}`)).status, `events ${query}`).toBe(400);
    }
  });

  it('should serve the page at /tasks/<taskId> (a deep link), and 405 a method a path does not take', async () => {
    const res = await fetch(`${env.base}/tasks/some-task-id`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('<script');
    const post = await fetch(`${env.base}/api/tasks`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const get = await fetch(`${env.base}/api/tasks/any/cancel`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it("should show a long_job's own machine where it is, drawn from the graph its worker shared (on NATS, not this node's)", async () => {
    const { taskId } = await create2025(requester, 'long_job', { seconds: 2 });
    const task = await byTaskId(taskId);
    const detail = await pollUntil('the handler position in the detail', async () => (await getJson(`${env.base}/api/tasks/${task.key}`)).body, (d) => d.handler?.step >= 2, {
      timeoutMs: 10_000,
      intervalMs: 50,
      diagnostics: () => env.stderr(),
    });
    expect(detail.handler).toMatchObject({ key: task.key, machine: 'long_job', graph: expect.any(String), states: ['long_job.working'], status: 'active', checkpoint: expect.any(Boolean) });
    expect(detail.handler.svg).toContain('data-state="long_job.working"');
    expect(detail.handler.svg).toContain('data-state="long_job.finishing"');
    // The timeline names each state the machine entered, with its step.
    const steps = detail.timeline.filter((e: { event: string }) => e.event === 'task.handler').map((e: { handler: { step: number } }) => e.handler.step);
    expect(steps.slice(0, 2)).toEqual([1, 2]);
    const finishing = await pollUntil('finishing', async () => (await getJson(`${env.base}/api/tasks/${task.key}`)).body, (d) => d.handler?.states.includes('long_job.finishing') || d.task.status === 'completed', { timeoutMs: 10_000, intervalMs: 50 });
    expect(finishing.timeline.some((e: { handler?: { states: string[] } }) => e.handler?.states.includes('long_job.finishing'))).toBe(true);
  });

  it('should show the question an ask_name task waits on (results shown), and offer Cancel only to an operator', async () => {
    const asker: InteractiveWire = await attachInteractiveHttpWire(env.mcpUrl, () => env.stderr(), { elicitation: {} });
    try {
      const { taskId } = await create2025(asker, 'ask_name', {});
      await pollUntil('input_required', async () => statusOf(await getTask(asker, taskId)), (s) => s === 'input_required', { timeoutMs: 10_000, intervalMs: 50, diagnostics: () => env.stderr() });
      const task = await byTaskId(taskId);
      const detail = await pollUntil('the question in the detail', async () => (await getJson(`${env.base}/api/tasks/${task.key}`)).body, (d) => d.inputs.length > 0, { timeoutMs: 10_000, intervalMs: 100 });
      expect(detail.inputs).toEqual([
        { inputId: expect.any(String), method: 'elicitation/create', kind: 'elicitation', redacted: false, message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] } },
      ]);
      expect(detail.actions).toEqual([]);
      expect((await getJson(`${env.base}/api/tasks/${task.key}`, AS_OPERATOR)).body.actions).toEqual(['cancel']);
    } finally {
      await asker.close();
    }
  });

  it('should let an operator cancel a task of any requester: the requester sees cancelled, and the audit names the operator', async () => {
    const { taskId } = await create2025(requester, 'long_job', { seconds: 120 });
    const task = await byTaskId(taskId);
    const cancel = (headers: Record<string, string>, body?: string): Promise<Response> => fetch(`${env.base}/api/tasks/${task.key}/cancel`, { method: 'POST', headers, ...(body !== undefined && { body }) });
    const none = await cancel({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${env.base}/api/tasks/${task.key}/cancel?token=${OPERATOR}`, { method: 'POST' })).status).toBe(401);
    expect((await cancel({ authorization: 'Bearer not-an-operator' })).status).toBe(401);
    const crossOrigin = await cancel({ ...AS_OPERATOR, origin: 'http://attacker.example' });
    expect(crossOrigin.status).toBe(403);
    expect(((await crossOrigin.json()) as { error: string }).error).toContain("not from Origin 'http://attacker.example' (behind a proxy that rewrites Host, allow its origin: --allowed-origin ORIGIN");
    expect((await cancel({ ...AS_OPERATOR, 'content-type': 'application/json' }, '{"reason": 5}')).status).toBe(400);
    expect(statusOf(await getTask(requester, taskId))).toBe('working');

    const origin = new URL(env.base).origin;
    const done = await cancel({ ...AS_OPERATOR, origin, 'content-type': 'application/json' }, JSON.stringify({ reason: 'stuck' }));
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await done.json()).toMatchObject({ key: task.key, taskId, status: 'cancelled' });
    await pollUntil("the requester's own tasks/get", async () => statusOf(await getTask(requester, taskId)), (s) => s === 'cancelled', { timeoutMs: 10_000, intervalMs: 50, diagnostics: () => env.stderr() });
    // The requester learns that an operator acted and why, not who.
    expect((await getTask(requester, taskId))['statusMessage']).toBe('Cancelled by an operator: stuck');
    const audit = await pollUntil('the audit line', async () => env.lines().find((l) => l['event'] === 'operator.cancel' && l['taskId'] === taskId), (l) => l !== undefined, { timeoutMs: 5_000, intervalMs: 50 });
    expect(audit).toMatchObject({ event: 'operator.cancel', operator: 'alice', taskId, taskKey: task.key, method: 'tools/call', label: 'long_job', reason: 'stuck' });
    expect((await cancel(AS_OPERATOR)).status).toBe(409);
    expect((await fetch(`${env.base}/api/tasks/no-such-key/cancel`, { method: 'POST', headers: AS_OPERATOR })).status).toBe(404);
    expect((await getJson(`${env.base}/api/tasks/${task.key}`, AS_OPERATOR)).body.actions).toEqual([]);
  });

  it('should take an action from an allowed origin (a proxy that rewrites Host) as from the page itself', async () => {
    const { taskId } = await create2025(requester, 'long_job', { seconds: 120 });
    const task = await byTaskId(taskId);
    const done = await fetch(`${env.base}/api/tasks/${task.key}/cancel`, { method: 'POST', headers: { ...AS_OPERATOR, origin: PROXY_ORIGIN } });
    expect(done.status, await done.clone().text()).toBe(200);
    await pollUntil("the requester's own tasks/get", async () => statusOf(await getTask(requester, taskId)), (s) => s === 'cancelled', { timeoutMs: 10_000, intervalMs: 50, diagnostics: () => env.stderr() });
    // No body, so no reason: the requester learns that an operator acted, nothing more.
    expect((await getTask(requester, taskId))['statusMessage']).toBe('Cancelled by an operator');
  });

  it("should say who an operator's token is, and refuse anyone else", async () => {
    expect(await getJson(`${env.base}/api/operator`, AS_OPERATOR)).toEqual({ status: 200, body: { name: 'alice', actions: ['cancel'] } });
    expect((await getJson(`${env.base}/api/operator`)).status).toBe(401);
  });

  it('should list the nodes with their roles and last heartbeat in /api/cluster', async () => {
    const { status, body } = await getJson(`${env.base}/api/cluster`);
    expect(status).toBe(200);
    for (const expected of env.nodes) {
      const node = body.nodes.find((n: { nodeId: string; role: string }) => (expected.nodeId === null ? true : n.nodeId === expected.nodeId));
      expect(node, JSON.stringify(body.nodes)).toMatchObject({ role: expected.role, lastSeen: expect.any(Number) });
    }
  });

  it("should shorten requesters' session ids in /api/cluster's security report, as the task list does", async () => {
    for (let i = 0; i < 3; i++) await requester.request('tasks/get', { taskId: `no-such-task-${i}` });
    const suspects = (body: { nodes: { security: { top: { session: string | null }[] } | null }[] }) => body.nodes.flatMap((n) => n.security?.top ?? []);
    const report = await pollUntil('a suspect in the security report', async () => (await getJson(`${env.base}/api/cluster`)).body, (b) => suspects(b).length > 0, { timeoutMs: 15_000, intervalMs: 200, diagnostics: () => env.stderr() });
    expect(JSON.stringify(report)).not.toContain(requester.sessionId!);
    expect(suspects(report).map((r) => r.session)).toContain(`${requester.sessionId!.slice(0, 8)}…`);
  });

  it('should tell a filtered stream when a task leaves its filter (matches: false), and send counts', async () => {
    const events = await openEvents(`${env.base}/api/events?status=working&label=long_job`);
    try {
      const snapshot = JSON.parse((await events.next((f) => f.event === 'snapshot')).data);
      expect(snapshot).toMatchObject({ first: true, showResults: true, actions: true });
      expect(snapshot.tasks.every((t: Listed) => t.status === 'working' && t.label === 'long_job')).toBe(true);
      const cancelledBefore = ((await page('?label=long_job')).body.counts.cancelled as number | undefined) ?? 0;
      const { taskId } = await create2025(requester, 'long_job', { seconds: 120 });
      const joined = await events.next((f) => f.event === 'upsert' && JSON.parse(f.data).task.taskId === taskId && JSON.parse(f.data).task.status === 'working', 10_000);
      expect(JSON.parse(joined.data).matches).toBe(true);
      const key = JSON.parse(joined.data).task.key as string;
      expect((await fetch(`${env.base}/api/tasks/${key}/cancel`, { method: 'POST', headers: AS_OPERATOR })).status).toBe(200);
      const left = await events.next((f) => f.event === 'upsert' && JSON.parse(f.data).task.key === key && JSON.parse(f.data).task.status === 'cancelled', 10_000);
      expect(JSON.parse(left.data).matches).toBe(false);
      const counts = await events.next((f) => f.event === 'counts' && JSON.parse(f.data).counts.cancelled > cancelledBefore, 5_000);
      // Counted over the stream's filters but its status: the long_jobs, every status (the sleeps, all completed, are not).
      const long = (await page('?label=long_job')).body;
      expect(JSON.parse(counts.data)).toEqual({ total: expect.any(Number), counts: long.counts });
      expect(long.counts.completed).toBeLessThan((await page('?status=completed')).body.total);
    } finally {
      events.close();
    }
  });
});
