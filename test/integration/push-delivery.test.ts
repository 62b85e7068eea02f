import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { NatsPushQueue, type NatsPushQueueOptions } from '../../runtime/backends/nats/push-queue.js';
import { RuntimeDisposedError } from '../../runtime/errors.js';
import { MemoryPushQueue, type SetTimer } from '../../runtime/push/memory-push-queue.js';
import { PushAllowList } from '../../runtime/push/push-allow.js';
import { PushHeader, verifyPush } from '../../runtime/push/push-signing.js';
import type { DeliveryAttempt, PushJob, PushQueue } from '../../runtime/push/push.types.js';
import { pollUntil } from './harness/cluster.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { killPid, REPO_ROOT, TailBuffer, trackChild } from './harness/process.js';
import { startReceiver, statuses, type Answer, type Received } from './harness/webhook-receiver.js';

const SECRET = 'whsec_integration';


let seq = 0;
function job(url: string, overrides: Partial<PushJob> = {}): PushJob {
  const n = ++seq;
  return {
    target: { url, secret: SECRET, events: 'terminal' },
    event: { id: `task-${n}:completed`, taskId: `task-${n}`, status: 'completed', statusMessage: null, at: Date.now(), body: { taskId: `task-${n}`, status: 'completed', n } },
    until: null,
    attempt: 0,
    ...overrides,
  };
}

/** The final record of `eventId`, however it arrives (already recorded, or later). */
async function finalAttempt(queue: PushQueue, eventId: string, timeoutMs = 10_000): Promise<DeliveryAttempt> {
  let seen: DeliveryAttempt | undefined;
  const off = queue.onAttempt((a) => {
    if (a.eventId === eventId && a.final) seen = a;
  });
  try {
    return await pollUntil(
      `final attempt of ${eventId}`,
      async () => seen ?? (await queue.attempts()).find((a) => a.eventId === eventId && a.final),
      (a) => a !== undefined,
      { timeoutMs },
    ).then((a) => a!);
  } finally {
    off();
  }
}

/** Every request carries the event id and a signature that verifies over the body it came with. */
function expectSigned(requests: readonly Received[], eventId: string): void {
  for (const r of requests) {
    expect(r.headers[PushHeader.eventId]).toBe(eventId);
    expect(verifyPush(r.body, r.headers, SECRET)).toBe(true);
    expect(verifyPush(r.body, r.headers, 'whsec_wrong')).toBe(false);
  }
}

/** A queue under test: where jobs go, where attempts are read, and how to know it has nothing left to do. */
interface QueueUnderTest {
  readonly queue: PushQueue;
  readonly inspect: PushQueue;
  /** Resolves once no job is left to deliver (none running, waiting or stored). */
  readonly settled: () => Promise<void>;
  readonly close: () => Promise<void>;
}

/** The behaviour both queues promise, run against each. */
function contract(name: string, open: (allow: PushAllowList) => Promise<QueueUnderTest>): void {
  describe(`${name} (contract)`, () => {
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
    });
    const setup = async (answer: Answer) => {
      const receiver = await startReceiver(answer);
      const tested = await open(new PushAllowList([`${receiver.base}/hooks/`]));
      closers.push(receiver.close, () => tested.close());
      return { receiver, ...tested };
    };

    it('should retry 500, 500 then deliver on 200: three signed attempts, the third final and delivered', async () => {
      const { receiver, queue, inspect, settled } = await setup(statuses(500, 500, 200));
      const j = job(`${receiver.base}/hooks/a`);
      await queue.enqueue(j);
      const last = await finalAttempt(inspect, j.event.id);
      await settled();
      expect(last).toMatchObject({ attempt: 3, status: 200, delivered: true, final: true, error: null, taskId: j.event.taskId, url: j.target.url });
      const attempts = await inspect.attempts(j.event.taskId);
      expect(attempts.map((a) => [a.attempt, a.status, a.delivered, a.final])).toEqual([
        [1, 500, false, false],
        [2, 500, false, false],
        [3, 200, true, true],
      ]);
      expect(receiver.requests).toHaveLength(3);
      expectSigned(receiver.requests, j.event.id);
      expect(JSON.parse(receiver.requests[2]!.body)).toEqual(j.event.body);
      expect(await inspect.attempts('some-other-task')).toEqual([]);
    });

    it('should never request a URL outside the allow-list, and record the refusal as final', async () => {
      const { receiver, queue, inspect, settled } = await setup(statuses(200));
      const j = job(`${receiver.base}/admin`);
      await queue.enqueue(j);
      const last = await finalAttempt(inspect, j.event.id);
      await settled();
      expect(last).toMatchObject({ attempt: 1, status: null, delivered: false, final: true });
      expect(last.error).toMatch(/allow-list/);
      expect(receiver.requests).toHaveLength(0);
    });

    it('should deliver an event enqueued twice once', async () => {
      const { receiver, queue, inspect, settled } = await setup(statuses(200));
      const j = job(`${receiver.base}/hooks/dup`);
      await Promise.all([queue.enqueue(j), queue.enqueue({ ...j, event: { ...j.event, body: { copy: true } } })]);
      await queue.enqueue(j);
      await finalAttempt(inspect, j.event.id);
      await settled();
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]!.body)).toEqual(j.event.body);
      expect((await inspect.attempts(j.event.taskId)).map((a) => a.attempt)).toEqual([1]);
    });
  });
}

