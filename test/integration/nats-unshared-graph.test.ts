/**
 * A handler machine whose graph is too large to share (over MAX_SHARED_GRAPH_BYTES), on a NATS
 * node: its tasks' position moves as any other's, the graph is never written to the machines
 * bucket (no node's observer has its picture), and the node says so once for the graph, not at
 * every run of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import type { TaskOwner } from '../../machines/index.js';
import { graphShare, MAX_SHARED_GRAPH_BYTES } from '../../runtime/core/machine-graphs.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { machineGraph } from '../../runtime/handlers/machine-graph.js';
import type { TaskObserver } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner: TaskOwner = { session: 's1', principal: null };
/** 600 states of 500-character names: a graph of about 600 KB of JSON. */
const states = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`s${i}_${'x'.repeat(500)}`, {}]));
const huge = machineGraph(setup({}).createMachine({ id: 'huge', initial: Object.keys(states)[0]!, states }));

let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
const observers: TaskObserver[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(observers.map((o) => o.close()));
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('a handler machine graph too large to share on NATS', () => {
  it('should move the position, share nothing, and be logged once for the graph over several runs', async () => {
    const { key, bytes } = graphShare(huge);
    expect(bytes).toBeGreaterThan(MAX_SHARED_GRAPH_BYTES);
    const lines: { message: string; fields: Record<string, unknown> | undefined }[] = [];
    const make = async (name: string, role: 'worker' | 'front'): Promise<NatsTaskRuntime> => {
      const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix: 'unshared', role, nodeId: `unshared-${name}`, log: (_level, message, fields) => lines.push({ message, fields }) });
      runtimes.push(runtime);
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
      observers.push(observer);
      expect(await observer.machine(key)).toBeNull();
    }
  }, 30_000);
});
