/**
 * Durable handlers on a cluster (two front nodes, two workers, `--lease-ttl 2000`): the worker
 * running a machine handler is SIGKILLed, and the task is resumed on another worker from its last
 * checkpoint, not re-run from the start and not ended lost.
 *
 * - `long_job {seconds: 10}` killed at step 4: it completes, no status after the kill shows a step
 *   before the last checkpoint, and it takes about the steps left plus the lease (both dialects).
 * - `ask_name` / `summarize` killed while `input_required`: the task stays `input_required`, a
 *   replacement worker is started, and the answer given 3 s later through the other front node
 *   completes it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeNodes, clusterStatus, describeNodes, freshPrefix, pollUntil, startNode, startNodes, waitForRunner, type ClusterNode } from './harness/cluster.js';
import { attachHttpSession, attachHttpWire, attachInteractiveHttpWire } from './harness/http-wire.js';
import { getJson, inspectorUrlFrom } from './harness/inspector.js';
import { ok, type Rec } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, createSep, createTask, getTask, statusOf, TERMINAL_SEP, textOf, type Dialect } from './harness/task-calls.js';
import type { InteractiveWire, Wire } from './harness/types.js';

const LEASE_TTL = 2_000;
const STEP_MS = 1_000;

let nats: NatsServer | undefined;
let prefix = '';
const nodes: ClusterNode[] = [];
const wires: (Wire | InteractiveWire)[] = [];
const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });
const fronts = (): [ClusterNode, ClusterNode] => [nodes[0]!, nodes[1]!];
const liveWorkers = (): ClusterNode[] => nodes.filter((n) => n.role === 'worker' && n.alive());
let spawned = 0;

/** Starts workers until two are alive. */
async function twoWorkers(): Promise<ClusterNode[]> {
  const missing = Math.max(0, 2 - liveWorkers().length);
  const flags = ['--lease-ttl', String(LEASE_TTL)];
  nodes.push(...(await startNodes(Array.from({ length: missing }, () => ({ nats: nats!.url, prefix, label: `w${++spawned}`, role: 'worker' as const, flags })))));
  return liveWorkers();
}

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  prefix = freshPrefix('durable');
  const flags = ['--lease-ttl', String(LEASE_TTL)];
  // A also serves the inspector, which shows where a resumed task went.
  nodes.push(...(await startNodes([0, 1].map((i) => ({ nats: nats!.url, prefix, label: i === 0 ? 'A' : 'B', role: 'front' as const, flags: i === 0 ? [...flags, '--inspect', '0'] : flags })))));
  await twoWorkers();
}, 60_000);

afterAll(async () => {
  for (const w of [...wires].reverse()) await w.close().catch(() => undefined);
  await closeNodes(nodes);
  await nats?.stop();
}, 30_000);

beforeEach((ctx) => {
  ctx.onTestFailed(() => console.error(`[nats-durable-handlers] ${ctx.task.name} failed; node logs:\n${diag()}`));
});

afterEach(() => {
  for (const w of wires) expect(w.violations, `protocol violations\n${diag()}`).toEqual([]);
});

/** The step a long_job status message names (`step 4/10` → 4), or null. */
function stepOf(state: Rec): number | null {
  const message = state['statusMessage'];
  const match = typeof message === 'string' ? /step (\d+)\/10/.exec(message) : null;
  return match ? Number(match[1]) : null;
}

