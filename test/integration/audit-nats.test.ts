/**
 * The audit on a NATS cluster of two nodes: a status change is logged once in the cluster, by the
 * node that wrote it (not by every node that sees the event), and each node's counters of
 * suspicious requesters are shown by `mcp-tasks status --nats URL [--json]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeNodes,
  clusterStatus,
  describeNodes,
  freshPrefix,
  pollUntil,
  runCli,
  startNodes,
  waitForRunner,
  type ClusterNode,
  type LogLine,
} from './harness/cluster.js';
import { attachHttpSession, attachHttpWire } from './harness/http-wire.js';
import { isRecord } from './harness/types.js';
import { ok } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, getTask, statusOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';
import { shortened } from '../../runtime/secrets.js';

type SessionWire = Wire & { readonly sessionId: string | undefined };

describe('audit on a NATS cluster of two nodes', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  let a: ClusterNode;
  let b: ClusterNode;
  let prefix: string;
  const wires: Wire[] = [];
  let owner: SessionWire;
  let ownerOnB: SessionWire;
  let other: SessionWire;

  const diag = (): string => describeNodes(nodes);
  /** Audit lines of `event` (for `taskId`) over every node. */
  const audit = (event: string, taskId?: string): LogLine[] =>
    nodes.flatMap((n) => n.lines()).filter((l) => l['event'] === event && (taskId === undefined || l['taskId'] === taskId));

  /**
   * Waits until each node's event feed has delivered an event published after every event so far:
   * through each node, a tasks/result of a fresh task waits for that task's end, and wakes when the
   * end arrives through the node's own feed. A node logs in order, so a line it would have logged
   * on seeing an earlier event is in once its task.result line for the fresh task is.
   */
  async function feedsPassed(): Promise<void> {
    const marker = await create2025(owner, 'sleep', { ms: 200 });
    await Promise.all([owner, ownerOnB].map(async (wire) => ok(await wire.request('tasks/result', { taskId: marker.taskId }))));
    await pollUntil(
      'each node to log the fresh task result',
      async () => audit('task.result', marker.taskId),
      (ls) => [a, b].every((n) => ls.some((l) => l['node'] === n.nodeId)),
      { diagnostics: diag },
    );
  }

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    prefix = freshPrefix('audit');
    nodes = await startNodes([
      { label: 'A', nodeId: `${prefix}-a`, nats: nats.url, prefix },
      { label: 'B', nodeId: `${prefix}-b`, nats: nats.url, prefix },
    ]);
    [a, b] = nodes as [ClusterNode, ClusterNode];
    owner = await attachHttpWire(a.url, diag);
    ownerOnB = attachHttpSession(b.url, owner.sessionId!, { serverStderr: diag });
    other = await attachHttpWire(b.url, diag);
    wires.push(ownerOnB, other, owner);
  }, 60_000);

  afterAll(async () => {
    for (const w of wires) await w.close().catch(() => undefined);
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  it('should log each status change once in the cluster, by the node that wrote it', async () => {
    const task = await create2025(owner, 'sleep', { ms: 300 });
    await pollUntil('completed, read through B', () => getTask(ownerOnB, task.taskId), (t) => statusOf(t) === 'completed', { diagnostics: diag });
    ok(await ownerOnB.request('tasks/result', { taskId: task.taskId }));
    const { node: runner } = await waitForRunner(nodes, task.taskId, { diagnostics: diag });
    await pollUntil('the completed line', async () => audit('task.status', task.taskId), (ls) => ls.some((l) => l['to'] === 'completed'), { diagnostics: diag });
    // Both nodes watch every event: a second line, if one were written, is in once both feeds passed it.
    await feedsPassed();

    const who = { taskId: task.taskId, session: shortened(owner.sessionId!), principal: null };
    const created = audit('task.created', task.taskId);
    expect(created).toEqual([expect.objectContaining({ ...who, node: a.nodeId })]);
    const changes = audit('task.status', task.taskId);
    expect(changes.map((l) => `${String(l['from'])}→${String(l['to'])}`)).toEqual(['submitted→working', 'working→completed']);
    for (const l of changes) expect(l).toMatchObject({ ...who, node: runner.nodeId });
    expect(audit('task.result', task.taskId)).toEqual([expect.objectContaining({ ...who, node: b.nodeId, op: expect.stringMatching(/^(peek|waitForOutcome)$/) })]);
  });

  it('should log a cancel made through B once, by B', async () => {
    const task = await create2025(owner, 'long_job', { seconds: 5 });
    await waitForRunner(nodes, task.taskId, { diagnostics: diag });
    ok(await ownerOnB.request('tasks/cancel', { taskId: task.taskId }));
    await pollUntil('the cancelled line', async () => audit('task.status', task.taskId), (ls) => ls.some((l) => l['to'] === 'cancelled'), { diagnostics: diag });
    await feedsPassed();
    expect(audit('task.status', task.taskId).filter((l) => l['to'] === 'cancelled')).toEqual([expect.objectContaining({ from: 'working', node: b.nodeId })]);
    expect(audit('task.cancelled', task.taskId)).toEqual([expect.objectContaining({ node: b.nodeId, session: shortened(owner.sessionId!) })]);
  });

  it("should show each node's counters of failed look-ups in mcp-tasks status", async () => {
    for (let i = 0; i < 25; i++) await other.request('tasks/get', { taskId: `guess-${i}` });
    expect(b.lines().filter((l) => l['event'] === 'suspicious' && l['session'] === shortened(other.sessionId!))).toHaveLength(1);
    const security = (status: Awaited<ReturnType<typeof clusterStatus>>, nodeId: string): Record<string, unknown> => {
      const node = (status.raw['nodes'] as unknown[]).find((n) => isRecord(n) && n['nodeId'] === nodeId);
      return isRecord(node) && isRecord(node['security']) ? node['security'] : {};
    };
    // Counters travel with the heartbeat (every 2 s).
    const status = await pollUntil(
      'the counters of B in status --json',
      () => clusterStatus(nats!.url, prefix),
      (s) => (security(s, b.nodeId)['totals'] as { failedLookups?: number } | undefined)?.failedLookups === 25,
      { timeoutMs: 10_000, intervalMs: 500, diagnostics: diag },
    );
    expect(security(status, b.nodeId)).toMatchObject({
      enabled: true,
      node: b.nodeId,
      flagged: 1,
      totals: { failedLookups: 25, flags: 1 },
    });
    // The worst first; the owner's session may follow with fast polls (this test polls every 50 ms).
    expect((security(status, b.nodeId)['top'] as unknown[])[0]).toMatchObject({ session: shortened(other.sessionId!), failedLookups: 25, flagged: true });
    expect(security(status, a.nodeId)).toMatchObject({ enabled: true, node: a.nodeId, totals: { failedLookups: 0 } });

    const text = await runCli(['status', '--nats', nats!.url, '--nats-prefix', prefix]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('failed look-ups 25');
    expect(text.stdout).toContain(`FLAGGED session ${shortened(other.sessionId!)}`);
  });
});
