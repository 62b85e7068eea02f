/**
 * Large payloads through `mcp-tasks serve` on NATS (issue 31, item 8): fronts A and B and a worker
 * W on one nats-server (max_payload 1 MiB), `--max-result-bytes` raised.
 *
 * - 3 MB params (`fail` with a 3 MB message) run on the worker and come back whole; they used to
 *   answer `-32603 Internal error: 'payload' max_payload size exceeded`.
 * - A 3 MB answer to `ask_name` through the 2026-07-28 `tasks/update` reaches the worker; it used
 *   to be acknowledged and then dropped (the task stayed `input_required`).
 * - A 2 MB answer POSTed to front B for a question A holds (SEP-1686) is relayed whole; it used to
 *   give an HTTP 500.
 * - Over `--max-request-bytes`, an update is refused -32029 naming the limit and its flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from '../integration/harness/cluster.js';
import { extWire, isTerminal, WITH_EXT } from '../integration/harness/ext-wire.js';
import { attachHttpSession, attachInteractiveHttpWire } from '../integration/harness/http-wire.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { createSep, textOf } from '../integration/harness/task-calls.js';

const MB = 1024 * 1024;
const FLAGS = ['--max-result-bytes', String(16 * MB), '--max-request-bytes', String(3.5 * MB), '--max-creates-per-second', 'off', '--max-polls-per-second', 'off'];

describe('large payloads through serve on NATS (fronts A, B and a worker)', () => {
  let nats: NatsServer;
  let nodes: ClusterNode[] = [];
  const url = (label: string): string => nodes.find((n) => n.label === label)!.url;
  const diag = (): string => describeNodes(nodes, {});

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('payload');
    nodes = await startNodes([
      { label: 'A', role: 'front', nats: nats.url, prefix, flags: FLAGS },
      { label: 'B', role: 'front', nats: nats.url, prefix, flags: FLAGS },
      { label: 'W', role: 'worker', nats: nats.url, prefix, flags: FLAGS },
    ]);
  }, 60_000);
  afterAll(async () => {
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  it('should run a task of 3 MB params on the worker and return its 3 MB result whole', async () => {
    const wire = extWire(url('A'));
    const message = 'm'.repeat(3 * MB);
    const created = await wire.call('fail', { message });
    expect(created['resultType'], diag()).toBe('task');
    const done = await wire.until(String(created['taskId']), isTerminal, 30_000);
    expect(done['status']).toBe('completed');
    expect((done['result'] as { content: { text: string }[]; isError: boolean }).content[0]!.text).toBe(message);
  }, 60_000);

  it('should take a 3 MB answer through tasks/update and give it to the worker, and refuse one over --max-request-bytes naming it', async () => {
    const wire = extWire(url('A'));
    const created = await wire.call('ask_name', {}, { caps: { ...WITH_EXT, elicitation: {} } });
    const taskId = String(created['taskId']);
    const asking = await wire.until(taskId, (t) => t['status'] === 'input_required', 20_000);
    const [inputId] = Object.keys(asking['inputRequests'] as Record<string, unknown>);
    // Over the limit: refused, and the question stays open.
    const over = await wire.post('tasks/update', { taskId, inputResponses: { [inputId!]: { action: 'accept', content: { name: 'x'.repeat(3.6 * MB) } } } });
    expect(over.body.error?.code, JSON.stringify(over.body).slice(0, 300)).toBe(-32029);
    expect(over.body.error?.message).toContain('maxRequestBytes');
    expect(over.body.error?.message).toContain('--max-request-bytes');
    expect((await wire.getTask(taskId))['status']).toBe('input_required');
    const name = 'n'.repeat(3 * MB);
    const update = await wire.post('tasks/update', { taskId, inputResponses: { [inputId!]: { action: 'accept', content: { name } } } });
    expect(update.body.error, diag()).toBeUndefined();
    const done = await wire.until(taskId, isTerminal, 30_000);
    expect((done['result'] as { content: { text: string }[] }).content[0]!.text).toBe(`Hello, ${name}`);
  }, 60_000);

  it('should relay a 2 MB answer POSTed to front B to the question front A holds', async () => {
    const onA = await attachInteractiveHttpWire(url('A'), diag, { elicitation: {} });
    try {
      const { requestId } = await createSep(onA, 'ask_name', {});
      const ask = await onA.waitForServerRequest((r) => r.message.method === 'elicitation/create', 15_000);
      const onB = attachHttpSession(url('B'), onA.sessionId!, { interactive: true, serverStderr: diag });
      const name = 'r'.repeat(2 * MB);
      await onB.answer(ask.message.id, { action: 'accept', content: { name } });
      const res = await onA.responseFor(requestId, 30_000);
      expect(textOf(res.result as Record<string, unknown>)).toBe(`Hello, ${name}`);
      await onB.close();
    } finally {
      await onA.close();
    }
  }, 60_000);
});
