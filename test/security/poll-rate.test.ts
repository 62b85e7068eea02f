/**
 * Poll pacing bounded per requester (issue 31, item 5). Polls that keep to the interval a task
 * suggests used to be free without bound: 300 kept tasks, each polled at its suggested pace, gave
 * 300 polls a second against a limit of 50, none refused. Now every poll of a requester counts in
 * one bucket; paced polls only borrow one burst beyond it. A requester that keeps 40 ended tasks and
 * polls each at the suggested pace (5 a second each: 200 a second in all) for 3 s, with
 * `--max-polls-per-second 10`, gets about 10 a second served plus the two bursts, and -32029
 * naming `pollsPerSecond` for the rest. On memory, and on a NATS front + worker pair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../integration/harness/json.js';
import { startFrontWorker, stopSharedNats, type FrontWorkerPair } from '../integration/harness/nats-front-worker.js';
import { attachHttpWire } from '../integration/harness/http-wire.js';
import { spawnHttpServer, type HttpServerProcess } from '../integration/harness/process.js';
import { create2025 } from '../integration/harness/task-calls.js';
import type { Wire } from '../integration/harness/types.js';

const RATE = 10;
const TASKS = 40;
const FLAGS = ['--max-polls-per-second', String(RATE), '--max-creates-per-second', 'off', '--poll-frequency', '200'];

describe.each(['memory', 'nats'] as const)('polls of one requester (%s)', (backend) => {
  let server: HttpServerProcess | undefined;
  let pair: FrontWorkerPair | undefined;
  let wire: Wire;
  beforeAll(async () => {
    if (backend === 'memory') server = await spawnHttpServer(FLAGS);
    else pair = await startFrontWorker(FLAGS);
    wire = await attachHttpWire(server?.url ?? pair!.url);
  }, 60_000);
  afterAll(async () => {
    await wire?.close();
    await server?.close();
    await pair?.close();
    if (backend === 'nats') await stopSharedNats();
  });

  it('should count paced polls of many kept tasks against the rate, refusing past a burst of debt', async () => {
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) ids.push((await create2025(wire, 'sleep', { ms: 0 }, { ttl: 600_000 })).taskId);
    await sleep(1_500); // every task ended, and the requester's bucket full again
    let served = 0;
    const refusals: { code: number; limit: unknown }[] = [];
    const until = Date.now() + 3_000;
    await Promise.all(
      ids.map(async (taskId) => {
        while (Date.now() < until) {
          const res = await wire.request('tasks/get', { taskId });
          if (res.error === undefined) {
            served++;
            expect(res.result?.['status']).toBe('completed');
            await sleep(Number(res.result?.['pollInterval'])); // the pace the task suggests: 200 ms
          } else {
            refusals.push({ code: res.error.code, limit: (res.error.data as { limit?: unknown } | undefined)?.limit });
            await sleep(Number((res.error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs ?? 100));
          }
        }
      }),
    );
    // Asked: about 40 × 5 × 3 = 600. Allowed: 3 s at the rate, the burst, and one burst of debt.
    expect(served).toBeGreaterThanOrEqual(RATE * 3);
    expect(served).toBeLessThanOrEqual(RATE * 3 + 2 * RATE + 2 * RATE + RATE);
    expect(refusals.length).toBeGreaterThan(0);
    for (const r of refusals) expect(r).toEqual({ code: -32029, limit: 'pollsPerSecond' });
  }, 30_000);
});
