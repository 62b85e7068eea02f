/**
 * The tasks extension on a NATS cluster: a task created through one front node is read, answered
 * (tasks/update) and cancelled through another, while a worker-only node runs it. No connection is
 * held open while the task waits for input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from './harness/cluster.js';
import { extWire, isTerminal, WITH_EXT } from './harness/ext-wire.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

describe('NATS cluster: the tasks extension across front nodes', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  const diag = (): string => describeNodes(nodes);

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('ext');
    nodes = await startNodes([
      { label: 'A', role: 'front', nats: nats.url, prefix },
      { label: 'B', role: 'front', nats: nats.url, prefix },
      { label: 'W', role: 'worker', nats: nats.url, prefix },
    ]);
  }, 40_000);

  afterAll(async () => {
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  it('should find a task created on A from B at once, take its input through B and complete it', async () => {
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const onA = extWire(a.url);
    const onB = extWire(b.url);
    const { taskId } = await onA.call('ask_name', {}, { caps: { ...WITH_EXT, elicitation: {} } });
    // Durable before the reply: another node resolves it immediately.
    expect((await onB.getTask(String(taskId)))['status'], diag()).toMatch(/working|input_required/);
    const waiting = await onB.until(String(taskId), (t) => t['status'] === 'input_required', 15_000);
    const [key] = Object.keys(waiting['inputRequests'] as object);
    const ack = await onB.post('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Bea' } } } });
    expect(ack.body.result?.['resultType'], diag()).toBe('complete');
    const done = await onA.until(String(taskId), isTerminal, 15_000);
    expect(done, diag()).toMatchObject({ status: 'completed', result: { content: [{ text: 'Hello, Bea' }] } });
  }, 40_000);

  it('should cancel through B a task created on A', async () => {
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const { taskId } = await extWire(a.url).call('long_job', { seconds: 30 });
    expect((await extWire(b.url).post('tasks/cancel', { taskId })).body.result?.['resultType'], diag()).toBe('complete');
    expect(await extWire(a.url).until(String(taskId), isTerminal, 15_000), diag()).toMatchObject({ status: 'cancelled' });
  }, 40_000);
});
