/**
 * Our own requester keeps to our own pace. A 2025-11-25 `TaskClient` call reads the task once
 * more after it saw the end (a `tasks/result`, then a closing `tasks/get`): those reads follow a
 * new status at once, and are neither charged as fast nor suspect. A SEP-1686 `TaskClient` fetches
 * at once when the server pushes a new status: that poll finds the new status and is not suspect
 * either. Before the one rule of `judgePoll`, 25 concurrent 2025-11-25 calls made 25 "fast polls"
 * and got the requester flagged; 25 SEP-1686 calls made 14.
 *
 * Under the default limits (`limits: {}`: 20 creates a second, bursts of 40), 50 concurrent calls
 * have more creates than the burst: the server refuses the rest with -32029 and `retryAfterMs`,
 * and the client sends them again after that wait. Before `pacedPeer`, 4–10 of the 50 failed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { TaskClient, type TaskDialect } from '../../adapters/mcp-client/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

describe.each(['2025-11-25', 'sep-1686'] as const satisfies readonly TaskDialect[])('TaskClient (%s) under the default limits, audited', (dialect) => {
  it('makes 25 concurrent calls with no fast poll, no flag and no refusal', async () => {
    const lines: unknown[] = [];
    const logger = pino({ base: null }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const runtime = createTaskRuntime({ audit: { logger, node: 'embedded' } });
    const server = createTaskServer({ name: 't', version: '0' }, { runtime, ...demoDefinitions });
    const client = new Client({ name: 'c', version: '0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    const tasks = new TaskClient(client, { dialect });
    try {
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => tasks.callTool({ name: 'sleep', arguments: { ms: 200 + 10 * i } }).result()));
      expect(results.map((r) => r.isError ?? false)).toEqual(Array.from({ length: 25 }, () => false));
      const report = runtime.security();
      expect(report.totals).toMatchObject({ fastPolls: 0, flags: 0 });
      expect(report.flagged).toBe(0);
      expect(report.totals.limitRefusals ?? 0).toBe(0);
    } finally {
      tasks.dispose();
      await client.close();
      await runtime.dispose();
    }
  });

  async function fifty(pacedRetries?: number) {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ base: null }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const runtime = createTaskRuntime({ audit: { logger, node: 'embedded' }, limits: {} });
    const server = createTaskServer({ name: 't', version: '0' }, { runtime, ...demoDefinitions });
    const client = new Client({ name: 'c', version: '0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    const tasks = new TaskClient(client, { dialect, ...(pacedRetries !== undefined && { pacedRetries }) });
    try {
      const settled = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => tasks.callTool({ name: 'sleep', arguments: { ms: 200 + 10 * i } }).result()));
      return { settled, report: runtime.security(), lines };
    } finally {
      tasks.dispose();
      await client.close();
      await runtime.dispose();
    }
  }

  it('makes 50 concurrent calls under the default limits: every one succeeds, the refused creates waited out, no poll refused, no flag', async () => {
    const { settled, report, lines } = await fifty();
    expect(settled.map((s) => (s.status === 'fulfilled' ? (s.value.isError ?? false) : String(s.reason)))).toEqual(Array.from({ length: 50 }, () => false));
    expect(report.totals).toMatchObject({ fastPolls: 0, flags: 0 });
    expect(report.flagged).toBe(0);
    // What the server refused was creates over the burst only (retried), never a poll.
    expect(report.limitRefusals['pollsPerSecond'] ?? 0).toBe(0);
    expect(report.limitRefusals['createsPerSecond'] ?? 0).toBeGreaterThan(0);
    expect(lines.filter((l) => l['event'] === 'suspicious')).toEqual([]);
  });

  it('without retries (pacedRetries: 0) loses the creates over the burst, as every requester did before', async () => {
    const { settled } = await fifty(0);
    const failed = settled.filter((s) => s.status === 'rejected' || s.value.isError === true);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(50);
  });
});
