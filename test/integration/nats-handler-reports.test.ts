/**
 * What a NATS run does with its handler machine's reports, on a real nats-server.
 *
 * - Its last reports land before its outcome: a handler that reports its machine's final position
 *   (and its last progress) and returns at once ends showing that position, even when the write of
 *   it is slow. The node's connection holds back (by 400 ms) every record write that carries the
 *   final position, so without the wait the terminal write would always land first and the
 *   position be refused on the ended task.
 * - A graph too large to share (over MAX_SHARED_GRAPH_BYTES): its tasks' position moves as any
 *   other's, the graph is never written to the machines bucket (no node's observer has its
 *   picture), and the node says so once for the graph, not at every run of it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { setup } from 'xstate';
import type { TaskOwner } from '../../machines/index.js';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { graphShare, MAX_SHARED_GRAPH_BYTES } from '../../runtime/core/machine-graphs.js';
import { machineGraph } from '../../runtime/handlers/machine-graph.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { capturingLogger } from '../fixtures/capturing-logger.js';

const owner: TaskOwner = { session: 's1', principal: null };
const HELD_MS = 400;
/** A state id only the final position names. */
const FINAL = 'job.all_done_here';
const graph = machineGraph(setup({}).createMachine({ id: 'job', initial: 'working', states: { working: { on: { finish: 'all_done_here' } }, all_done_here: { type: 'final' } } }));
/** 600 states of 500-character names: a graph of about 940 KB of JSON (under a NATS message's 1 MiB: only the bound keeps it from being written). */
const states = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`s${i}_${'x'.repeat(500)}`, {}]));
const huge = machineGraph(setup({}).createMachine({ id: 'huge', initial: Object.keys(states)[0]!, states }));

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
/** What each test opened, closed after it (last first). */
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(() => server?.stop());

describe('a NATS run’s handler machine reports', () => {
  it('should end the task showing the handler’s final position and last progress, written before the outcome although the write was slow', async () => {
    const nc = await connectNats({ servers: server.url });
    cleanups.push(() => nc.close());
    const slow = holdingBack(nc, FINAL, HELD_MS);
    const runtime = await createNatsTaskRuntime({ connection: slow.connection, prefix: 'lastmoves', role: 'both', nodeId: 'lastmoves-n1' });
    cleanups.push(() => runtime.dispose());
    runtime.registerHandler('job', (_params, ctx) => {
      ctx.handlerState!(graph, { states: ['job.working'], status: 'active', step: 1, checkpoint: false });
      ctx.progress(1, 2);
      ctx.progress(2, 2);
      ctx.handlerState!(graph, { states: [FINAL], status: 'done', step: 2, checkpoint: false });
      return Promise.resolve('ok');
    });
    const observer = runtime.observe();
    cleanups.push(() => observer.close());
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

  it('should move the position, share nothing, and be logged once for the graph over several runs', async () => {
    const { key, bytes } = graphShare(huge);
    expect(bytes).toBeGreaterThan(MAX_SHARED_GRAPH_BYTES);
    const lines: { message: string; fields: Record<string, unknown> | undefined }[] = [];
    const make = async (name: string, role: 'worker' | 'front'): Promise<NatsTaskRuntime> => {
      const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix: 'unshared', role, nodeId: `unshared-${name}`, logger: capturingLogger(({ message, fields }) => lines.push({ message, fields })) });
      cleanups.push(() => runtime.dispose());
      // Registered on the front too, which checks the name (a front runs nothing).
      runtime.registerHandler('huge', (params, ctx) => {
        ctx.handlerState!(huge, { states: [huge.nodes[1]!.id], status: 'active', step: 1, checkpoint: false });
        ctx.handlerState!(huge, { states: [huge.nodes[2]!.id], status: 'active', step: 2, checkpoint: false });
        return Promise.resolve(params);
      });
      return runtime;
    };
    const worker = await make('w', 'worker');
    const front = await make('f', 'front');
    for (const taskId of ['t1', 't2', 't3']) {
      await front.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', label: 'huge', handler: 'huge', params: { taskId } });
      const outcome = await front.waitForOutcome(taskId, owner, { timeout: 10_000 });
      expect(outcome.task.status).toBe('completed');
      expect(outcome.task.handler).toMatchObject({ machine: 'huge', graph: key, states: [huge.nodes[2]!.id], step: 2 });
    }
    const told = lines.filter((l) => l.message === 'handler machine graph too large to share');
    expect(told).toHaveLength(1);
    expect(told[0]!.fields).toMatchObject({ key, bytes, maxBytes: MAX_SHARED_GRAPH_BYTES });
    // Neither the node that ran it nor another has its picture: it was never written.
    for (const runtime of [worker, front]) {
      const observer = runtime.observe();
      cleanups.push(() => observer.close());
      expect(await observer.machine(key)).toBeNull();
    }
  }, 30_000);
});
