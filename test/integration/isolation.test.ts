/**
 * Isolation (issue 7; SEP-1686 §8.1): a task is bound to the HTTP session and, when the transport
 * authenticates, to the principal that created it. Another requester gets exactly the answer it
 * would get for a task id nobody ever used, for tasks/get, tasks/result, tasks/cancel,
 * tasks/delete, tasks/list and for answers to the owner's input requests; reusing the owner's task
 * id (SEP-1686 lets the requester choose it) makes a task of the other requester's own and reveals
 * or changes nothing of the owner's.
 *
 * Table-driven over
 * - backend: memory (one `serve --http 0`), nats (two `--role both` nodes on one nats-server; the
 *   owner's session begins on node 1, the other requester's on node 2, and both are also used
 *   through the other node);
 * - separation: two anonymous sessions; two principals (alice, bob: `--auth-token`), each with its
 *   own session;
 * - dialect: SEP-1686 and 2025-11-25 (the owner's tasks; the other requester probes them the same way).
 *
 * Every probe of the other requester (B) is compared, error code + message + data, with the same
 * probe of an unused id; the same calls from the owner (A) find its tasks, so a "not found" cannot
 * come from a broken call. At the end A's tasks are as before (status, result), and A answers its
 * pending question and gets its own result.
 *
 * One deployment per backend and separation (beforeAll), reused by both dialects; rate limits off.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pollUntil } from './harness/cluster.js';
import { ask, expectVictimsUnchanged } from './harness/hostile.js';
import {
  closeRequester,
  createOwnTasks,
  normalizedAnswer,
  normalizedReply,
  openRequester,
  rawHttp,
  startDeployment,
  unusedId,
  type Backend,
  type Deployment,
  type OwnTasks,
  type Requester,
  type SessionWire,
} from './harness/isolation.js';
import { ok, type Rec } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { createSep, getTask, INVALID_PARAMS, listAll, NOT_FOUND, statusOf, textOf, type Dialect } from './harness/task-calls.js';

const TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/delete'] as const;
const UNAUTHORIZED = -32001;

interface Separation {
  readonly name: string;
  /** Tokens of A and B (principals alice and bob), or none: anonymous sessions. */
  readonly tokens: { readonly a: string; readonly b: string } | undefined;
}

const SEPARATIONS: readonly Separation[] = [
  { name: 'two anonymous sessions', tokens: undefined },
  { name: 'two principals (alice, bob), each with its own session', tokens: { a: `alice-${randomUUID()}`, b: `bob-${randomUUID()}` } },
];
const DIALECTS: readonly Dialect[] = ['sep-1686', '2025-11-25'];

/** The servers and the two requesters of one backend × separation, shared by its tests. */
interface Setup {
  readonly deployment: Deployment;
  /** The owner of the tasks (alice), its session begun on the first node. */
  readonly a: Requester;
  /** The other requester (bob), its session begun on the last node (node 2 with NATS). */
  readonly b: Requester;
}

function describeSeparation(backend: Backend, separation: Separation, natsServer: () => NatsServer | undefined): void {
  describe(separation.name, () => {
    let setup: Setup | undefined;
    const get = (): Setup => {
      if (setup === undefined) throw new Error('deployment not started');
      return setup;
    };
    const diag = (): string => setup?.deployment.diag() ?? '(no deployment)';
    const allWires = (): SessionWire[] => (setup === undefined ? [] : [...setup.a.wires, ...setup.b.wires].map((w) => w.wire));

    beforeAll(async () => {
      const { tokens } = separation;
      const flags = tokens === undefined ? [] : ['--auth-token', `${tokens.a}=alice`, '--auth-token', `${tokens.b}=bob`];
      const deployment = await startDeployment(backend, flags, natsServer());
      try {
        const a = await openRequester(deployment, tokens ? 'A (alice)' : 'A', 0, tokens?.a);
        const b = await openRequester(deployment, tokens ? 'B (bob)' : 'B', deployment.urls.length - 1, tokens?.b);
        expect(b.sessionId).not.toBe(a.sessionId);
        setup = { deployment, a, b };
      } catch (error) {
        await deployment.close();
        throw error;
      }
    }, 40_000);

    afterAll(async () => {
      await closeRequester(setup?.b);
      await closeRequester(setup?.a);
      await setup?.deployment.close();
    }, 20_000);

    beforeEach((ctx) => {
      ctx.onTestFailed(() => console.error(`[isolation ${backend} / ${separation.name}] ${ctx.task.name} failed\n${diag()}`));
    });

    const seen = new Map<SessionWire, number>();
    afterEach(() => {
      for (const w of allWires()) {
        const fresh = w.violations.slice(seen.get(w) ?? 0);
        seen.set(w, w.violations.length);
        expect(fresh, `protocol violations on a wire\n${diag()}`).toEqual([]);
      }
    });

    for (const dialect of DIALECTS) describeDialect(dialect, get, diag);

    if (separation.tokens !== undefined) describePrincipals(separation.tokens, get);
  });
}

