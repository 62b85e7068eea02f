/**
 * input_required across nodes: a 2025-11-25 `ask_name` task is created through front node A, runs
 * on a third, worker-only node, and its `elicitation/create` request is delivered on the
 * tasks/result stream the requester opened on front node B; the answer POSTed to B reaches the
 * handler, and the task completes with "Hello, <name>".
 *
 * Also: a node that cannot reach NATS at start-up exits quickly, naming the URL.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, pollUntil, runCli, startNodes, type ClusterNode } from './harness/cluster.js';
import { attachHttpSession, attachInteractiveHttpWire } from './harness/http-wire.js';
import { metaOf, ok } from './harness/json.js';
import { freePort, startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, getTask, RELATED_2025, statusOf, TERMINAL_2025, textOf } from './harness/task-calls.js';
import type { InteractiveWire } from './harness/types.js';

describe('NATS cluster: elicitation answered through another front node', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  const wires: InteractiveWire[] = [];
  const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('input');
    nodes = await startNodes([
      { label: 'A', role: 'front', nats: nats.url, prefix },
      { label: 'B', role: 'front', nats: nats.url, prefix },
      { label: 'W', role: 'worker', nats: nats.url, prefix },
    ]);
  }, 40_000);

  afterAll(async () => {
    for (const w of [...wires].reverse()) await w.close().catch(() => undefined);
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      console.error(`[nats-cluster-input] ${ctx.task.name} failed; node logs:\n${diag()}`);
    });
  });

  afterEach(() => {
    for (const w of wires) expect(w.violations, `protocol violations\n${diag()}`).toEqual([]);
  });

  it('ask_name created on A, tasks/result on B: elicitation/create arrives on B, the answer to B completes it; it ran on the worker', async () => {
    const [a, b, worker] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    // the session declares elicitation at initialize, on A
    const onA = await attachInteractiveHttpWire(a.url, diag, { elicitation: {} });
    wires.push(onA);
    const { taskId } = await create2025(onA, 'ask_name', {});

    const states: string[] = [];
    await pollUntil(
      `task ${taskId} to be input_required`,
      async () => statusOf(await getTask(onA, taskId)),
      (s) => {
        states.push(s);
        return s === 'input_required' || TERMINAL_2025.includes(s);
      },
      { timeoutMs: 10_000, intervalMs: 50, diagnostics: diag },
    );
    expect(states.at(-1), `statuses seen on A: ${JSON.stringify(states)}\n${diag()}`).toBe('input_required');

    // the same session on B opens tasks/result; the question arrives on that stream
    const onB = attachHttpSession(b.url, onA.sessionId!, { interactive: true, serverStderr: diag });
    wires.push(onB);
    const channel = onB.sendRequestNoWait('tasks/result', { taskId });
    const asked = onB.waitForServerRequest((r) => r.message.method === 'elicitation/create', 10_000);
    // if tasks/result is answered before any question arrives, say so at once instead of timing out
    const answeredFirst = onB.responseFor(channel, 10_000).then((res) => {
      if (onB.serverRequests.length === 0) throw new Error(`tasks/result on B was answered before any elicitation/create: ${JSON.stringify(res)}\n${diag()}`);
      return asked;
    });
    asked.catch(() => undefined);
    answeredFirst.catch(() => undefined);
    const ask = await Promise.race([asked, answeredFirst]);
    expect(ask.origin, `elicitation/create must travel on B's tasks/result stream\n${diag()}`).toBe('POST tasks/result (sse)');
    const params = ask.message.params ?? {};
    expect(params['message']).toBe('What is your name?');
    expect(metaOf(params)?.[RELATED_2025], JSON.stringify(ask.message)).toEqual({ taskId });
    expect(onA.serverRequests, 'A, which has no open stream, got the question').toEqual([]);

    const name = `Ada-${randomUUID().slice(0, 6)}`;
    await onB.answer(ask.message.id, { action: 'accept', content: { name } });
    const result = ok(await onB.responseFor(channel, 15_000));
    expect(textOf(result), `tasks/result on B: ${JSON.stringify(result)}\n${diag()}`).toBe(`Hello, ${name}`);
    expect(result['isError'] ?? false).toBe(false);
    expect(metaOf(result)?.[RELATED_2025]).toEqual({ taskId });

    for (const w of [onA, onB]) expect(statusOf(await getTask(w, taskId)), diag()).toBe('completed');

    // it ran on the worker-only node, once; the front nodes run no handlers
    expect(worker.taskRuns(taskId).map((l) => l['node']), diag()).toEqual([worker.nodeId]);
    expect(a.taskRuns(), diag()).toEqual([]);
    expect(b.taskRuns(), diag()).toEqual([]);
  }, 40_000);
});

describe('NATS cluster: start-up without a reachable NATS server', () => {
  it('`serve --nats nats://127.0.0.1:<closed port> --http 0` exits non-zero within 10 s, naming the URL', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const run = await runCli(['serve', '--nats', url, '--http', '0'], 12_000);
    const context = `code ${String(run.code)}, signal ${String(run.signal)}, ${run.elapsedMs} ms\n--- stderr ---\n${run.stderr.slice(-3000)}`;
    expect(run.timedOut, `still running after 12 s: ${context}`).toBe(false);
    expect(run.elapsedMs, context).toBeLessThan(10_000);
    expect(run.code, context).not.toBe(0);
    expect(run.code, `killed by a signal rather than exiting: ${context}`).not.toBeNull();
    expect(run.stderr, context).toContain(url);
    expect(run.stderr, `it must not have started serving MCP: ${context}`).not.toMatch(/http:\/\/127\.0\.0\.1:\d+\/mcp/);
  }, 20_000);
});
