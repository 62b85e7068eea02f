/**
 * Large payloads on NATS as on memory (issue 31, item 8), through the runtime API: a front node
 * and a worker node on one nats-server (max_payload 1 MiB). A task's params of 3 MB reach the
 * worker whole (they used to fail the create: "'payload' max_payload size exceeded"), an input
 * request of 3 MB reaches the front, an answer of 3 MB reaches the worker, a result of 8 MB comes
 * back whole; over `maxRequestBytes` a create or an answer is refused naming the limit, on both
 * backends alike; and the values kept beside the record are gone with their task.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { createTaskRuntime, TaskLimitError, type TaskHandler, type TaskRuntime } from '../../runtime/index.js';
import { pollUntil } from '../integration/harness/cluster.js';
import { inProcessNodes } from '../integration/harness/nats-nodes.js';

const MB = 1024 * 1024;
const owner = { session: 's', principal: null };
const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const handlers: Record<string, TaskHandler> = {
  // What it was given, by size and hash.
  measure: async (params) => ({ bytes: JSON.stringify(params).length, sha256: digest(params) }),
  big: async (params) => ({ content: [{ type: 'text', text: 'r'.repeat((params as { bytes: number }).bytes) }] }),
  // Asks a question of 3 MB, returns the size and hash of the answer.
  ask: async (_params, ctx) => {
    const answer = await ctx.requestInput('elicitation/create', { message: 'q'.repeat(3 * MB), requestedSchema: { type: 'object', properties: {} } });
    return { bytes: JSON.stringify(answer).length, sha256: digest(answer) };
  },
};
const register = (runtime: TaskRuntime): void => {
  for (const [name, handler] of Object.entries(handlers)) runtime.registerHandler(name, handler);
};
const LIMITS = { maxResultBytes: 16 * MB, maxRequestBytes: 4 * MB, createsPerSecond: null, pollsPerSecond: null };

const nodes = inProcessNodes(register, { limits: LIMITS, leaseTtlMs: 2_000 });

/** The runtime tasks are created on, on each backend. */
const backends: { name: string; open: () => Promise<{ front: TaskRuntime; close(): Promise<void> }> }[] = [
  {
    name: 'memory',
    open: async () => {
      const front = createTaskRuntime({ limits: LIMITS });
      register(front);
      return { front, close: () => front.dispose() };
    },
  },
  {
    name: 'nats (front + worker)',
    open: async () => {
      const prefix = `pay${randomUUID().slice(0, 8)}`;
      await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}` });
      const front = await nodes.node({ prefix, role: 'front', nodeId: `f-${prefix}` });
      return { front, close: async () => undefined };
    },
  },
];

describe.each(backends)('large payloads ($name)', ({ open }) => {
  it('should run a task with 3 MB of params, answer a 3 MB question with 3 MB, and return an 8 MB result, whole', async () => {
    const opened = await open();
    const { front } = opened;
    try {
      const params = { blob: 'p'.repeat(3 * MB) };
      const measured = await front.create({ taskId: 'measure', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'measure', params });
      expect((await front.waitForOutcome(measured.taskId, owner, { timeout: 20_000 })).result).toEqual({ bytes: JSON.stringify(params).length, sha256: digest(params) });

      const asking = await front.create({ taskId: 'ask', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'ask', params: {} });
      const [question] = await pollUntil('the 3 MB question', () => front.pendingInputRequests(asking.taskId, owner), (q) => q.length === 1, { timeoutMs: 20_000 });
      expect((question!.params as { message: string }).message).toHaveLength(3 * MB);
      const answer = { action: 'accept', content: { text: 'a'.repeat(3 * MB) } };
      await front.answerInput(asking.taskId, owner, question!.inputId, { result: answer });
      expect((await front.waitForOutcome(asking.taskId, owner, { timeout: 20_000 })).result).toEqual({ bytes: JSON.stringify(answer).length, sha256: digest(answer) });

      const big = await front.create({ taskId: 'big', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'big', params: { bytes: 8 * MB } });
      const outcome = await front.waitForOutcome(big.taskId, owner, { timeout: 30_000 });
      expect(((outcome.result as { content: { text: string }[] }).content[0]!.text).length).toBe(8 * MB);
    } finally {
      await opened.close();
    }
  }, 90_000);

  it('should refuse params and answers over maxRequestBytes naming the limit', async () => {
    const opened = await open();
    const { front } = opened;
    try {
      const tooBig = { blob: 'p'.repeat(4 * MB + 1) };
      const refused = await front.create({ taskId: 'too-big', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'measure', params: tooBig }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TaskLimitError);
      expect(refused).toMatchObject({ limit: 'maxRequestBytes', retryAfterMs: null });
      expect(String((refused as Error).message)).toContain('--max-request-bytes');
      const asking = await front.create({ taskId: 'ask-over', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'ask', params: {} });
      const [question] = await pollUntil('the question', () => front.pendingInputRequests(asking.taskId, owner), (q) => q.length === 1, { timeoutMs: 20_000 });
      await expect(front.answerInput(asking.taskId, owner, question!.inputId, { result: { text: 'a'.repeat(4 * MB + 1) } })).rejects.toMatchObject({ limit: 'maxRequestBytes' });
      // Still waiting for an answer it can take.
      expect(await front.pendingInputRequests(asking.taskId, owner)).toHaveLength(1);
      await front.cancel(asking.taskId, owner);
    } finally {
      await opened.close();
    }
  }, 60_000);
});

describe('large payloads on NATS, removed with their task', () => {
  it('should leave nothing of a task with large params, question and answer in the results bucket once it is deleted', async () => {
    const prefix = `pay${randomUUID().slice(0, 8)}`;
    await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}` });
    const front = await nodes.node({ prefix, role: 'front', nodeId: `f-${prefix}` });
    const task = await front.create({ taskId: 'stowed', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'ask', params: { blob: 'p'.repeat(2 * MB) } });
    const [question] = await pollUntil('the question', () => front.pendingInputRequests(task.taskId, owner), (q) => q.length === 1, { timeoutMs: 20_000 });
    await front.answerInput(task.taskId, owner, question!.inputId, { result: { text: 'a'.repeat(2 * MB) } });
    await front.waitForOutcome(task.taskId, owner, { timeout: 20_000 });
    const nc = await connect({ servers: front.connection.getServer() });
    try {
      const results = await new Kvm(nc).open(`${prefix}_results`);
      const keys = async (): Promise<string[]> => {
        const all: string[] = [];
        for await (const k of await results.keys()) all.push(k);
        return all;
      };
      expect((await keys()).some((k) => /\.p\d+\./.test(k))).toBe(true); // params, question and answer were kept apart
      await front.delete(task.taskId, owner);
      expect(await pollUntil('the parts kept apart gone', keys, (k) => k.length === 0, { timeoutMs: 10_000 })).toEqual([]);
    } finally {
      await nc.close();
    }
  }, 60_000);
});
