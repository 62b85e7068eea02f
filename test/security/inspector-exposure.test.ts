/**
 * The inspector without an operator token (issue 31, item 6). On loopback without `--inspect-token`
 * any local process reads the inspector, and on an HTTP endpoint without `--auth-token` a session
 * id is the requester's only credential: the page used to show every task's full session id (also
 * inside its `key`, a base64url of it). Now, without a token, no credential-equivalent value is
 * shown in full, in the page's API, its event stream or the page: session ids, anonymous
 * 2026-07-28 task ids (bearer handles) and webhook paths are shortened; with a token they show.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extWire } from '../integration/harness/ext-wire.js';
import { attachHttpWire } from '../integration/harness/http-wire.js';
import { spawnInspectorServer, type InspectorServer } from '../integration/harness/inspector-server.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { create2025 } from '../integration/harness/task-calls.js';

/** Everything the page can read: its HTML, the list, each task's detail, the first event-stream frame. */
async function everythingShown(server: InspectorServer): Promise<{ text: string; keys: string[] }> {
  const page = new URL(server.inspectorUrl);
  const at = (path: string): URL => Object.assign(new URL(path, page), { search: page.search });
  const html = await (await fetch(at('/'))).text();
  const list = (await (await fetch(at('/api/tasks'))).json()) as { tasks: { key: string }[] };
  const details = await Promise.all(list.tasks.map(async (t) => (await fetch(at(`/api/tasks/${encodeURIComponent(t.key)}`))).text()));
  const events = await fetch(at('/api/events'));
  const reader = events.body!.getReader();
  let frame = '';
  while (!frame.includes('\n\n')) frame += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return { text: [html, JSON.stringify(list), ...details, frame].join('\n'), keys: list.tasks.map((t) => t.key) };
}

describe.each(['memory', 'nats'] as const)('inspector exposure (%s)', (backend) => {
  let server: InspectorServer | undefined;
  let nats: NatsServer | undefined;
  beforeAll(async () => {
    if (backend === 'nats') nats = await startNatsServer();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    await nats?.[Symbol.asyncDispose]();
  });

  async function withTasks(flags: string[]): Promise<{ sessionId: string; bearerId: string; sessionTaskId: string }> {
    const cluster = nats ? ['--nats', nats.url, '--nats-prefix', `exposure${Math.random().toString(36).slice(2, 8)}`] : [];
    server = await spawnInspectorServer([...flags, ...cluster]);
    const wire = await attachHttpWire(server.url);
    const sessionTaskId = (await create2025(wire, 'sleep', { ms: 60_000 })).taskId;
    const bearerId = String((await extWire(server.url).call('sleep', { ms: 60_000 }))['taskId']);
    return { sessionId: wire.sessionId!, bearerId, sessionTaskId };
  }

  it('should show no full session id nor anonymous task id without an operator token, not even inside a key', async () => {
    const { sessionId, bearerId, sessionTaskId } = await withTasks([]);
    const { text, keys } = await everythingShown(server!);
    expect(keys).toHaveLength(2);
    expect(text).not.toContain(sessionId);
    expect(text).not.toContain(bearerId);
    // Shortened, still telling tasks apart.
    expect(text).toContain(`${sessionId.slice(0, 8)}…`);
    expect(text).toContain(`${bearerId.slice(0, 8)}…`);
    // A session-bound task's id is no credential: shown.
    expect(text).toContain(sessionTaskId);
    for (const key of keys) {
      expect(Buffer.from(key, 'base64url').toString('latin1')).not.toContain(sessionId);
      expect(key).not.toContain(sessionId);
    }
  });

  it("should shorten an anonymous durable task's id in the cluster view's durable list", async () => {
    await withTasks([]);
    const jobId = String((await extWire(server!.url).call('long_job', { seconds: 30 }))['taskId']);
    const cluster = async (): Promise<{ durable: { taskId: string }[] }> => (await fetch(new URL('/api/cluster', server!.inspectorUrl))).json() as Promise<{ durable: { taskId: string }[] }>;
    if (backend === 'nats') {
      // Listed once its first checkpoint is kept (memory keeps none: its list stays empty).
      const deadline = Date.now() + 10_000;
      let report = await cluster();
      while (!report.durable.some((d) => d.taskId === `${jobId.slice(0, 8)}…`) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        report = await cluster();
      }
      expect(report.durable.map((d) => d.taskId)).toContain(`${jobId.slice(0, 8)}…`);
    }
    expect(JSON.stringify(await cluster())).not.toContain(jobId);
  });

  it("should not find an anonymous task by its full id (taskId) on a page that sees it shortened, and find a session-bound one", async () => {
    const { bearerId, sessionTaskId } = await withTasks([]);
    const base = new URL(server!.inspectorUrl);
    const byId = async (id: string): Promise<number> => ((await (await fetch(new URL(`/api/tasks?taskId=${encodeURIComponent(id)}`, base))).json()) as { total: number }).total;
    expect(await byId(bearerId)).toBe(0);
    expect(await byId(sessionTaskId)).toBe(1);
  });

  it('should show them in full to an operator who holds the token, and find an anonymous task by its id', async () => {
    const { sessionId, bearerId } = await withTasks(['--inspect-token', 'operator-secret']);
    // A token the operator gave is never written to the log (a generated one must be: nobody knows it else).
    expect(server!.stderr()).not.toContain('operator-secret');
    const { text } = await everythingShown(server!);
    expect(text).toContain(sessionId);
    expect(text).toContain(bearerId);
    const found = (await (await fetch(new URL(`/api/tasks?taskId=${encodeURIComponent(bearerId)}`, server!.inspectorUrl), { headers: { authorization: 'Bearer operator-secret' } })).json()) as { total: number };
    expect(found.total).toBe(1);
  });
});
