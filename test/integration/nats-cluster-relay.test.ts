/**
 * Client messages POSTed to a front node other than the one holding the request they belong to are
 * relayed over NATS to that node: one nats-server, front nodes A and B (`--role front`) and one
 * worker (`--role worker`), on a fresh `--nats-prefix`.
 *
 * - SEP-1686 `ask_name` created on A: `elicitation/create` arrives on A's open tools/call stream,
 *   its answer is POSTed to B only (same session); A must receive it through the relay, so the
 *   original tools/call on A is answered with "Hello, Ada".
 * - SEP-1686 `long_job` created on A: `notifications/cancelled` for the tools/call is POSTed to B
 *   only; A must receive it through the relay, so the task ends `cancelled` and the worker stops it.
 *
 * Every POST this test process makes is recorded (a wrapper around the global `fetch`, which the
 * wires use), so the tests can show that the answer and the cancel went to B, never to A.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, pollUntil, startNodes, waitForRunner, type ClusterNode } from './harness/cluster.js';
import { attachHttpSession, attachHttpWire, attachInteractiveHttpWire } from './harness/http-wire.js';
import { metaOf, ok } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { createSep, getTask, SEP_RELATED, statusOf, TERMINAL_SEP, textOf } from './harness/task-calls.js';
import { isRecord, type JsonRpcId, type Wire } from './harness/types.js';

/** One POST made by this test process. */
interface SentPost {
  readonly url: string;
  readonly message: unknown;
}

const posts: SentPost[] = [];
const realFetch = globalThis.fetch;

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/** The POSTs to `url` whose body is `match`ed (a batch body counts when any of its messages does). */
function postsTo(url: string, match: (message: Record<string, unknown>) => boolean): SentPost[] {
  return posts.filter((p) => {
    if (p.url !== url) return false;
    const messages: unknown[] = Array.isArray(p.message) ? p.message : [p.message];
    return messages.some((m) => isRecord(m) && match(m));
  });
}

const isAnswerTo =
  (id: JsonRpcId) =>
  (m: Record<string, unknown>): boolean =>
    !('method' in m) && m['id'] === id && ('result' in m || 'error' in m);

const isCancelOf =
  (requestId: JsonRpcId) =>
  (m: Record<string, unknown>): boolean =>
    m['method'] === 'notifications/cancelled' && isRecord(m['params']) && m['params']['requestId'] === requestId;

