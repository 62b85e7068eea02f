/**
 * The tasks extension on a NATS cluster: a task created through one front node is read, answered
 * (tasks/update) and cancelled through another, while a worker-only node runs it. No connection is
 * held open while the task waits for input. A status subscription on another front node than the
 * one that created the task sees every change the worker makes; prompts and resources run as tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from './harness/cluster.js';
import { EXT_VERSION, extWire, isTerminal, WITH_EXT } from './harness/ext-wire.js';
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

  it("should push a task's status changes to a subscription on B while the worker runs it, and end when it is terminal", async () => {
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const { taskId } = await extWire(a.url).call('ask_name', {}, { caps: { ...WITH_EXT, elicitation: {} } });
    const meta = { 'io.modelcontextprotocol/protocolVersion': EXT_VERSION, 'io.modelcontextprotocol/clientCapabilities': { ...WITH_EXT, elicitation: {} } };
    const stream = fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': EXT_VERSION, 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sub-n', method: 'subscriptions/listen', params: { notifications: { taskIds: [taskId] }, _meta: meta } }),
    }).then((res) => res.text());
    // Answered through A, once the worker has asked: the subscription on B must see it all.
    const waiting = await extWire(a.url).until(String(taskId), (t) => t['status'] === 'input_required', 15_000);
    const [key] = Object.keys(waiting['inputRequests'] as object);
    await extWire(a.url).post('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Nat' } } } });
    const messages = (await stream)
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { id?: unknown; method?: string; params?: Record<string, unknown> });
    const statuses = messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params?.['status']);
    expect(statuses, diag()).toContain('input_required');
    expect(statuses.at(-1), diag()).toBe('completed');
    expect(messages.filter((m) => m.method === 'notifications/tasks').at(-1)?.params, diag()).toMatchObject({ result: { content: [{ text: 'Hello, Nat' }] } });
    expect(messages.at(-1), diag()).toMatchObject({ id: 'sub-n', result: { resultType: 'complete' } });
  }, 40_000);

  it('should run prompts/get and resources/read as tasks on the worker, read from the other front', async () => {
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const prompt = await extWire(a.url).post('prompts/get', { name: 'greeting', arguments: { name: 'Ada' } }, { caps: WITH_EXT });
    expect(prompt.body.result, diag()).toMatchObject({ resultType: 'task' });
    const resource = await extWire(a.url).post('resources/read', { uri: 'demo://report' }, { caps: WITH_EXT });
    expect(resource.body.result, diag()).toMatchObject({ resultType: 'task' });
    const promptDone = await extWire(b.url).until(String(prompt.body.result!['taskId']), isTerminal, 15_000);
    expect(promptDone, diag()).toMatchObject({ status: 'completed', result: { resultType: 'complete', messages: [expect.anything()] } });
    const resourceDone = await extWire(b.url).until(String(resource.body.result!['taskId']), isTerminal, 15_000);
    expect(resourceDone, diag()).toMatchObject({ status: 'completed', result: { resultType: 'complete', contents: [expect.objectContaining({ uri: 'demo://report' })] } });
  }, 40_000);

  it('should cancel through B a task created on A', async () => {
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    const { taskId } = await extWire(a.url).call('long_job', { seconds: 30 });
    expect((await extWire(b.url).post('tasks/cancel', { taskId })).body.result?.['resultType'], diag()).toBe('complete');
    expect(await extWire(a.url).until(String(taskId), isTerminal, 15_000), diag()).toMatchObject({ status: 'cancelled' });
  }, 40_000);
});