describe('a machine handler resumed from its last checkpoint after its worker was SIGKILLed', () => {
  for (const dialect of ['2025-11-25', 'sep-1686'] as const satisfies readonly Dialect[]) {
    it(`${dialect}: long_job {seconds: 10} killed at step 4 completes on the other worker without going back, in about the steps left plus the lease`, async () => {
      const wire = await attachHttpWire(fronts()[0].url, diag);
      wires.push(wire);
      const workers = await twoWorkers();
      const { taskId } = await createTask(wire, dialect, 'long_job', { seconds: 10 });
      const { node: runner } = await waitForRunner(workers, taskId, { attempt: 1, timeoutMs: 10_000, diagnostics: diag });
      const survivor = workers.find((w) => w !== runner)!;
      const before = await pollUntil(`task ${taskId} at step 4`, () => getTask(wire, taskId), (s) => (stepOf(s) ?? 0) >= 4, { timeoutMs: 15_000, intervalMs: 50, diagnostics: diag });
      const stepAtKill = stepOf(before)!;
      const killedAt = Date.now();
      await runner.crash();

      // While it runs again: `mcp-tasks status` shows the attempt, the node and the checkpoint,
      // and the inspector the attempt, the node it moved to, and "resumed from" in its timeline.
      const statusShown = (async () => {
        await waitForRunner([survivor], taskId, { attempt: 2, timeoutMs: 15_000, diagnostics: diag });
        return clusterStatus(nats!.url, prefix);
      })();
      const inspected = (async () => {
        await waitForRunner([survivor], taskId, { attempt: 2, timeoutMs: 15_000, diagnostics: diag });
        const base = inspectorUrlFrom(fronts()[0].stderr())!.replace(/\/$/, '');
        return pollUntil(
          'the inspector to show attempt 2',
          async () => {
            const { tasks } = (await getJson(`${base}/api/tasks`)).body as { tasks: Rec[] };
            const task = tasks.find((t) => t['taskId'] === taskId);
            return task && task['attempt'] === 2 ? ((await getJson(`${base}/api/tasks/${String(task['key'])}`)).body as Rec) : null;
          },
          (d) => d !== null,
          { timeoutMs: 10_000, intervalMs: 100, diagnostics: diag },
        );
      })();
      inspected.catch(() => undefined);
      statusShown.catch(() => undefined);
      // Every status seen from the kill to the end.
      const seen: Rec[] = [];
      const end = await pollUntil(
        `task ${taskId} to end after its worker was killed`,
        async () => {
          const s = await getTask(wire, taskId);
          seen.push(s);
          return s;
        },
        (s) => TERMINAL_SEP.includes(statusOf(s)),
        { timeoutMs: 25_000, intervalMs: 50, diagnostics: diag },
      );
      const elapsed = Date.now() - killedAt;
      const context = `killed at step ${stepAtKill}; seen after: ${JSON.stringify(seen.map((s) => [statusOf(s), s['statusMessage']]))}\n${diag()}`;
      expect(statusOf(end), context).toBe('completed');
      expect(textOf(ok(await wire.request('tasks/result', { taskId }))), context).toBe('long_job done in 10 s');
      // Resumed, not re-run: never back before the step it was in (its checkpoint was that step's,
      // or the one before if the kill came as it was being written).
      const steps = seen.map(stepOf).filter((n): n is number => n !== null);
      expect(Math.min(...steps), context).toBeGreaterThanOrEqual(stepAtKill - 1);

      // A full re-run would take 10 s after the lease ran out; resuming takes what was left.
      expect(elapsed, context).toBeLessThan((10 - stepAtKill + 2) * STEP_MS + LEASE_TTL + 2_000);
      expect(elapsed, context).toBeLessThan(10 * STEP_MS + LEASE_TTL);
      // Attempt 2 on the survivor, from the checkpoint of the step it was in (or the one before).
      const resumed = survivor.taskRuns(taskId);
      expect(resumed.map((l) => [l['attempt'], l['resumedFrom']]), context).toEqual([[2, 'working']]);
      expect(Number(resumed[0]!['checkpoint']), context).toBeGreaterThanOrEqual(stepAtKill - 1);
      const lost = nodes.flatMap((n) => n.workerLost(taskId));
      expect(lost.map((l) => l['action']), context).toEqual(['resume']);
      const shown = ((await statusShown).raw['durable'] as Rec[]).find((d) => d['taskId'] === taskId);
      expect(shown, `mcp-tasks status: ${JSON.stringify((await statusShown).raw)}`).toMatchObject({ attempt: 2, node: survivor.nodeId, checkpoint: { label: 'working' } });
      expect(Number((shown!['checkpoint'] as Rec)['seq'])).toBeGreaterThanOrEqual(stepAtKill - 1);
      const detail = (await inspected)!;
      expect(detail['task'], JSON.stringify(detail['task'])).toMatchObject({ attempt: 2, node: survivor.nodeId });
      const messages = (detail['timeline'] as Rec[]).map((e) => String(e['message']));
      expect(messages.some((m) => m.includes(`resumed from working on ${survivor.nodeId}`)), JSON.stringify(messages)).toBe(true);
    }, 60_000);
  }
});

