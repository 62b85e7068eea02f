/**
 * Task ids that are not well-formed Unicode (issue 31, item 9). NATS keys hash ids as UTF-8, where
 * every lone surrogate becomes U+FFFD: `"\ud800"`, `"\udfff"` and `"\ufffd"` named one task there
 * (three on memory). Now an id holding a lone surrogate is refused with -32602 on every backend,
 * for creation and for every look-up, and `"\ufffd"` (well-formed) stays a task of its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskRuntime, InvalidArgumentError } from '../../runtime/index.js';
import { ok } from '../integration/harness/json.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { connectStdio } from '../integration/harness/stdio-wire.js';
import { createSep, INVALID_PARAMS, SEP_TASK } from '../integration/harness/task-calls.js';
import type { Wire } from '../integration/harness/types.js';

const LONE = ['\ud800', '\udfff', 'a\udbffb', '\udc00\ud800'];

describe('checkTaskId in the task core', () => {
  it('should refuse ids with a lone surrogate and keep well-formed ones, pairs included', async () => {
    const runtime = createTaskRuntime();
    const owner = { session: 's', principal: null };
    try {
      for (const id of LONE) {
        await expect(runtime.create({ taskId: id, owner, dialect: 'sep-1686', method: 'tools/call' })).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(runtime.get(id, owner)).rejects.toThrow(/well-formed Unicode/);
      }
      for (const id of ['\ufffd', '\ud83d\ude00', 'plain']) await runtime.create({ taskId: id, owner, dialect: 'sep-1686', method: 'tools/call' });
      expect((await runtime.list(owner)).tasks.map((t) => t.taskId).sort()).toEqual(['\ud83d\ude00', 'plain', '\ufffd'].sort());
    } finally {
      await runtime.dispose();
    }
  });
});

describe.each(['memory', 'nats'] as const)('task ids on the wire (%s)', (backend) => {
  let nats: NatsServer | undefined;
  let wire: Wire;
  beforeAll(async () => {
    if (backend === 'nats') nats = await startNatsServer();
    wire = await connectStdio(nats ? ['--nats', nats.url, '--nats-prefix', `ids${randomUUID().slice(0, 8)}`] : []);
  }, 30_000);
  afterAll(async () => {
    await wire?.close();
    await nats?.[Symbol.asyncDispose]();
  });

  it('should refuse a SEP-1686 task id with a lone surrogate with -32602, and keep U+FFFD a task of its own', async () => {
    for (const taskId of LONE) {
      const res = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, _meta: { [SEP_TASK]: { taskId, keepAlive: 60_000 } } });
      expect(res.error?.code).toBe(INVALID_PARAMS);
      expect(res.error?.message).toMatch(/well-formed Unicode/);
    }
    await createSep(wire, 'sleep', { ms: 30_000 }, { taskId: '\ufffd' });
    for (const taskId of LONE) {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/delete']) {
        const res = await wire.request(method, { taskId });
        expect(res.error?.code, `${method} ${JSON.stringify(taskId)}`).toBe(INVALID_PARAMS);
        expect(res.error?.message).toMatch(/well-formed Unicode/);
      }
    }
    // Still there, and still running: no look-up above reached it.
    expect(ok(await wire.request('tasks/get', { taskId: '\ufffd' }))['status']).toBe('working');
  });
});
