/**
 * Metrics stay bounded whatever requesters send (issue 42, item 2): a real `serve --otel
 * --metrics-port 0` on each SDK line gets 2,000 calls and notifications with made-up method names,
 * `MCP-Protocol-Version` headers on `initialize`, `_meta` protocol versions (on sessions parked and
 * taken up again, with `--sdk v1`, and on session-less requests), unknown tools and prompts and
 * bad inputs, with a scrape of `/metrics` between every 100; the series of every metric together
 * grow by at most 20 from the first scrape after a warm-up to the last. Each made-up value is
 * counted, under `_OTHER`. Before the bounds, each made-up notification method, version and tool
 * name was a series of `mcp_server_operation_duration` of its own.
 *
 * Calls go in JSON-RPC batches (both SDK lines take up to 100 messages in one POST), the
 * `initialize` calls side by side: 2,000 messages in a few seconds even on a loaded machine.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { metricsUrlIn, scrape, type Exposition } from './harness/prometheus.js';

const ROUNDS = 20;
const PER_ROUND = 100;
const MAX_GROWTH = 20;
/** A session quiet this long is parked (`--sdk v1`): each round's second batch finds its session parked. */
const PARK_MS = 100;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const VERSION = '2025-11-25';
const OTHER = '_OTHER';

const made = (): string => randomBytes(6).toString('hex');
/** A date-like version no SDK speaks, or plain junk. */
const madeVersion = (): string => (Math.random() < 0.5 ? `20${10 + Math.floor(Math.random() * 90)}-0${1 + Math.floor(Math.random() * 9)}-${made().slice(0, 2)}` : `v-${made()}`);
const meta = (): Record<string, unknown> => ({ 'io.modelcontextprotocol/protocolVersion': madeVersion() });

/**
 * The series of an exposition, by metric family and labels: a histogram's buckets, sum and count
 * are one series of the family (its `le` aside), as the issue counts them.
 */
function seriesOf(e: Exposition): Set<string> {
  const series = new Set<string>();
  for (const s of e.samples) {
    const family = s.name.replace(/_(bucket|sum|count)$/, '');
    const labels = Object.entries(s.labels).filter(([k]) => k !== 'le').sort(([a], [b]) => a.localeCompare(b));
    series.add(`${family}${JSON.stringify(labels)}`);
  }
  return series;
}

/** POSTs `body` (one message or a batch) and reads the whole answer (JSON, or an SSE stream to its end). */
async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; sessionId: string | null; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  return { status: res.status, sessionId: res.headers.get('mcp-session-id'), text: await res.text() };
}

const initialize = (id: number): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bounds', version: '1' } } });

/** A session begun as a client does (initialize, then notifications/initialized). */
async function openSession(url: string): Promise<string> {
  const init = await post(url, initialize(1));
  if (init.status !== 200 || init.sessionId === null) throw new Error(`initialize answered ${init.status}: ${init.text.slice(0, 300)}`);
  const inSession = { 'mcp-session-id': init.sessionId, 'mcp-protocol-version': VERSION };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, inSession);
  return init.sessionId;
}

let nextId = 10;
/**
 * Forty messages for a session: made-up notifications and methods, unknown tools and prompts, bad
 * inputs; with `withMeta`, a made-up `_meta` version on each (the SDK v2 refuses a batch with one:
 * such a message is of the 2026-07-28 wire, which has no batches).
 */
function sessionBatch(withMeta: boolean): Record<string, unknown>[] {
  const batch: Record<string, unknown>[] = [];
  const extra = (): Record<string, unknown> => (withMeta ? { _meta: meta() } : {});
  const request = (method: string, params: Record<string, unknown>): void => void batch.push({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, ...extra() } });
  for (let i = 0; i < 14; i++) batch.push({ jsonrpc: '2.0', method: `notifications/${made()}`, params: extra() });
  for (let i = 0; i < 8; i++) request(`${made()}/${made()}`, {});
  for (let i = 0; i < 5; i++) request('tools/call', { name: `tool_${made()}`, arguments: {} });
  for (let i = 0; i < 3; i++) request('prompts/get', { name: `prompt_${made()}` });
  for (let i = 0; i < 3; i++) request('tools/call', { name: 'sleep', arguments: { ms: 'not a number' } });
  for (let i = 0; i < 3; i++) request('tasks/get', { taskId: made() });
  for (let i = 0; i < 2; i++) request('ping', {});
  request('tools/list', {});
  request('resources/read', { uri: `file:///${made()}` });
  return batch;
}

