/**
 * Large payloads on NATS beyond a single value (issue 31, item 8): a task record is one NATS
 * message (`max_payload`, 1 MiB on the test's nats-server), so what it gathers over its life
 * (rounds of questions and answers, an error reply) must travel apart from it as a single large
 * value does, and what travels apart must be gone on every path: a create refused as a duplicate
 * id, a write that lost its race, an expiry. The memory backend takes the same.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { taskKey } from '../../runtime/backends/nats/keys.js';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { RecordStore } from '../../runtime/backends/nats/record-store.js';
import { createTaskRuntime, DuplicateTaskIdError, InvalidArgumentError, TaskLimitError, type TaskHandler, type TaskRuntime } from '../../runtime/index.js';
import { ownerKeyOf } from '../../runtime/task-identity.js';
import { pollUntil } from '../integration/harness/cluster.js';
import { inProcessNodes } from '../integration/harness/nats-nodes.js';

const MB = 1024 * 1024;
const ROUNDS = 24;
const owner = { session: 'parts', principal: null };
const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const LIMITS = { maxRequestBytes: 4 * MB, createsPerSecond: null, pollsPerSecond: null };

const handlers: Record<string, TaskHandler> = {
  // A conversation: ROUNDS questions of 60 KB, each answered; returns the hash of every answer.
  chat: async (_params, ctx) => {
    const answers: unknown[] = [];
    for (let i = 0; i < ROUNDS; i++) answers.push(await ctx.requestInput('elicitation/create', { message: `q${i} ${'q'.repeat(60_000)}`, requestedSchema: { type: 'object', properties: {} } }));
    return digest(answers);
  },
  // Returns what its question's error reply said: its length and hash.
  askError: async (_params, ctx) => {
    const answer = await ctx.requestInput('elicitation/create', { message: 'name?', requestedSchema: { type: 'object', properties: {} } }).then(
      () => 'answered',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    return { length: answer.length, sha256: digest(answer) };
  },
  measure: async (params) => ({ sha256: digest(params) }),
  ask: async (_params, ctx) => digest(await ctx.requestInput('elicitation/create', { message: 'more?', requestedSchema: { type: 'object', properties: {} } })),
};
const register = (runtime: TaskRuntime): void => {
  for (const [name, handler] of Object.entries(handlers)) runtime.registerHandler(name, handler);
};

const nodes = inProcessNodes(register, { limits: LIMITS });

/** A front and a worker of a fresh task space: every task runs on the worker, over NATS. */
async function natsPair(): Promise<{ front: Awaited<ReturnType<typeof nodes.node>>; prefix: string }> {
  const prefix = `parts${randomUUID().slice(0, 8)}`;
  await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}` });
  return { front: await nodes.node({ prefix, role: 'front', nodeId: `f-${prefix}` }), prefix };
}

const memories: TaskRuntime[] = [];
afterAll(async () => {
  await Promise.allSettled(memories.map((m) => m.dispose()));
});

const backends: { name: string; open: () => Promise<TaskRuntime> }[] = [
  {
    name: 'memory',
    open: async () => {
      const runtime = createTaskRuntime({ limits: LIMITS });
      register(runtime);
      memories.push(runtime);
      return runtime;
    },
  },
  { name: 'nats (front + worker)', open: async () => (await natsPair()).front },
];

async function question(runtime: TaskRuntime, taskId: string, starts = ''): Promise<string> {
  const [q] = await pollUntil(`a question of ${taskId}`, () => runtime.pendingInputRequests(taskId, owner), (q) => q.length === 1 && String((q[0]!.params as { message: string }).message).startsWith(starts), { timeoutMs: 15_000 });
  return q!.inputId;
}

describe.each(backends)('what a task gathers over its life ($name)', ({ open }) => {
  it(`should carry ${ROUNDS} rounds of 60 KB questions and answers in one task`, async () => {
    const runtime = await open();
    await runtime.create({ taskId: 'chat', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'chat', params: {} });
    const answers: unknown[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const answer = { action: 'accept', content: { text: `${i} ${'a'.repeat(60_000)}` } };
      answers.push(answer);
      // Before: on NATS the 8th answer failed ("'payload' max_payload size exceeded"), the record being over 1 MiB.
      await runtime.answerInput('chat', owner, await question(runtime, 'chat', `q${i} `), { result: answer });
    }
    expect((await runtime.waitForOutcome('chat', owner, { timeout: 20_000 })).result).toBe(digest(answers));
  }, 90_000);

  it('should give the work an error reply of 3 MB whole, and refuse one over maxRequestBytes naming it', async () => {
    const runtime = await open();
    await runtime.create({ taskId: 'err', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'askError', params: {} });
    const over = await runtime.answerInput('err', owner, await question(runtime, 'err'), { error: new Error('o'.repeat(4 * MB + 1)) }).catch((e: unknown) => e);
    expect(over).toBeInstanceOf(TaskLimitError);
    expect(over).toMatchObject({ limit: 'maxRequestBytes', retryAfterMs: null });
    const message = 'e'.repeat(3 * MB);
    // Before: on NATS "'payload' max_payload size exceeded", the task left waiting.
    await runtime.answerInput('err', owner, await question(runtime, 'err'), { error: new Error(message) });
    expect((await runtime.waitForOutcome('err', owner, { timeout: 20_000 })).result).toEqual({ length: message.length, sha256: digest(message) });
  }, 60_000);
});

/** Keys of the task's parts kept apart (`<key>.p<order>.…`) in the results bucket. */
async function partsOf(front: { readonly connection: NatsConnection }, prefix: string, taskId: string): Promise<string[]> {
  const key = taskKey({ ownerKey: ownerKeyOf(owner), taskId });
  const results = await new Kvm(front.connection).open(`${prefix}_results`);
  const keys: string[] = [];
  for await (const k of await results.keys(`${key}.>`)) if (/\.p\d+\./.test(k.slice(key.length))) keys.push(k);
  return keys;
}

describe('parts of a NATS task kept apart, removed on every path', () => {
  it('should leave nothing of a create refused as a duplicate id', async () => {
    const { front, prefix } = await natsPair();
    await front.create({ taskId: 'dup', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'measure', params: { small: true } });
    await front.waitForOutcome('dup', owner, { timeout: 15_000 });
    const refused = await front.create({ taskId: 'dup', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'measure', params: { blob: 'p'.repeat(3 * MB) } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DuplicateTaskIdError);
    // Before: its params stayed in the results bucket for good (the live task's removal does not reach them).
    expect(await pollUntil('the refused create’s parts gone', () => partsOf(front, prefix, 'dup'), (k) => k.length === 0, { timeoutMs: 10_000 })).toEqual([]);
    expect((await front.result('dup', owner)).result).toEqual({ sha256: digest({ small: true }) });
  }, 60_000);

  it('should leave nothing of a large answer whose write lost its race and was then not wanted', async () => {
    const { front, prefix } = await natsPair();
    await front.create({ taskId: 'race', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'ask', params: { blob: 'p'.repeat(2 * MB) } });
    await question(front, 'race');
    const before = await partsOf(front, prefix, 'race');
    expect(before.length).toBeGreaterThan(0); // the params, kept apart
    const nc = await connectNats({ servers: front.connection.getServer() });
    try {
      const store = await RecordStore.open(nc, { prefix, replicas: 1, storage: 'file' }, 'racer');
      const key = taskKey({ ownerKey: ownerKeyOf(owner), taskId: 'race' });
      const read = await store.read(key);
      const stale = read !== null && 'found' in read ? read.found : null;
      // Another write comes first: the racer's base is stale.
      expect((await store.mutate(key, (r) => ({ ...r }), undefined, undefined, stale!))?.changed).toBe(true);
      let tries = 0;
      // Its first try (on the stale base) stores a 2 MB failure detail apart and loses; then it no longer wants to write.
      const out = await store.mutate(key, (r) => (++tries === 1 ? { ...r, failure: { blob: 'f'.repeat(2 * MB) } } : null), undefined, undefined, stale!);
      expect(tries).toBe(2);
      expect(out?.changed).toBe(false);
      // Before: the part stored for the write that never landed stayed until the task was removed.
      expect(await partsOf(front, prefix, 'race')).toEqual(before);
    } finally {
      await nc.close();
    }
    await front.delete('race', owner);
    expect(await pollUntil('the parts gone', () => partsOf(front, prefix, 'race'), (k) => k.length === 0, { timeoutMs: 10_000 })).toEqual([]);
  }, 60_000);

  it('should leave nothing of large params, question and answer once the task expires', async () => {
    const { front, prefix } = await natsPair();
    await front.create({ taskId: 'expires', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'ask', params: { blob: 'p'.repeat(2 * MB) }, keepAlive: 500 });
    await front.answerInput('expires', owner, await question(front, 'expires'), { result: { text: 'a'.repeat(2 * MB) } });
    await front.waitForOutcome('expires', owner, { timeout: 15_000 });
    expect((await partsOf(front, prefix, 'expires')).length).toBeGreaterThan(0);
    // Generous: the retention timer is batched and taken by whichever node polls first.
    expect(await pollUntil('the expired task’s parts gone', () => partsOf(front, prefix, 'expires'), (k) => k.length === 0, { timeoutMs: 60_000 })).toEqual([]);
  }, 120_000);

  it('should refuse maxPartialBytes over 256 KiB on NATS, partial results riding in every event of their task', async () => {
    const refused = await createNatsTaskRuntime({ nats: { servers: 'nats://127.0.0.1:1' }, maxPartialBytes: 256 * 1024 + 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect(String(refused)).toContain('maxPartialBytes must be at most 262144 on NATS');
  });
});