/** B gets for `taskId` exactly what it gets for an unused id (request id and the id asked about aside). */
async function expectLikeUnused(wire: SessionWire, method: string, taskId: string, context: string): Promise<void> {
  const probe = await ask(wire, method, { taskId });
  const unused = unusedId();
  const control = await ask(wire, method, { taskId: unused });
  expect(probe.res.error, `${context}: must be an error, got ${JSON.stringify(probe.res)}`).toBeDefined();
  expect(control.res.error?.code, `${context}: an unused id`).toBe(INVALID_PARAMS);
  expect(control.res.error?.message, `${context}: an unused id`).toBe(NOT_FOUND);
  expect(normalizedAnswer(probe.res, taskId), `${context}: must be indistinguishable from an unused task id`).toBe(normalizedAnswer(control.res, unused));
}

function describeDialect(dialect: Dialect, get: () => Setup, diag: () => string): void {
  describe(`A's ${dialect} tasks`, () => {
    let own: OwnTasks | undefined;
    const tasks = (): OwnTasks => {
      if (own === undefined) throw new Error(`A's ${dialect} tasks were not created`);
      return own;
    };
    const victims = (): OwnTasks['done'][] => [tasks().done, tasks().running, tasks().asking];
    /** How many server requests (questions) B's wires had received before A created these tasks. */
    let bQuestionsBefore = 0;

    beforeAll(async () => {
      const { a, b } = get();
      bQuestionsBefore = b.wires.reduce((n, w) => n + w.wire.serverRequests.length, 0);
      own = await createOwnTasks(a.home, dialect, diag);
    }, 30_000);

    it('control: A finds its tasks with the same calls, through every node', async () => {
      const { a } = get();
      for (const { node, wire } of a.wires) {
        for (const v of victims()) {
          const state = await getTask(wire, v.taskId);
          expect(state['taskId'], `${a.label} on ${node}: tasks/get ${v.label}`).toBe(v.taskId);
          expect(statusOf(state), `${a.label} on ${node}: tasks/get ${v.label}`).toBe(statusOf(v.state));
        }
        expect(ok(await wire.request('tasks/result', { taskId: tasks().done.taskId })), `${a.label} on ${node}: tasks/result`).toEqual(tasks().done.result);
        const listed = (await listAll(wire)).map((t) => t['taskId']);
        for (const v of victims()) expect(listed, `${a.label} on ${node}: tasks/list lists ${v.label}`).toContain(v.taskId);
      }
    });

    it(`B's tasks/get, tasks/result, tasks/cancel and tasks/delete of A's tasks answer exactly as for an unused id`, async () => {
      const { a, b } = get();
      for (const { node, wire } of b.wires) {
        for (const v of victims()) {
          for (const method of TASK_METHODS) {
            await expectLikeUnused(wire, method, v.taskId, `${b.label} on ${node}: ${method} of ${a.label}'s ${v.label}`);
          }
        }
      }
      await expectVictimsUnchanged(a.home, victims(), `after B's probes (${dialect})`);
    });

    it(`B's tasks/list lists none of A's tasks`, async () => {
      const { a, b } = get();
      for (const { node, wire } of b.wires) {
        const listed = await listAll(wire);
        const leaked = listed.filter((t) => victims().some((v) => v.taskId === t['taskId']));
        expect(leaked, `${b.label} on ${node}: tasks/list shows ${a.label}'s tasks`).toEqual([]);
      }
    });

    it(`B's answers to A's input request and B's cancels of A's requests are taken like any stray message, and change nothing`, async () => {
      const { a, b, deployment } = get();
      const { question, channelId } = tasks();
      const questionId = question.message.id;
      for (const { node, url } of b.wires) {
        const as = { token: b.token, sessionId: b.sessionId };
        // the owner's question answered from B's session, and a question nobody asked
        const strays: [string, Rec, Rec][] = [
          [
            `an accepting answer to A's elicitation/create`,
            { jsonrpc: '2.0', id: questionId, result: { action: 'accept', content: { name: 'Mallory' } } },
            { jsonrpc: '2.0', id: 987_654_321_123, result: { action: 'accept', content: { name: 'Mallory' } } },
          ],
          [
            `an error answer to A's elicitation/create`,
            { jsonrpc: '2.0', id: questionId, error: { code: -1, message: 'declined by Mallory' } },
            { jsonrpc: '2.0', id: 987_654_321_124, error: { code: -1, message: 'declined by Mallory' } },
          ],
          [
            `notifications/cancelled of A's open request carrying the question`,
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: channelId, reason: 'Mallory' } },
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 987_654_321_125, reason: 'Mallory' } },
          ],
          [
            `notifications/cancelled of A's running task's request`,
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: tasks().running.requestId, reason: 'Mallory' } },
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 987_654_321_126, reason: 'Mallory' } },
          ],
        ];
        for (const [what, probe, control] of strays) {
          const got = await rawHttp(url, { ...as, body: probe });
          const expected = await rawHttp(url, { ...as, body: control });
          expect(got.status, `${b.label} on ${node}: ${what}`).toBe(202);
          expect(JSON.stringify(got), `${b.label} on ${node}: ${what} must be taken like one for nobody`).toBe(JSON.stringify(expected));
        }
      }
      // Give a relayed answer (NATS) time to arrive where it must not have any effect.
      await new Promise((resolve) => setTimeout(resolve, deployment.backend === 'nats' ? 300 : 50));
      await expectVictimsUnchanged(a.home, victims(), `after B's answers and cancels (${dialect})`);
      expect(a.home.responseReceived(channelId), `A's ${dialect === 'sep-1686' ? 'tools/call' : 'tasks/result'} of ask_name was answered`).toBe(false);
      // SEP-1686: the long_job's tools/call stays open until the task ends (2025-11-25 answered it at once).
      if (dialect === 'sep-1686') expect(a.home.responseReceived(tasks().running.requestId), `A's long_job tools/call was answered`).toBe(false);
    });

    it(`B was never sent A's question nor any message about A's tasks`, () => {
      const { a, b } = get();
      const questions = b.wires.reduce((n, w) => n + w.wire.serverRequests.length, 0);
      expect(questions, `server requests sent to ${b.label}`).toBe(bQuestionsBefore);
      for (const { node, wire } of b.wires) {
        const text = JSON.stringify(wire.inbound);
        for (const v of victims()) expect(text.includes(v.taskId), `${b.label} on ${node} received something naming ${a.label}'s ${v.label}`).toBe(false);
      }
    });

    it(`B creating SEP-1686 tasks with A's task ids gets tasks of its own; A's are neither revealed nor changed`, async () => {
      const { a, b } = get();
      const bWire = b.home;
      const aMark = a.home.inbound.length;
      const aQuestions = a.home.serverRequests.length;

      // with A's completed task's id: the same answer as with an unused id
      const reused = await createSep(bWire, 'sleep', { ms: 3 }, { taskId: tasks().done.taskId });
      const fresh = await createSep(bWire, 'sleep', { ms: 3 });
      const reusedRes = await bWire.responseFor(reused.requestId, 10_000);
      const freshRes = await bWire.responseFor(fresh.requestId, 10_000);
      expect(textOf(ok(reusedRes)), `B's sleep under A's id`).toBe('slept 3 ms');
      expect(normalizedAnswer(reusedRes, reused.taskId), `B's task under A's id must be created like one under an unused id`).toBe(
        normalizedAnswer(freshRes, fresh.taskId),
      );
      expect(textOf(ok(await bWire.request('tasks/result', { taskId: reused.taskId }))), `B's tasks/result under A's id`).toBe('slept 3 ms');

      // with A's running task's id: B's own long_job, which B cancels
      const reusedRunning = await createSep(bWire, 'long_job', { seconds: 600 }, { taskId: tasks().running.taskId });
      await pollUntil(`B's long_job under A's id to be working`, () => getTask(bWire, reusedRunning.taskId), (s) => statusOf(s) === 'working', {
        diagnostics: diag,
      });
      expect(statusOf(ok(await bWire.request('tasks/cancel', { taskId: reusedRunning.taskId }))), `B cancels its long_job`).toBe('cancelled');
      await bWire.responseFor(reusedRunning.requestId, 10_000);

      // with A's waiting task's id: B's own sleep
      const reusedAsking = await createSep(bWire, 'sleep', { ms: 4 }, { taskId: tasks().asking.taskId });
      expect(textOf(ok(await bWire.responseFor(reusedAsking.requestId, 10_000))), `B's sleep under A's ask_name id`).toBe('slept 4 ms');

      // B's list: its own tasks under these ids, once each, with B's statuses
      for (const { node, wire } of b.wires) {
        const listed = await listAll(wire);
        const statusOfId = (id: string): unknown[] => listed.filter((t) => t['taskId'] === id).map((t) => t['status']);
        expect(statusOfId(tasks().done.taskId), `${b.label} on ${node}: tasks/list entry under A's completed id`).toEqual(['completed']);
        expect(statusOfId(tasks().running.taskId), `${b.label} on ${node}: tasks/list entry under A's running id`).toEqual(['cancelled']);
        expect(statusOfId(tasks().asking.taskId), `${b.label} on ${node}: tasks/list entry under A's ask_name id`).toEqual(['completed']);
      }

      // B's task under an unused id is as unknown to A as an unused id
      for (const { node, wire } of a.wires) {
        await expectLikeUnused(wire, 'tasks/get', fresh.taskId, `${a.label} on ${node}: tasks/get of B's task`);
        expect((await listAll(wire)).map((t) => t['taskId']), `${a.label} on ${node}: tasks/list shows B's task`).not.toContain(fresh.taskId);
      }

      // B deletes its tasks under A's ids: afterwards they are unknown to B again, A's stay
      for (const id of [reused.taskId, reusedRunning.taskId, reusedAsking.taskId]) {
        expect(ok(await bWire.request('tasks/delete', { taskId: id })), `B deletes its own task ${id}`).toBeDefined();
        for (const { node, wire } of b.wires) await expectLikeUnused(wire, 'tasks/get', id, `${b.label} on ${node}: tasks/get after deleting its task under A's id`);
      }
      expect(ok(await bWire.request('tasks/delete', { taskId: fresh.taskId }))).toBeDefined();

      await expectVictimsUnchanged(a.home, victims(), `after B reused A's task ids (${dialect})`);
      const toA = JSON.stringify(a.home.inbound.slice(aMark));
      expect(toA, `A received something about B's tasks`).not.toMatch(/slept [34] ms|notifications\/tasks\/created/);
      expect(a.home.serverRequests.length, 'A was sent new questions').toBe(aQuestions);
    });

    it(`afterwards A's tasks are unchanged, A answers its question and gets its own result`, async () => {
      const { a } = get();
      const { done, running, asking, question, channelId } = tasks();
      await expectVictimsUnchanged(a.home, victims(), `at the end (${dialect})`);

      const name = `Ada-${randomUUID().slice(0, 6)}`;
      await a.home.answer(question.message.id, { action: 'accept', content: { name } });
      const result = ok(await a.home.responseFor(channelId, 15_000));
      expect(textOf(result), `A's ask_name result`).toBe(`Hello, ${name}`);
      await pollUntil(`A's ask_name ${asking.taskId} to be completed`, () => getTask(a.home, asking.taskId), (s) => statusOf(s) === 'completed', {
        diagnostics: diag,
      });
      expect(textOf(ok(await a.home.request('tasks/result', { taskId: asking.taskId }, { timeoutMs: 10_000 })))).toBe(`Hello, ${name}`);

      // A's own cancel and delete work (the calls B got "not found" for are live ones)
      expect(statusOf(ok(await a.home.request('tasks/cancel', { taskId: running.taskId }))), `A cancels its long_job`).toBe('cancelled');
      if (dialect === 'sep-1686') await a.home.responseFor(running.requestId, 10_000);
      expect(ok(await a.home.request('tasks/delete', { taskId: done.taskId })), 'A deletes its completed sleep').toBeDefined();
      for (const { node, wire } of a.wires) await expectLikeUnused(wire, 'tasks/get', done.taskId, `${a.label} on ${node}: tasks/get of its deleted task`);
    });
  });
}

