/**
 * A run's last reports land before its outcome on NATS: a handler that reports its machine's final
 * position (and its last progress) and returns at once ends showing that position, even when the
 * write of it is slow. The node's connection holds back (by 400 ms) every record write that
 * carries the final position, so without the wait the terminal write would always land first and
 * the position be refused on the ended task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { setup } from 'xstate';
import type { TaskOwner } from '../../machines/index.js';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { machineGraph } from '../../runtime/handlers/machine-graph.js';
import type { TaskObserver } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner: TaskOwner = { session: 's1', principal: null };
const HELD_MS = 400;
/** A state id only the final position names. */
const FINAL = 'job.all_done_here';
const graph = machineGraph(setup({}).createMachine({ id: 'job', initial: 'working', states: { working: { on: { finish: 'all_done_here' } }, all_done_here: { type: 'final' } } }));

/** The connection, its requests whose payload names `marker` answered `ms` late. */
function holdingBack(nc: NatsConnection, marker: string, ms: number): { connection: NatsConnection; held: () => number } {
  let held = 0;
  const connection = new Proxy(nc, {
    get(target, prop) {
      if (prop === 'request') {
        return async (subject: string, data?: Uint8Array | string, opts?: unknown) => {
          const text = typeof data === 'string' ? data : data ? Buffer.from(data).toString('utf8') : '';
          if (subject.startsWith('$KV.') && text.includes(marker)) {
            held++;
            await new Promise((r) => setTimeout(r, ms));
          }
          return (target.request as (...a: unknown[]) => Promise<unknown>).call(target, subject, data, opts);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { connection, held: () => held };
}

let server: NatsServer;
let nc: NatsConnection | undefined;
let runtime: NatsTaskRuntime | undefined;
let observer: TaskObserver | undefined;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await observer?.close();
  await runtime?.dispose();
  await nc?.close();
  await server?.stop();
});

describe('a NATS run’s last reports and its outcome', () => {
  it('should end the task showing the handler’s final position and last progress, written before the outcome although the write was slow', async () => {
    nc = await connectNats({ servers: server.url });
    const slow = holdingBack(nc, FINAL, HELD_MS);
    runtime = await createNatsTaskRuntime({ connection: slow.connection, prefix: 'lastmoves', role: 'both', nodeId: 'lastmoves-n1' });
    runtime.registerHandler('job', (_params, ctx) => {
      ctx.handlerState!(graph, { states: ['job.working'], status: 'active', step: 1, checkpoint: false });
      ctx.progress(1, 2);
      ctx.progress(2, 2);
      ctx.handlerState!(graph, { states: [FINAL], status: 'done', step: 2, checkpoint: false });
      return Promise.resolve('ok');
    });
    observer = runtime.observe();
    await runtime.create({ taskId: 't1', owner, dialect: '2025-11-25', method: 'tools/call', label: 'job', handler: 'job', params: {} });
    const outcome = await runtime.waitForOutcome('t1', owner, { timeout: 10_000 });
    expect(outcome.task.status).toBe('completed');
    // The final position's write was held back, and went through before the outcome's.
    expect(slow.held()).toBeGreaterThan(0);
    expect(outcome.task.handler).toMatchObject({ states: [FINAL], status: 'done', step: 2 });
    expect(outcome.task.progress).toMatchObject({ progress: 2, total: 2 });
    const [task] = await observer.list();
    expect(task).toMatchObject({ status: 'completed', handler: { states: [FINAL], status: 'done' } });
  }, 30_000);
});