/** One round of 100: two session batches (the second session parked since its last round), ten initialize with made-up headers, ten session-less requests with made-up `_meta` versions. */
async function round(url: string, sessions: readonly [string, string], withMeta: boolean): Promise<number> {
  let sent = 0;
  const inSession = (id: string): Record<string, string> => ({ 'mcp-session-id': id, 'mcp-protocol-version': VERSION });
  const first = sessionBatch(withMeta);
  const second = sessionBatch(withMeta);
  const answers = await Promise.all([post(url, first, inSession(sessions[0])), post(url, second, inSession(sessions[1]))]);
  for (const a of answers) if (a.status !== 200) throw new Error(`a batch answered ${a.status}: ${a.text.slice(0, 300)}`);
  sent += first.length + second.length;
  const inits = await Promise.all(Array.from({ length: 10 }, () => post(url, initialize(1), { 'mcp-protocol-version': madeVersion() })));
  sent += inits.length;
  // Ended at once: the made-up sessions hold nothing (and no cap on sessions is reached).
  const begun = inits.flatMap((i) => (i.sessionId === null ? [] : [i.sessionId]));
  await Promise.all(begun.map(async (id) => (await fetch(url, { method: 'DELETE', headers: inSession(id) })).body?.cancel()));
  const loose = await Promise.all(Array.from({ length: 10 }, (_, i) => post(url, { jsonrpc: '2.0', id: i + 1, method: i % 2 === 0 ? 'tools/call' : `${made()}/x`, params: { name: `tool_${made()}`, arguments: {}, _meta: { ...meta(), 'io.modelcontextprotocol/clientCapabilities': {} } } })));
  sent += loose.length;
  return sent;
}

describe.each(['v1', 'v2'] as const)('serve --sdk %s --otel --metrics-port: series stay bounded', (sdk) => {
  let server: HttpServerProcess | undefined;
  beforeAll(() => {
    // Nothing exported over OTLP (no receiver): the scrape is what is read. Inherited by the server this file spawns.
    Object.assign(process.env, { OTEL_TRACES_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('should add at most 20 series over 2,000 calls and notifications with made-up names, versions and bad inputs, counting them as _OTHER', async () => {
    server = await spawnHttpServer(['--sdk', sdk, '--otel', '--metrics-port', '0', ...(sdk === 'v1' ? ['--session-park', String(PARK_MS)] : [])]);
    const metrics = metricsUrlIn(server.stderr());
    if (metrics === undefined) throw new Error(`no 'metrics at' line:\n${server.stderr().slice(-2_000)}`);
    const url = server.url;
    const sessions = [await openSession(url), await openSession(url)] as const;
    // Warm-up: one round, so that every bounded value (the _OTHER ones too) has its series.
    await round(url, sessions, sdk === 'v1');
    const first = seriesOf(await scrape(metrics)).size;
    const counts: number[] = [];
    let sent = 0;
    while (sent < ROUNDS * PER_ROUND) {
      // The second session is quiet past its park time by now on `--sdk v1`: its batch takes it up again.
      await new Promise((resolve) => setTimeout(resolve, sdk === 'v1' ? 3 * PARK_MS : 0));
      sent += await round(url, sessions, sdk === 'v1');
      counts.push(seriesOf(await scrape(metrics)).size);
    }
    expect(sent).toBe(ROUNDS * PER_ROUND);
    const last = await scrape(metrics);
    expect(Math.max(...counts) - first, `series by scrape: ${first} then ${counts.join(', ')}`).toBeLessThanOrEqual(MAX_GROWTH);
    // The made-up values were measured, under _OTHER: a method, a version on initialize, a tool name.
    const durations = last.samples.filter((s) => s.name === 'mcp_server_operation_duration_count');
    const some = (pick: (labels: Readonly<Record<string, string>>) => boolean): boolean => durations.some((s) => pick(s.labels));
    expect(some((l) => l['mcp_method_name'] === OTHER)).toBe(true);
    expect(some((l) => l['mcp_method_name'] === 'tools/call' && l['gen_ai_tool_name'] === OTHER)).toBe(true);
    if (sdk === 'v1') {
      // The SDK v2 reads no version from an initialize's header, and parks no session.
      expect(some((l) => l['mcp_method_name'] === 'initialize' && l['mcp_protocol_version'] === OTHER)).toBe(true);
      // A parked session taken up again has only the request's word for its version.
      expect(some((l) => l['mcp_method_name'] !== 'initialize' && l['mcp_protocol_version'] === OTHER)).toBe(true);
    }
    for (const s of durations) {
      for (const value of Object.values(s.labels)) expect(value, JSON.stringify(s.labels)).not.toMatch(/^(notifications\/)?[0-9a-f]{12}|tool_[0-9a-f]|prompt_[0-9a-f]|^v-/);
    }
  }, 90_000);
});