describe('MemoryPushQueue', () => {
  contract('MemoryPushQueue', async (allow) => {
    const queue = new MemoryPushQueue({ allow, baseDelayMs: 20 });
    return { queue, inspect: queue, settled: () => queue.idle(), close: () => queue.dispose() };
  });

  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterEach(async () => receiver?.close());

  /** A queue on a hand-moved clock whose retries wait for the test to run them. */
  function manual(allowBase: string, answerTimers = false) {
    const clock = { now: 1_000_000 };
    const timers: { run: () => void; ms: number; cancelled: boolean }[] = [];
    const setTimer: SetTimer = (run, ms) => {
      const t = { run, ms, cancelled: false };
      timers.push(t);
      if (answerTimers) setImmediate(() => t.cancelled || run());
      return () => void (t.cancelled = true);
    };
    const queue = new MemoryPushQueue({ allow: new PushAllowList([`${allowBase}/`]), now: () => clock.now, setTimer, random: () => 0.5, timeoutMs: 2_000 });
    return { queue, clock, timers };
  }

  it('should wait the backoff delays between attempts (500 ms, then 1 s)', async () => {
    receiver = await startReceiver(statuses(500, 500, 200));
    const { queue, timers } = manual(receiver.base, true);
    const j = job(`${receiver.base}/x`);
    await queue.enqueue(j);
    await queue.idle();
    expect(timers.map((t) => t.ms)).toEqual([500, 1_000]);
    expect((await queue.attempts()).map((a) => a.status)).toEqual([500, 500, 200]);
    await queue.dispose();
  });

  it('should drop an event delivered within the duplicate window, and forget it after', async () => {
    receiver = await startReceiver(statuses(200));
    const { queue, clock } = manual(receiver.base);
    const j = job(`${receiver.base}/x`);
    await queue.enqueue(j);
    await queue.idle();
    clock.now += 119_999;
    await queue.enqueue(j);
    await queue.idle();
    expect(receiver.requests).toHaveLength(1);
    clock.now += 1; // 120 s after it was queued: the default window is over
    await queue.enqueue(j);
    await queue.idle();
    expect(receiver.requests).toHaveLength(2);
    await queue.dispose();
  });

  it('should stop retrying once the task has expired, without another request', async () => {
    receiver = await startReceiver(statuses(500));
    const { queue, clock, timers } = manual(receiver.base);
    const j = job(`${receiver.base}/x`, { until: clock.now + 1_000 });
    await queue.enqueue(j);
    await pollUntil('first attempt', () => queue.attempts(), (a) => a.length === 1);
    expect(timers).toHaveLength(1);
    clock.now += 1_000;
    timers[0]!.run();
    await queue.idle();
    const attempts = await queue.attempts(j.event.taskId);
    expect(attempts.map((a) => [a.attempt, a.status, a.final])).toEqual([
      [1, 500, false],
      [2, null, true],
    ]);
    expect(attempts[1]!.error).toMatch(/expired/);
    expect(receiver.requests).toHaveLength(1);
    await queue.dispose();
  });

  it('should give up at once when the next retry would come after the task expires', async () => {
    receiver = await startReceiver(statuses(500));
    const { queue, clock, timers } = manual(receiver.base);
    const j = job(`${receiver.base}/x`, { until: clock.now + 300 }); // next retry due in 500 ms
    await queue.enqueue(j);
    await queue.idle();
    expect((await queue.attempts()).map((a) => [a.attempt, a.status, a.final])).toEqual([[1, 500, true]]);
    expect(timers).toHaveLength(0);
    await queue.dispose();
  });

  it('should treat a redirect as a failure and not follow it', async () => {
    receiver = await startReceiver((_n, p) => (p === '/hooks/r' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 }));
    const queue = new MemoryPushQueue({ allow: new PushAllowList([`${receiver.base}/`]), maxAttempts: 1 });
    const j = job(`${receiver.base}/hooks/r`);
    await queue.enqueue(j);
    await queue.idle();
    expect(await queue.attempts()).toMatchObject([{ attempt: 1, status: 302, delivered: false, final: true }]);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hooks/r']);
    await queue.dispose();
  });

  it('should time a request out', async () => {
    receiver = await startReceiver(() => 'hang');
    const queue = new MemoryPushQueue({ allow: new PushAllowList([`${receiver.base}/`]), maxAttempts: 1, timeoutMs: 200 });
    await queue.enqueue(job(`${receiver.base}/slow`));
    await queue.idle();
    expect(await queue.attempts()).toMatchObject([{ status: null, delivered: false, final: true, error: 'timed out after 200 ms' }]);
    await queue.dispose();
  });

  it('should cancel waiting retries on dispose and refuse jobs after it', async () => {
    receiver = await startReceiver(statuses(500));
    const { queue, timers } = manual(receiver.base);
    await queue.enqueue(job(`${receiver.base}/x`));
    await pollUntil('first attempt', () => queue.attempts(), (a) => a.length === 1);
    await queue.dispose();
    expect(timers.map((t) => t.cancelled)).toEqual([true]);
    await expect(queue.enqueue(job(`${receiver.base}/x`))).rejects.toBeInstanceOf(RuntimeDisposedError);
  });
});