describe('a task waiting for input outlives its worker', () => {
  const cases = [
    { tool: 'ask_name', args: {}, method: 'elicitation/create', capabilities: { elicitation: {} }, answer: (v: string) => ({ action: 'accept', content: { name: v } }), expected: (v: string) => `Hello, ${v}` },
    {
      tool: 'summarize',
      args: { text: 'A long text about durable tasks.' },
      method: 'sampling/createMessage',
      capabilities: { sampling: {} },
      answer: (v: string) => ({ role: 'assistant', content: { type: 'text', text: v }, model: 'test-model' }),
      expected: (v: string) => v,
    },
  ] as const;
  for (const c of cases) {
    it(`${c.tool}: SIGKILL its worker while input_required, start another, answer 3 s later through the other front node: it completes with the answer`, async () => {
      const [a, b] = fronts();
      const onA = await attachInteractiveHttpWire(a.url, diag, c.capabilities);
      wires.push(onA);
      const workers = await twoWorkers();
      const { taskId } = await create2025(onA, c.tool, c.args);
      const { node: runner } = await waitForRunner(workers, taskId, { attempt: 1, timeoutMs: 10_000, diagnostics: diag });
      await pollUntil(`task ${taskId} to ask`, async () => statusOf(await getTask(onA, taskId)), (s) => s === 'input_required', { timeoutMs: 10_000, intervalMs: 50, diagnostics: diag });
      await runner.crash();
      nodes.push(await startNode({ nats: nats!.url, prefix, label: `w${++spawned}`, role: 'worker', flags: ['--lease-ttl', String(LEASE_TTL)] }));

      // The answer comes 3 s later (past the lease): meanwhile the task still waits for it.
      const waited: string[] = [];
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        waited.push(statusOf(await getTask(onA, taskId)));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(new Set(waited), `statuses while the answer was awaited: ${JSON.stringify(waited)}\n${diag()}`).toEqual(new Set(['input_required']));

      const onB = attachHttpSession(b.url, onA.sessionId!, { interactive: true, serverStderr: diag });
      wires.push(onB);
      const channel = onB.sendRequestNoWait('tasks/result', { taskId });
      const asked = await onB.waitForServerRequest((r) => r.message.method === c.method, 15_000);
      const value = `answer-${randomUUID().slice(0, 6)}`;
      await onB.answer(asked.message.id, c.answer(value));
      const result = ok(await onB.responseFor(channel, 20_000));
      expect(textOf(result), `tasks/result on B: ${JSON.stringify(result)}\n${diag()}`).toBe(c.expected(value));
      expect(statusOf(await getTask(onA, taskId)), `status after the result\n${diag()}`).toBe('completed');
      const lost = nodes.flatMap((n) => n.workerLost(taskId));
      expect(lost.map((l) => l['action']), `worker lost lines: ${JSON.stringify(lost)}\n${diag()}`).toEqual(['resume']);
      // Resumed on a live worker as attempt 2, never re-asked under a new id.
      const runs = nodes.filter((n) => n !== runner).flatMap((n) => n.taskRuns(taskId));
      expect(runs.map((l) => l['attempt']), `runs after the kill: ${JSON.stringify(runs)}\n${diag()}`).toEqual([2]);
      const asks = onB.serverRequests.filter((r) => r.message.method === c.method);
      expect(asks, `requests on B: ${JSON.stringify(asks.map((r) => r.message))}\n${diag()}`).toHaveLength(1);
    }, 60_000);
  }
});