describe('NATS cluster: answers and cancels POSTed to another front node are relayed to the node holding the request', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  const wires: Wire[] = [];
  const reported = new Map<Wire, number>();
  const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

  const node = (label: string): ClusterNode => {
    const found = nodes.find((n) => n.label === label);
    if (found === undefined) throw new Error(`node ${label} did not start`);
    return found;
  };

  beforeAll(async () => {
    globalThis.fetch = async (input, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string') {
        let message: unknown;
        try {
          message = JSON.parse(init.body);
        } catch {
          message = init.body;
        }
        posts.push({ url: urlOf(input), message });
      }
      return realFetch(input, init);
    };
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('relay');
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
    globalThis.fetch = realFetch;
  }, 30_000);

  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      console.error(`[nats-cluster-relay] ${ctx.task.name} failed; node logs:\n${diag()}`);
    });
  });

  afterEach(() => {
    for (const w of wires) {
      const fresh = w.violations.slice(reported.get(w) ?? 0);
      reported.set(w, w.violations.length);
      expect(fresh, `protocol violations\n${diag()}`).toEqual([]);
    }
  });

  it('SEP-1686 ask_name on A: the elicitation/create answer POSTed to B only completes the tools/call still open on A', async () => {
    const a = node('A');
    const b = node('B');
    const worker = node('W');
    const onA = await attachInteractiveHttpWire(a.url, diag, { elicitation: {} });
    wires.push(onA);
    const sessionId = onA.sessionId!;

    const { taskId, requestId } = await createSep(onA, 'ask_name', {});
    const ask = await onA.waitForServerRequest((r) => r.message.method === 'elicitation/create', 10_000).catch((error: unknown) => {
      throw new Error(
        `no elicitation/create arrived on A (tools/call ${JSON.stringify(requestId)} answered: ${JSON.stringify(onA.inbound.find((e) => e.kind === 'response' && e.message.id === requestId))}): ${String(error)}\n${diag()}`,
      );
    });
    expect(ask.origin, `elicitation/create must travel on A's original tools/call stream\n${diag()}`).toBe('POST tools/call (sse)');
    expect(ask.message.params?.['message']).toBe('What is your name?');
    expect(metaOf(ask.message.params)?.[SEP_RELATED], JSON.stringify(ask.message)).toEqual({ taskId });
    expect(onA.responseReceived(requestId), 'the tools/call was answered before the question was').toBe(false);

    // the answer goes to B, in A's session; B has no request with that id and must relay it
    const onB = attachHttpSession(b.url, sessionId, { interactive: true, serverStderr: diag });
    wires.push(onB);
    await onB.answer(ask.message.id, { action: 'accept', content: { name: 'Ada' } });

    const res = await onA.responseFor(requestId, 15_000).catch((error: unknown) => {
      throw new Error(
        `the tools/call on A (id ${JSON.stringify(requestId)}) was not answered after the elicitation answer (id ${JSON.stringify(ask.message.id)}) was POSTed to B: ${String(error)}\n${diag()}`,
      );
    });
    const result = ok(res);
    expect(textOf(result), `tools/call result on A: ${JSON.stringify(result)}\n${diag()}`).toBe('Hello, Ada');
    expect(result['isError'] ?? false, JSON.stringify(result)).toBe(false);

    const onBState = await getTask(onB, taskId);
    expect(statusOf(onBState), `tasks/get through B: ${JSON.stringify(onBState)}\n${diag()}`).toBe('completed');

    // the answer was POSTed once, to B, and never to A: A got it only through the relay
    expect(postsTo(b.url, isAnswerTo(ask.message.id)), 'the answer was POSTed to B once').toHaveLength(1);
    expect(postsTo(a.url, isAnswerTo(ask.message.id)), 'the answer must not have been POSTed to A').toEqual([]);
    // only the one question was asked, and only on A
    expect(onA.serverRequests.map((r) => r.message.method)).toEqual(['elicitation/create']);
    expect(onB.serverRequests).toEqual([]);
    expect(worker.taskRuns(taskId).map((l) => l['node']), diag()).toEqual([worker.nodeId]);
  }, 30_000);

  it('SEP-1686 long_job on A: notifications/cancelled POSTed to B only cancels it within 3 s, and the worker ends the run cancelled', async () => {
    const a = node('A');
    const b = node('B');
    const worker = node('W');
    const onA = await attachHttpWire(a.url, diag);
    wires.push(onA);
    const sessionId = onA.sessionId!;

    const { taskId, requestId } = await createSep(onA, 'long_job', { seconds: 30 });
    await waitForRunner([worker], taskId, { timeoutMs: 10_000, diagnostics: diag });
    await pollUntil(`task ${taskId} to be working`, () => getTask(onA, taskId, 5_000), (s) => statusOf(s) === 'working' || TERMINAL_SEP.includes(statusOf(s)), {
      timeoutMs: 10_000,
      intervalMs: 50,
      diagnostics: diag,
    }).then((s) => expect(statusOf(s), `${JSON.stringify(s)}\n${diag()}`).toBe('working'));

    const onB = attachHttpSession(b.url, sessionId, { serverStderr: diag });
    wires.push(onB);
    const cancelAt = Date.now();
    await onB.notify('notifications/cancelled', { requestId, reason: 'stop' });

    // poll both nodes in turn
    let turn = 0;
    const seen: string[] = [];
    const state = await pollUntil(
      `task ${taskId} to end after notifications/cancelled {requestId: ${JSON.stringify(requestId)}} was POSTed to B`,
      () => getTask(turn++ % 2 === 0 ? onA : onB, taskId, 2_000),
      (s) => {
        seen.push(statusOf(s));
        return TERMINAL_SEP.includes(statusOf(s));
      },
      { timeoutMs: 3_000, intervalMs: 50, diagnostics: () => `statuses seen: ${JSON.stringify(seen)}\n${diag()}` },
    );
    const elapsed = Date.now() - cancelAt;
    expect(statusOf(state), `state: ${JSON.stringify(state)}\n${diag()}`).toBe('cancelled');
    expect(elapsed, `cancelled ${elapsed} ms after the cancel was POSTed to B`).toBeLessThanOrEqual(3_000);
    for (const w of [onA, onB]) expect(statusOf(await getTask(w, taskId)), diag()).toBe('cancelled');

    const end = await worker.waitForLine((l) => l['msg'] === 'task end' && l['taskId'] === taskId, `"task end" of ${taskId}`, 5_000);
    expect(end['status'], `${JSON.stringify(end)}\n${diag()}`).toBe('cancelled');
    expect(worker.lines().filter((l) => l['msg'] === 'task end' && l['taskId'] === taskId), diag()).toHaveLength(1);

    // the cancel was POSTed once, to B, and never to A: A got it only through the relay
    expect(postsTo(b.url, isCancelOf(requestId)), 'the cancel was POSTed to B once').toHaveLength(1);
    expect(postsTo(a.url, isCancelOf(requestId)), 'the cancel must not have been POSTed to A').toEqual([]);
  }, 30_000);
});
