/**
 * The inspector's event streams under load, with real parts: `attachInspector` on a real memory
 * runtime, and the real CLI with `--inspect-max-streams`. The number of open streams is capped,
 * and the paced `counts` read the task list once per tick, not once per stream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { attachInspector, type Inspector } from '../../adapters/inspector/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { pollUntil, runCli } from './harness/cluster.js';
import { getJson, inspectorUrlFrom, openEvents, type EventReader } from './harness/inspector.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

/** A task that stays `working` until the runtime is disposed. */
function registerForever(runtime: TaskRuntime): void {
  runtime.registerHandler('forever', (_params, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('disposed')))));
}

async function createForever(runtime: TaskRuntime, taskId: string): Promise<void> {
  await runtime.create({ taskId, owner: { session: 'streams-session', principal: null }, dialect: '2025-11-25', method: 'tools/call', label: 'forever', keepAlive: 60_000, handler: 'forever', params: {} });
}

/** A 503 with its body and `Retry-After`, read without treating it as a stream. */
async function refusedStream(url: string): Promise<{ status: number; retryAfter: string | null; body: { error?: string } }> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' } });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: string } };
}

describe('attachInspector event streams', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function inspect(runtime: Parameters<typeof attachInspector>[0], maxStreams?: number): Promise<Inspector> {
    const inspector = await attachInspector(runtime, { port: 0, ...(maxStreams !== undefined && { maxStreams }) });
    cleanup.push(() => inspector.close());
    return inspector;
  }

  async function stream(url: string): Promise<EventReader> {
    const events = await openEvents(url);
    cleanup.push(() => events.close());
    return events;
  }

  it('should refuse a stream past maxStreams with 503, Retry-After and an error naming the limit, and take one again once a stream closed', async () => {
    const runtime = createTaskRuntime();
    cleanup.push(() => runtime.dispose());
    const inspector = await inspect(runtime, 2);
    const base = `http://127.0.0.1:${inspector.port}`;
    const first = await stream(`${base}/api/events`);
    await stream(`${base}/api/events?status=working`);
    await first.next((f) => f.event === 'snapshot');
    const refused = await refusedStream(`${base}/api/events`);
    expect(refused.status).toBe(503);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(refused.body.error).toContain('2 event streams are open');
    expect(refused.body.error).toContain('maxStreams');
    expect(refused.body.error).toContain('--inspect-max-streams');
    // The list itself is not limited.
    expect((await getJson(`${base}/api/tasks`)).status).toBe(200);
    first.close();
    const again = await pollUntil('a stream once one closed', async () => openEvents(`${base}/api/events`), (e) => e.status === 200 || (e.close(), false), { timeoutMs: 5_000, intervalMs: 50 });
    cleanup.push(() => again.close());
    await again.next((f) => f.event === 'snapshot');
  });

  it('should refuse a maxStreams that is not a whole number of at least 1, naming it', async () => {
    const runtime = createTaskRuntime();
    cleanup.push(() => runtime.dispose());
    await expect(attachInspector(runtime, { port: 0, maxStreams: 0 })).rejects.toThrow(/maxStreams/);
    await expect(attachInspector(runtime, { port: 0, maxStreams: 1.5 })).rejects.toThrow(/maxStreams/);
  });

  it('should read the task list once per counts tick for every stream due, and count each filter apart', async () => {
    const runtime = createTaskRuntime();
    registerForever(runtime);
    cleanup.push(() => runtime.dispose());
    let lists = 0;
    // The real observer, its reads counted.
    const inspector = await inspect({
      observe: () => {
        const observer = runtime.observe();
        return Object.assign(Object.create(observer) as typeof observer, {
          list: () => {
            lists++;
            return observer.list();
          },
          watch: observer.watch.bind(observer),
          machine: observer.machine.bind(observer),
          close: observer.close.bind(observer),
        });
      },
    });
    const base = `http://127.0.0.1:${inspector.port}`;
    for (let i = 0; i < 5; i++) await createForever(runtime, `older-${i}`);
    const STREAMS = 20;
    const streams: EventReader[] = [];
    for (let i = 0; i < STREAMS; i++) streams.push(await stream(`${base}/api/events?q=${i === 0 ? 'fresh' : `older-${i % 5}`}`));
    for (const events of streams) await events.next((f) => f.event === 'snapshot');
    const before = lists;
    await createForever(runtime, 'fresh-task');
    const counts = [];
    for (const events of streams) counts.push(JSON.parse((await events.next((f) => f.event === 'counts')).data) as { total: number });
    // One read per tick (a creation is one or two ticks: submitted, then working), not one per stream.
    expect(lists - before).toBeLessThanOrEqual(3);
    expect(counts[0]!.total).toBe(1);
    expect(counts.slice(1).map((c) => c.total)).toEqual(Array(STREAMS - 1).fill(1));
  });
});

describe('mcp-tasks serve --inspect-max-streams', () => {
  let server: HttpServerProcess | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('should refuse a second stream with --inspect-max-streams 1, naming the flag', async () => {
    server = await spawnHttpServer(['--inspect', '0', '--inspect-max-streams', '1']);
    const url = await pollUntil('the inspector log line', async () => inspectorUrlFrom(server!.stderr()), (u) => u !== undefined, { timeoutMs: 10_000, intervalMs: 50 });
    const base = url!.slice(0, -1);
    const events = await openEvents(`${base}/api/events`);
    try {
      await events.next((f) => f.event === 'snapshot');
      const refused = await refusedStream(`${base}/api/events`);
      expect(refused.status).toBe(503);
      expect(refused.body.error).toContain('--inspect-max-streams');
    } finally {
      events.close();
    }
  });

  it('should refuse a bad --inspect-max-streams, naming the flag', async () => {
    const run = await runCli(['serve', '--http', '0', '--inspect', '0', '--inspect-max-streams', 'many']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("--inspect-max-streams expects a whole number of at least 1, got 'many'");
  });
});
