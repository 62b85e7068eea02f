/**
 * Whom a session-dialect task belongs to when the requester is authenticated (`serve`, SDK v1):
 * a 2025-11-25 task is bound to the authorization context (the principal), as that spec says, so
 * another session of the same principal reaches it (a requester recovering a task reference on a
 * new connection) while another principal does not; a SEP-1686 task stays bound to its session,
 * as SEP-1686 says. tasks/list shows a session its own tasks and its principal's, over one cursor.
 * Finding which key a task is under is the server's own read: no refused look-up in the audit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachHttpWire } from './harness/http-wire.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { create2025, createSep, getTask, NOT_FOUND } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

let server: HttpServerProcess;
const open: Wire[] = [];
const session = async (token: string): Promise<Wire> => {
  const wire = await attachHttpWire(server.url, () => server.stderr(), { bearerToken: token });
  open.push(wire);
  return wire;
};

beforeAll(async () => {
  server = await spawnHttpServer(['--auth-token', 'tok-a=alice', '--auth-token', 'tok-b=bob', '--page-size', '2']);
}, 30_000);

afterAll(async () => {
  for (const wire of open) await wire.close().catch(() => undefined);
  await server?.close();
});

const errorMessage = async (wire: Wire, method: string, params: Record<string, unknown>): Promise<string | undefined> =>
  ((await wire.request(method, params)) as { error?: { message: string } }).error?.message;

describe('owner binding of session-dialect tasks with an authenticated requester', () => {
  it('reaches a 2025-11-25 task from another session of its principal, never from another principal', async () => {
    const [a1, a2, b] = [await session('tok-a'), await session('tok-a'), await session('tok-b')];
    const { taskId } = await create2025(a1, 'sleep', { ms: 1 });
    expect((await getTask(a2, taskId))['taskId']).toBe(taskId);
    expect(await errorMessage(b, 'tasks/get', { taskId })).toBe(NOT_FOUND);
    expect(await errorMessage(b, 'tasks/cancel', { taskId })).toBe(NOT_FOUND);
  });

  it('keeps a SEP-1686 task bound to its session', async () => {
    const [a1, a2] = [await session('tok-a'), await session('tok-a')];
    const sep = await createSep(a1, 'long_job', { seconds: 60 });
    expect((await getTask(a1, sep.taskId))['taskId']).toBe(sep.taskId);
    expect(await errorMessage(a2, 'tasks/get', { taskId: sep.taskId })).toBe(NOT_FOUND);
    await a1.request('tasks/cancel', { taskId: sep.taskId });
  });

  it("lists a session's own tasks and its principal's, every one once, across pages", async () => {
    const [a1, a2] = [await session('tok-a'), await session('tok-a')];
    const own = await createSep(a2, 'long_job', { seconds: 60 });
    const principal = [await create2025(a1, 'sleep', { ms: 1 }), await create2025(a1, 'sleep', { ms: 1 }), await create2025(a1, 'sleep', { ms: 1 })];
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await a2.request('tasks/list', cursor === undefined ? {} : { cursor })) as unknown as { result: { tasks: { taskId: string }[]; nextCursor?: string } };
      seen.push(...page.result.tasks.map((t) => t.taskId));
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toContain(own.taskId);
    for (const t of principal) expect(seen).toContain(t.taskId);
    expect(new Set(seen).size).toBe(seen.length);
    await a2.request('tasks/cancel', { taskId: own.taskId });
  });

  it('refuses a cursor it did not give, saying so', async () => {
    const a = await session('tok-a');
    expect(await errorMessage(a, 'tasks/list', { cursor: 'not-a-cursor' })).toBe('Invalid cursor: not a cursor this server gave');
  });
});
