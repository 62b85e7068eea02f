/**
 * Where a task's handler machine is, seen from a NATS node that never ran it: a front node whose
 * runtime has no handler registered (in this process) observes a `long_job` task that a serve front
 * created and a serve worker runs. Its observer shows the machine's position advancing (with the
 * checkpoints the worker keeps), reads the machine's graph from the cluster, and lists the
 * handler's timeline entries with their attempt. The worker is then SIGKILLed: the observer shows
 * attempt 2 on the other worker continuing from the checkpointed step, not from the start. The
 * requester's `tasks/get` never carries the position.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { longJobMachine } from '../../adapters/cli/long-job.machine.js';
import type { HandlerPosition } from '../../machines/index.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { machineGraph } from '../../runtime/handlers/machine-graph.js';
import type { ObservedTask, TaskObserver } from '../../runtime/index.js';
import { closeNodes, describeNodes, freshPrefix, pollUntil, startNodes, waitForRunner, type ClusterNode } from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { createTask, getTask, statusOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const LEASE_TTL = 2_000;

let nats: NatsServer | undefined;
let prefix = '';
const nodes: ClusterNode[] = [];
let wire: Wire | undefined;
let observing: NatsTaskRuntime | undefined;
let observer: TaskObserver | undefined;
const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  prefix = freshPrefix('handlerpos');
  const flags = ['--lease-ttl', String(LEASE_TTL)];
  nodes.push(
    ...(await startNodes([
      { nats: nats.url, prefix, label: 'F', role: 'front', flags },
      { nats: nats.url, prefix, label: 'w1', role: 'worker', flags },
      { nats: nats.url, prefix, label: 'w2', role: 'worker', flags },
    ])),
  );
  // The operator's node: a front that serves no tool and runs nothing.
  observing = await createNatsTaskRuntime({ nats: { servers: nats.url }, prefix, role: 'front', nodeId: `${prefix}-observer`, leaseTtlMs: LEASE_TTL });
  observer = observing.observe();
  wire = await attachHttpWire(nodes[0]!.url, diag);
}, 60_000);

afterAll(async () => {
  await wire?.close().catch(() => undefined);
  await observer?.close();
  await observing?.dispose();
  await closeNodes(nodes);
  await nats?.stop();
}, 30_000);

beforeEach((ctx) => {
  ctx.onTestFailed(() => console.error(`[nats-handler-position] ${ctx.task.name} failed; node logs:\n${diag()}`));
});

describe('the handler machine position on a NATS front that never ran the handler', () => {
  it('shows long_job advancing, its graph and timeline, and after SIGKILL of its worker attempt 2 going on from the checkpointed step', async () => {
    // Every handler move the observer announces, with the attempt it was shown with.
    const moves: { attempt: number | undefined; handler: HandlerPosition }[] = [];
    let taskId = '';
    observer!.watch((u) => {
      if (u.kind === 'upsert' && u.task.taskId === taskId && u.entry?.event === 'task.handler') moves.push({ attempt: u.task.attempt, handler: u.task.handler! });
    });
    ({ taskId } = await createTask(wire!, '2025-11-25', 'long_job', { seconds: 10 }));
    const observed = (): Promise<ObservedTask | undefined> => observer!.list().then((tasks) => tasks.find((t) => t.taskId === taskId));
    const atStep = await pollUntil('the observer to show step 4', observed, (t) => (t?.handler?.step ?? 0) >= 4, { timeoutMs: 15_000, intervalMs: 50, diagnostics: diag });
    const position = atStep!.handler!;
    expect(position).toMatchObject({ machine: 'long_job', states: ['long_job.working'], status: 'active', checkpoint: true });
    // The steps came one by one (latest-wins writes may skip one on a loaded machine, never go back).
    const steps = moves.map((m) => m.handler.step);
    expect(steps.length, JSON.stringify(moves)).toBeGreaterThanOrEqual(2);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    // The graph, shared by the worker, read on a node that never loaded the machine.
    expect(await observer!.machine(position.graph)).toEqual(machineGraph(longJobMachine));
    // The requester sees none of it.
    const polled = await getTask(wire!, taskId);
    expect(Object.keys(polled)).not.toContain('handler');

    const workers = nodes.filter((n) => n.role === 'worker');
    const { node: runner } = await waitForRunner(workers, taskId, { attempt: 1, diagnostics: diag });
    const stepAtKill = (await observed())!.handler!.step;
    const killedAt = moves.length;
    await runner.crash();

    const resumed = await pollUntil('the observer to show attempt 2 with a handler position', observed, (t) => t?.attempt === 2 && moves.slice(killedAt).some((m) => m.attempt === 2), {
      timeoutMs: 20_000,
      intervalMs: 50,
      diagnostics: diag,
    });
    expect(resumed!.node).not.toBe(runner.nodeId);
    const ended = await pollUntil('the task to complete', observed, (t) => t?.status === 'completed', { timeoutMs: 25_000, intervalMs: 100, diagnostics: diag });
    expect(statusOf(await getTask(wire!, taskId))).toBe('completed');
    // The final position is written before the outcome (a run waits for its last reports; see
    // nats-handler-reports.test.ts): the ended task always shows it.
    expect(ended!.handler).toMatchObject({ states: ['long_job.done'], status: 'done' });

    // Attempt 2 starts from its checkpoint: the step it was killed in, or the one before if the
    // kill came while that step's checkpoint was being written; never from step 1.
    const second = moves.filter((m) => m.attempt === 2).map((m) => m.handler.step);
    const context = `killed at step ${stepAtKill}; moves ${JSON.stringify(moves.map((m) => [m.attempt, m.handler.step, m.handler.states]))}`;
    expect(second.length, context).toBeGreaterThan(0);
    expect(Math.min(...second), context).toBeGreaterThanOrEqual(stepAtKill - 1);
    expect([...second].sort((a, b) => a - b), context).toEqual(second);
    expect(second.at(-1), context).toBe(11);

    // The timeline, from the stored events: the handler's entries with their position and attempt.
    const timeline = await observer!.timeline(ended!.key);
    const entries = timeline.filter((e) => e.event === 'task.handler');
    expect(entries.every((e) => e.handler !== undefined && (e.attempt === 1 || e.attempt === 2)), JSON.stringify(entries)).toBe(true);
    const firstOfSecond = entries.find((e) => e.attempt === 2);
    expect(firstOfSecond?.handler?.step, JSON.stringify(entries)).toBeGreaterThanOrEqual(stepAtKill - 1);
    expect(entries.filter((e) => e.attempt === 1).length).toBeGreaterThan(0);
  }, 60_000);
});