describe('NatsPushQueue (real nats-server)', () => {
  let server: NatsServer;
  const connections: NatsConnection[] = [];
  let prefixes = 0;
  const connect = async (): Promise<NatsConnection> => {
    const nc = await connectNats({ servers: server.url });
    connections.push(nc);
    return nc;
  };
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });
  afterAll(async () => {
    for (const nc of connections) await nc.close();
    await server?.stop();
  });

  /** Two delivering nodes and an inspector, each on its own connection, sharing one prefix. */
  const openNodes = async (allow: PushAllowList, options: NatsPushQueueOptions = {}) => {
    const prefix = `push${++prefixes}`;
    const common = { prefix, allow, baseDelayMs: 50, ackWaitMs: 2_000, ...options };
    const a = await NatsPushQueue.open(await connect(), common);
    const b = await NatsPushQueue.open(await connect(), common);
    const inspect = await NatsPushQueue.open(await connect(), { ...common, consume: false });
    return { a, b, inspect, dispose: async () => void (await Promise.all([a.dispose(), b.dispose(), inspect.dispose()])) };
  };

  const streamMessages = async (queue: NatsPushQueue) => (await (await jetstreamManager(connections[0]!)).streams.info(queue.stream)).state;
  /** Every stored job acked: nothing is left to deliver (a copy stored despite dedup would be). */
  const drained = async (queue: NatsPushQueue) => void (await pollUntil('every job acked', () => streamMessages(queue), (s) => s.messages === 0));

  contract('NatsPushQueue', async (allow) => {
    const { a, inspect, dispose } = await openNodes(allow);
    // Node A queues, either A or B delivers, a third node (the inspector) sees every attempt.
    return { queue: a, inspect, settled: () => drained(a), close: dispose };
  });

  it('should store an event enqueued by two nodes once, and deliver it once', async () => {
    const receiver = await startReceiver(statuses(200));
    const allow = new PushAllowList([`${receiver.base}/`]);
    const { a, b, inspect, dispose } = await openNodes(allow, { consume: false });
    const j = job(`${receiver.base}/both`);
    await Promise.all([a.enqueue(j), b.enqueue(j)]);
    await b.enqueue(j);
    expect(await streamMessages(a)).toMatchObject({ messages: 1, last_seq: 1 });
    const deliverer = await NatsPushQueue.open(await connect(), { prefix: `push${prefixes}`, allow, baseDelayMs: 50, ackWaitMs: 2_000 });
    expect(await finalAttempt(inspect, j.event.id)).toMatchObject({ attempt: 1, delivered: true });
    await drained(a);
    expect(receiver.requests).toHaveLength(1);
    await deliverer.dispose();
    await dispose();
    await receiver.close();
  });

  it('should give up after maxAttempts and remove the job', async () => {
    const receiver = await startReceiver(statuses(503));
    const { a, inspect, dispose } = await openNodes(new PushAllowList([`${receiver.base}/`]), { maxAttempts: 2 });
    const j = job(`${receiver.base}/down`);
    await a.enqueue(j);
    expect(await finalAttempt(inspect, j.event.id)).toMatchObject({ attempt: 2, status: 503, delivered: false });
    expect((await inspect.attempts(j.event.taskId)).map((x) => [x.attempt, x.final])).toEqual([
      [1, false],
      [2, true],
    ]);
    await drained(a);
    expect(receiver.requests).toHaveLength(2);
    await dispose();
    await receiver.close();
  });

  it('should hand a job back at once when its node stops mid-request', async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 'hang' : { status: 200 }));
    // An ack wait longer than the test's timeout: only the hand-back can get the job to node B.
    const options = { prefix: `push${++prefixes}`, allow: new PushAllowList([`${receiver.base}/`]), ackWaitMs: 60_000, baseDelayMs: 50 };
    const a = await NatsPushQueue.open(await connect(), options);
    const j = job(`${receiver.base}/stop`);
    await a.enqueue(j);
    await pollUntil('node A to start the request', async () => receiver.requests.length, (n) => n === 1);
    await a.dispose();
    const b = await NatsPushQueue.open(await connect(), options);
    const last = await finalAttempt(b, j.event.id);
    expect(last).toMatchObject({ delivered: true, final: true });
    // Handed back with a plain nak, which nats-server 2.9 does not count as a delivery; a server
    // that does would number this attempt 2. Either way, nothing was recorded for the stopped one.
    expect([1, 2]).toContain(last.attempt);
    expect(await b.attempts(j.event.taskId)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(2);
    await b.dispose();
    await receiver.close();
  });

  describe('a node killed mid-request', () => {
    const outDir = path.join(REPO_ROOT, 'node_modules', '.cache', 'mcp-task-actors-fixtures', `push-worker.${process.pid}`);
    let child: ChildProcessWithoutNullStreams | undefined;
    afterAll(() => {
      killPid(child?.pid);
      rmSync(outDir, { recursive: true, force: true });
    });

    it('should have its job delivered by another node after the ack wait', async () => {
      const receiver = await startReceiver((n) => (n === 0 ? 'hang' : { status: 200 }));
      const prefix = `push${++prefixes}`;
      const allowPrefix = `${receiver.base}/hooks/`;
      const options = { prefix, allow: new PushAllowList([allowPrefix]), ackWaitMs: 2_000, baseDelayMs: 50 };
      const front = await NatsPushQueue.open(await connect(), { ...options, consume: false });

      child = spawnWorker(transpileWithImports('test/fixtures/push-worker.ts', outDir), [server.url, prefix, allowPrefix, '2000']);
      await waitForLine(child, 'ready');
      const j = job(`${receiver.base}/hooks/crash`);
      await front.enqueue(j);
      await pollUntil('the worker to start the request', async () => receiver.requests.length, (n) => n === 1);
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      killPid(child.pid, 'SIGKILL');
      await exited;

      const rescuer = await NatsPushQueue.open(await connect(), options);
      const last = await finalAttempt(front, j.event.id, 15_000);
      // Delivery 1 died with the worker (unrecorded); delivery 2 is the rescuer's.
      expect(last).toMatchObject({ attempt: 2, status: 200, delivered: true, final: true });
      expect((await front.attempts(j.event.taskId)).map((a) => a.attempt)).toEqual([2]);
      expect(receiver.requests).toHaveLength(2);
      expectSigned(receiver.requests, j.event.id);
      await rescuer.dispose();
      await front.dispose();
      await receiver.close();
    });
  });
});

