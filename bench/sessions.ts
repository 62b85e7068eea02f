/**
 * "Sessions": heap bytes an idle Streamable HTTP session costs the SDK v1 endpoint
 * (`startHttpEndpoint`), ours (idle sessions parked: only their record is kept until their next
 * request) against the same endpoint keeping an SDK server and transport per session for its whole
 * idle timeout (parking off: what the endpoint did before, and what an SDK user's session map does).
 *
 * Each phase starts an endpoint, opens N sessions with `initialize` (50 at a time, over real HTTP),
 * waits until the endpoint has parked what it parks, and divides the heap growth (after full gcs)
 * by N. A last line times a request of a parked session (its server taken up again) against one of
 * an active session.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startHttpEndpoint, type HttpHandlerOptionsV1 } from '../adapters/http/index.js';
import { demoDefinitions } from '../adapters/cli/demo-tools.js';
import { createTaskServer } from '../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../runtime/index.js';
import { settledHeap } from './lib/heap.js';
import type { Benchmark } from './lib/report.js';

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const PARK_AFTER_MS = 500;


async function open(url: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

async function openMany(url: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 50) ids.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => open(url)))));
  return ids;
}

/** ms of one `tools/list` of session `id`. */
async function timedList(url: string, id: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  await res.text();
  return performance.now() - started;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Heap bytes per idle session, and the ms of a request of one, for an endpoint with `options`. */
async function phase(n: number, options: Partial<HttpHandlerOptionsV1>): Promise<{ bytes: number; requestMs: number }> {
  const runtime = createTaskRuntime();
  // One client opens them all: its share of the sessions is lifted, their memory is what is measured.
  const endpoint = await startHttpEndpoint({ port: 0, maxSessionsPerRequester: null, createServer: () => createTaskServer({ name: 'bench', version: '1' }, { runtime, ...demoDefinitions }), ...options });
  try {
    await openMany(endpoint.url, 20); // warm the code paths
    await sleep(PARK_AFTER_MS * 3);
    const before = await settledHeap('sessions');
    const ids = await openMany(endpoint.url, n);
    await sleep(PARK_AFTER_MS * 3);
    const after = await settledHeap('sessions');
    const times: number[] = [];
    for (const id of ids.slice(0, 15)) {
      times.push(await timedList(endpoint.url, id));
      await sleep(PARK_AFTER_MS * 1.5); // parked again before the next one is timed
    }
    return { bytes: (after - before) / n, requestMs: median(times) };
  } finally {
    await endpoint.close();
    await runtime.dispose();
  }
}

/** The benchmark. */
export const run: Benchmark = async ({ quick }) => {
  const n = quick ? 500 : 2000;
  const parked = await phase(n, { parkAfterMs: PARK_AFTER_MS });
  const kept = await phase(n, { parkAfterMs: null });
  return [
    {
      title: 'Idle HTTP sessions (SDK v1 endpoint)',
      baselineName: 'a server and transport per session (parking off)',
      method: `${n} sessions opened with initialize, left idle past the parking delay (${PARK_AFTER_MS} ms here; 30 s by default, or at once past 200 active sessions); heap after full gcs; the request line is the median of 15 tools/list, each of a session idle past the delay`,
      rows: [
        { name: 'heap per idle session', ours: Math.round(parked.bytes), baseline: Math.round(kept.bytes), unit: 'bytes', higherIsBetter: false, target: '≤ 20 KB', met: parked.bytes <= 20 * 1024 },
        { name: 'first request of an idle session', ours: +parked.requestMs.toFixed(2), baseline: +kept.requestMs.toFixed(2), unit: 'ms', higherIsBetter: false },
      ],
    },
  ];
};
