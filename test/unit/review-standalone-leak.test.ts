import { expect, it } from 'vitest';
import { StandaloneInputs } from '../../adapters/mcp-server/standalone-inputs.js';
import { createTaskRuntime } from '../../runtime/index.js';

it('a watched task that ends is forgotten without a later tasks/get', async () => {
  const runtime = createTaskRuntime();
  runtime.registerHandler('quick', async () => ({ ok: true }));
  const standalone = new StandaloneInputs(runtime, { inFlight: new Set(), peerSupports: () => true }, () => new Promise(() => undefined));
  const owner = { session: 's', principal: null };
  for (let i = 0; i < 100; i++) {
    const task = await runtime.create({ taskId: `t${i}`, owner, dialect: '2025-11-25', method: 'tools/call', label: 'quick', handler: 'quick', params: {} } as never);
    standalone.watch(task, owner);
  }
  await new Promise((r) => setTimeout(r, 300));
  const ended = await Promise.all(Array.from({ length: 100 }, (_, i) => runtime.get(`t${i}`, owner, { countsAsPoll: false })));
  expect(ended.every((t) => t.status === 'completed')).toBe(true);
  const kept = (standalone as unknown as { stops: Map<string, unknown> }).stops.size;
  console.log('DELIVERERS STILL SUBSCRIBED', kept);
  expect(kept).toBe(0);
  await runtime.dispose();
});