/** With authentication: sessions are bound to their principal; no token, no answer beyond 401. */
function describePrincipals(tokens: { readonly a: string; readonly b: string }, get: () => Setup): void {
  describe('sessions bound to principals', () => {
    it(`bob presenting alice's session id (and alice bob's) gets the same 404 as for an unknown session, on every node; the sessions live on`, async () => {
      const { a, b, deployment } = get();
      const ping: Rec = { jsonrpc: '2.0', id: 4242, method: 'ping' };
      const list: Rec = { jsonrpc: '2.0', id: 4243, method: 'tasks/list', params: {} };
      for (const [who, token, victim] of [
        ['bob', tokens.b, a],
        ['alice', tokens.a, b],
      ] as const) {
        for (const [i, url] of deployment.urls.entries()) {
          const node = deployment.nodes[i]!;
          for (const [what, method, body] of [
            ['POST ping', 'POST', ping],
            ['POST tasks/list', 'POST', list],
            ['GET (event stream)', 'GET', undefined],
            ['DELETE (end the session)', 'DELETE', undefined],
          ] as const) {
            const context = `${who} on ${node}: ${what} with ${victim.label}'s session id`;
            const unknown = randomUUID();
            const got = await rawHttp(url, { method, token, sessionId: victim.sessionId, ...(body !== undefined && { body }) });
            const expected = await rawHttp(url, { method, token, sessionId: unknown, ...(body !== undefined && { body }) });
            expect(got.status, `${context}: ${JSON.stringify(got)}`).toBe(404);
            expect(normalizedReply(got, victim.sessionId), `${context}: must be indistinguishable from an unknown session`).toBe(
              normalizedReply(expected, unknown),
            );
          }
        }
      }
      // neither session was ended nor taken over: both still answer, on every node
      for (const r of [a, b]) {
        for (const { node, wire } of r.wires) expect(ok(await wire.request('ping')), `${r.label} on ${node}: ping`).toEqual({});
      }
    });

    it('a request without a valid token gets 401, the same whether or not the session id it names exists', async () => {
      const { a, deployment } = get();
      const ping: Rec = { jsonrpc: '2.0', id: 7, method: 'ping' };
      const initialize: Rec = {
        jsonrpc: '2.0',
        id: 8,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'nobody', version: '0' } },
      };
      for (const [i, url] of deployment.urls.entries()) {
        const node = deployment.nodes[i]!;
        for (const token of [undefined, `not-a-token-${randomUUID()}`, `${tokens.a}x`]) {
          const context = `${node}, token ${token === undefined ? 'none' : 'unknown'}`;
          const fresh = await rawHttp(url, { token, body: initialize });
          expect(fresh.status, `${context}: initialize`).toBe(401);
          expect(fresh.wwwAuthenticate, `${context}: initialize`).toBe('Bearer');
          const error = (JSON.parse(fresh.body) as { error?: { code?: unknown; message?: unknown } }).error;
          expect(error?.code, `${context}: ${fresh.body}`).toBe(UNAUTHORIZED);
          expect(String(error?.message), `${context}: ${fresh.body}`).toMatch(/^Unauthorized: /);
          const unknown = randomUUID();
          const withA = await rawHttp(url, { token, sessionId: a.sessionId, body: ping });
          const withUnknown = await rawHttp(url, { token, sessionId: unknown, body: ping });
          expect(withA.status, `${context}: ping in ${a.label}'s session`).toBe(401);
          expect(normalizedReply(withA, a.sessionId), `${context}: ping in ${a.label}'s session vs an unknown one`).toBe(normalizedReply(withUnknown, unknown));
          expect(normalizedReply(withA, a.sessionId), `${context}: ping vs initialize`).toBe(normalizedReply(fresh, '\u0000'));
        }
      }
    });
  });
}

for (const backend of ['memory', 'nats'] as const satisfies readonly Backend[]) {
  describe(`isolation on the ${backend} backend`, () => {
    let nats: NatsServer | undefined;
    if (backend === 'nats') {
      beforeAll(async () => {
        nats = await startNatsServer({ jetstream: true });
      }, 20_000);
      afterAll(async () => {
        await nats?.stop();
      }, 20_000);
    }
    for (const separation of SEPARATIONS) describeSeparation(backend, separation, () => nats);
  });
}
