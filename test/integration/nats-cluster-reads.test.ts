/**
 * Three `serve --http 0 --nats URL` nodes (role both, the default) on one nats-server share HTTP
 * sessions and tasks: a task created through node A is read (tasks/get, tasks/result) through node B
 * and listed through node C with A's Mcp-Session-Id, in both dialects; another session gets
 * "not found" for it on every node.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, pollUntil, startNodes, type ClusterNode } from './harness/cluster.js';
import { attachHttpSession, attachHttpWire } from './harness/http-wire.js';
import { ok, type Rec } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import {
  createTask,
  expectError,
  getTask,
  INVALID_PARAMS,
  listAll,
  NOT_FOUND,
  statusOf,
  textOf,
  type Dialect,
} from './harness/task-calls.js';
import type { InteractiveWire, Wire } from './harness/types.js';

type SessionWire = Wire & { readonly sessionId: string | undefined };

describe('NATS cluster: sessions and tasks shared by three nodes', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  const wires: Wire[] = [];
  /** A's session, on A (initialized there), B and C. */
  let owner: { a: SessionWire; b: InteractiveWire; c: InteractiveWire };
  /** Another session (initialized on C), on A, B and C. */
  let other: { a: InteractiveWire; b: InteractiveWire; c: SessionWire };

  const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('reads');
    nodes = await startNodes(['A', 'B', 'C'].map((label) => ({ label, nats: nats!.url, prefix })));
    const [a, b, c] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    const ownerA = await attachHttpWire(a.url, () => diag());
    wires.push(ownerA);
    const ownerSid = ownerA.sessionId!;
    const otherC = await attachHttpWire(c.url, () => diag());
    wires.push(otherC);
    const otherSid = otherC.sessionId!;
    expect(otherSid).not.toBe(ownerSid);
    owner = {
      a: ownerA,
      b: attachHttpSession(b.url, ownerSid, { serverStderr: () => diag() }),
      c: attachHttpSession(c.url, ownerSid, { serverStderr: () => diag() }),
    };
    other = {
      a: attachHttpSession(a.url, otherSid, { serverStderr: () => diag() }),
      b: attachHttpSession(b.url, otherSid, { serverStderr: () => diag() }),
      c: otherC,
    };
    wires.push(owner.b, owner.c, other.a, other.b);
  }, 60_000);

  afterAll(async () => {
    // borrowed sessions first (they do not end the session), then the owners, then the processes
    for (const w of [...wires].reverse()) await w.close().catch(() => undefined);
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      console.error(`[nats-cluster-reads] ${ctx.task.name} failed; node logs:\n${diag()}`);
    });
  });

  const seen = new Map<Wire, number>();
  afterEach(() => {
    for (const w of wires) {
      const fresh = w.violations.slice(seen.get(w) ?? 0);
      seen.set(w, w.violations.length);
      expect(fresh, `protocol violations on a wire\n${diag()}`).toEqual([]);
    }
  });

  for (const dialect of ['sep-1686', '2025-11-25'] as const satisfies readonly Dialect[]) {
    it(`${dialect}: a sleep task created through A is read through B and listed through C with A's session`, async () => {
      const created = await createTask(owner.a, dialect, 'sleep', { ms: 700 });
      const { taskId } = created;

      // B: tasks/get with A's session id knows the task (whatever its status by now)
      const onB = await getTask(owner.b, taskId);
      expect(onB['taskId'], diag()).toBe(taskId);
      expect(['submitted', 'working', 'completed'], `status on B: ${JSON.stringify(onB)}\n${diag()}`).toContain(statusOf(onB));

      // C: tasks/list with A's session id lists it
      const listedOnC = await listAll(owner.c);
      expect(
        listedOnC.map((t) => t['taskId']),
        `tasks/list on C with A's session: ${JSON.stringify(listedOnC)}\n${diag()}`,
      ).toContain(taskId);

      // B: the result
      let resultOnB: Rec;
      if (dialect === '2025-11-25') {
        // tasks/result blocks until the task is terminal
        resultOnB = ok(await owner.b.request('tasks/result', { taskId }, { timeoutMs: 15_000 }));
      } else {
        await pollUntil(
          `SEP-1686 task ${taskId} to be completed on B`,
          () => getTask(owner.b, taskId),
          (s) => statusOf(s) === 'completed',
          { timeoutMs: 15_000, diagnostics: diag },
        );
        resultOnB = ok(await owner.b.request('tasks/result', { taskId }));
        // the original tools/call on A got the same result
        const onA = ok(await owner.a.responseFor(created.requestId, 15_000));
        expect(textOf(onA), diag()).toBe('slept 700 ms');
      }
      expect(textOf(resultOnB), `tasks/result on B: ${JSON.stringify(resultOnB)}\n${diag()}`).toBe('slept 700 ms');
      expect(resultOnB['isError'] ?? false).toBe(false);

      // completed as seen from every node, and listed as completed on C
      for (const w of [owner.a, owner.b, owner.c]) expect(statusOf(await getTask(w, taskId)), diag()).toBe('completed');
      const entry = (await listAll(owner.c)).find((t) => t['taskId'] === taskId);
      expect(entry?.['status'], `list entry on C: ${JSON.stringify(entry)}\n${diag()}`).toBe('completed');
    }, 40_000);
  }

  it("another session gets 'not found' for A's tasks on all three nodes, and does not list them", async () => {
    const mine = [
      await createTask(owner.a, '2025-11-25', 'sleep', { ms: 0 }),
      await createTask(owner.a, 'sep-1686', 'sleep', { ms: 0 }),
    ];
    const theirs = await createTask(other.c, '2025-11-25', 'sleep', { ms: 0 });
    for (const { taskId } of mine) {
      // control: the task exists, A's session finds it through every node
      for (const w of [owner.a, owner.b, owner.c]) expect((await getTask(w, taskId))['taskId'], diag()).toBe(taskId);
      // the other session, through every node: not found
      for (const [name, w] of Object.entries(other)) {
        const context = `(other session on node ${name.toUpperCase()})\n${diag()}`;
        expectError(await w.request('tasks/get', { taskId }), INVALID_PARAMS, NOT_FOUND, context);
        expectError(await w.request('tasks/result', { taskId }, { timeoutMs: 15_000 }), INVALID_PARAMS, NOT_FOUND, context);
      }
    }
    for (const [name, w] of Object.entries(other)) {
      const listed = (await listAll(w)).map((t) => t['taskId']);
      expect(listed, `tasks/list of the other session on node ${name.toUpperCase()}\n${diag()}`).toContain(theirs.taskId);
      for (const { taskId } of mine) expect(listed, `other session on ${name.toUpperCase()} lists A's task`).not.toContain(taskId);
    }
    // and A's session does not see the other session's task, on any node
    for (const [name, w] of Object.entries(owner)) {
      expectError(await w.request('tasks/get', { taskId: theirs.taskId }), INVALID_PARAMS, NOT_FOUND, `(A's session on ${name})\n${diag()}`);
      expect((await listAll(w)).map((t) => t['taskId'])).not.toContain(theirs.taskId);
    }
  }, 40_000);
});