describe('machine handlers across a nats-server restart (file storage)', () => {
  it('20 long_job tasks running when the server is stopped and started again all complete', async () => {
    const wire = await attachHttpWire(fronts()[0].url, diag);
    wires.push(wire);
    await twoWorkers();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await create2025(wire, 'long_job', { seconds: 3 })).taskId);
    await pollUntil('all 20 to be working', async () => Promise.all(ids.map(async (id) => statusOf(await getTask(wire, id)))), (s) => s.every((x) => x === 'working'), { timeoutMs: 15_000, intervalMs: 100, diagnostics: diag });
    await nats!.restart();
    const ends = await pollUntil(
      'all 20 to end',
      async () => Promise.all(ids.map(async (id) => statusOf(await getTask(wire, id).catch(() => ({}))))),
      (s) => s.every((x) => TERMINAL_SEP.includes(x)),
      { timeoutMs: 40_000, intervalMs: 250, diagnostics: diag },
    );
    expect(ends, diag()).toEqual(ids.map(() => 'completed'));
    for (const id of ids) expect(textOf(ok(await wire.request('tasks/result', { taskId: id }))), diag()).toBe('long_job done in 3 s');
  }, 90_000);
});

describe('a SEP-1686 task waiting for input outlives its worker', () => {
  it('ask_name: the question asked on the original tools/call stream, its worker SIGKILLed, answered 3 s later through the other front node: the tools/call completes with the answer', async () => {
    const [a, b] = fronts();
    const onA = await attachInteractiveHttpWire(a.url, diag, { elicitation: {} });
    wires.push(onA);
    const workers = await twoWorkers();
    const { taskId, requestId } = await createSep(onA, 'ask_name', {});
    const ask = await onA.waitForServerRequest((r) => r.message.method === 'elicitation/create', 10_000);
    const { node: runner } = await waitForRunner(workers, taskId, { attempt: 1, timeoutMs: 10_000, diagnostics: diag });
    await runner.crash();
    nodes.push(await startNode({ nats: nats!.url, prefix, label: `w${++spawned}`, role: 'worker', flags: ['--lease-ttl', String(LEASE_TTL)] }));
    // Past the lease: the task still waits for its answer, and the request is still open.
    const waited: string[] = [];
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      waited.push(statusOf(await getTask(onA, taskId)));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(new Set(waited), `statuses while the answer was awaited: ${JSON.stringify(waited)}\n${diag()}`).toEqual(new Set(['input_required']));
    expect(onA.responseReceived(requestId), 'the tools/call was answered before its question was').toBe(false);
    // The answer goes to B, in A's session, and reaches the resumed handler.
    const onB = attachHttpSession(b.url, onA.sessionId!, { interactive: true, serverStderr: diag });
    wires.push(onB);
    await onB.answer(ask.message.id, { action: 'accept', content: { name: 'Grace' } });
    const result = ok(await onA.responseFor(requestId, 20_000));
    expect(textOf(result), `tools/call result on A: ${JSON.stringify(result)}\n${diag()}`).toBe('Hello, Grace');
    const lost = nodes.flatMap((n) => n.workerLost(taskId));
    expect(lost.map((l) => l['action']), `worker lost lines: ${JSON.stringify(lost)}\n${diag()}`).toEqual(['resume']);
    // Asked once: the resumed handler asked again under the same id, which the requester already had.
    expect(onA.serverRequests.map((r) => r.message.method)).toEqual(['elicitation/create']);
  }, 60_000);
});