/**
 * Transpiles `entry` and every module it imports by a relative path into `outDir` (mirroring the
 * repository's layout, under node_modules so bare imports resolve to the repository's packages),
 * and returns the runnable entry: plain `node` on Node 20 cannot run TypeScript.
 */
function transpileWithImports(entry: string, outDir: string): string {
  const done = new Set<string>();
  const visit = (file: string): void => {
    if (done.has(file)) return;
    done.add(file);
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    const out = path.join(outDir, path.relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    for (const [, spec] of outputText.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) visit(path.resolve(path.dirname(file), `${spec}.ts`));
  };
  visit(path.join(REPO_ROOT, entry));
  writeFileSync(path.join(outDir, 'package.json'), '{ "type": "module" }\n');
  return path.join(outDir, entry).replace(/\.ts$/, '.js');
}

function spawnWorker(script: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [script, ...args], { cwd: REPO_ROOT });
  trackChild(child);
  return child;
}

/** Resolves once the child prints `line` on stdout; rejects with its stderr if it exits first. */
function waitForLine(child: ChildProcessWithoutNullStreams, line: string, timeoutMs = 10_000): Promise<void> {
  const stderr = new TailBuffer();
  child.stderr.setEncoding('utf8').on('data', (c: string) => stderr.append(c));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no "${line}" from the worker within ${timeoutMs} ms\n${stderr.toString()}`)), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.split('\n').includes(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited (${code}) before "${line}"\n${stderr.toString()}`));
    });
  });
}
