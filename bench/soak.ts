/**
 * `npm run soak [-- --backend memory|nats|chaos|both] [--requesters 100] [--tasks 10000]
 * [--keep-alive-ms 5000] [--window 2] [--ramp-ms 2000] [--timeout-s 600] [--json]`: load that
 * must not lose work.
 *
 * Concurrent MCP requesters (raw Streamable HTTP, half 2025-11-25, half SEP-1686) create tasks
 * on a server assembled as `mcp-tasks serve --http 0` (default per-requester limits on), in this
 * process, on loopback only; they poll every task until it is terminal and fetch its result. It
 * passes when every task ends as it must with exactly its result, and the heap comes back to the
 * baseline once the sessions are closed and the tasks' retention has expired. It stops by itself:
 * exit 0 when every check passes, 1 on a lost or wrong result, a heap that stays up, or the
 * overall timeout. `--backend nats` also runs the chaos run (`bench/lib/soak-chaos.ts`): the same
 * load while a worker process is SIGKILLed and the nats-server restarted.
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { heapAllowance, mb, soakBackend, type SoakResult } from './lib/soak-run.js';
import type { SoakBackendName } from './lib/soak-server.js';

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} expects a positive integer, got '${value}'`);
  return n;
}

const fixed = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** What the chaos run did to the cluster and what the requesters saw of it. */
function chaosRows(r: SoakResult): [string, string][] {
  const c = r.chaos;
  if (!c) return [];
  const at = (ms: number | null): string => (ms === null ? 'not reached' : `${fixed(ms / 1000, 1)} s into the load`);
  const recovered = Object.entries(c.recovered);
  const errors = Object.entries(r.outageErrors);
  return [
    ['worker SIGKILLed (lease 2 s; a replacement started; retention ≥ 30 s in this run)', at(c.killedAtMs)],
    ['nats-server restarted (SIGTERM, same port and store)', `${at(c.restartedAtMs)}, no server for ${c.downMs === null ? '—' : `${fixed(c.downMs / 1000, 1)} s`}`],
    ['tasks found on the lost worker', recovered.length ? recovered.map(([a, n]) => `${a} ${n}`).join(', ') : '0'],
    ['errors answered while NATS was away, retried', errors.length ? `${errors.reduce((s, [, n]) => s + n, 0)} (${errors.map(([m, n]) => `${m} ${n}`).join(', ')})` : '0'],
    ['SEP-1686 direct replies cut by the outage (task read by polling)', String(r.directLost)],
  ];
}

/** One backend's figures as a two-column markdown table. */
function render(r: SoakResult): string {
  const refused = Object.entries(r.refusals);
  const rows: [string, string][] = [
    ['tasks / requesters', `${r.tasks} / ${r.requesters} (${r.nodes} node${r.nodes > 1 ? 's' : ''})`],
    ['sessions opened (initialize, all at once)', `${fixed(r.sessionsMs / 1000, 1)} s`],
    ['wall time (first create → last result checked)', `${fixed(r.wallMs / 1000, 1)} s`],
    ['tasks/s', fixed(r.tasksPerSecond, 0)],
    ['create → terminal p50 / p99 / max', `${fixed(r.latencyMs.p50)} / ${fixed(r.latencyMs.p99)} / ${fixed(r.latencyMs.max)} ms`],
    ['limit refusals (-32029) retried', `${refused.reduce((s, [, n]) => s + n, 0)}${refused.length ? ` (${refused.map(([m, n]) => `${m} ${n}`).join(', ')})` : ''}`],
    ['requests resent after a keep-alive socket reset', String(r.staleSockets)],
    ['request round trip p50 / p99', Object.entries(r.roundTripsMs).map(([m, t]) => `${m} ${fixed(t.p50)} / ${fixed(t.p99)}`).join(', ') + ' ms'],
    ['event loop delay p99 / max', `${fixed(r.loopDelayMs.p99)} / ${fixed(r.loopDelayMs.max)} ms`],
    ['results exactly as produced', `${r.ok} of ${r.tasks}`],
    ['lost or wrong results', `${r.tasks - r.ok}${r.tasks - r.ok === 0 ? ' ✅' : ' ❌'}`],
    ...chaosRows(r),
    ['heap baseline / peak / loaded / final', `${mb(r.heap.baseline)} / ${mb(r.heap.peak)} / ${mb(r.heap.loaded)} / ${mb(r.heap.final)} MB`],
    ['final − baseline', `${mb(r.heap.final - r.heap.baseline)} MB (allowed ${mb(heapAllowance(r.heap.baseline))}) ${r.memoryOk ? '✅' : '❌'}`],
    ['retained right after the run', `${r.residueLoaded.retained} tasks (live ${r.residueLoaded.live})`],
    ['retained after expiry', `${r.residueFinal.retained} tasks (live ${r.residueFinal.live}), ${fixed(r.drainMs / 1000, 1)} s after closing the sessions`],
  ];
  if (r.residueFinal.stored) {
    const streams = Object.entries(r.residueFinal.stored.streams).sort(([a], [b]) => a.localeCompare(b));
    rows.push(['NATS results after expiry', String(r.residueFinal.stored.results)]);
    // Removal purges a task's subjects, markers included: what stays is per node (heartbeat)
    // and per owner (its running-task count), not per task.
    const left = streams.reduce((sum, [, n]) => sum + n, 0);
    rows.push(['NATS stream messages after expiry', `${left} (${fixed(left / r.tasks, 3)} per task): ${streams.map(([s, n]) => `${s} ${n}`).join(', ')}`]);
  }
  return [`### soak: ${r.backend}`, '', '| measure | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`), ''].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      backend: { type: 'string' },
      requesters: { type: 'string' },
      tasks: { type: 'string' },
      'keep-alive-ms': { type: 'string' },
      window: { type: 'string' },
      'ramp-ms': { type: 'string' },
      'timeout-s': { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const choice = values.backend ?? 'both';
  const runs: Record<string, SoakBackendName[]> = { memory: ['memory'], nats: ['nats', 'chaos'], chaos: ['chaos'], both: ['memory', 'nats', 'chaos'] };
  const backends = runs[choice];
  if (backends === undefined) throw new Error(`--backend expects memory, nats (with its chaos run), chaos or both, got '${choice}'`);
  const requesters = positiveInt('requesters', values.requesters, 100);
  const tasks = positiveInt('tasks', values.tasks, 10_000);
  const keepAliveMs = positiveInt('keep-alive-ms', values['keep-alive-ms'], 5_000);
  const window = positiveInt('window', values.window, 2);
  const rampMs = values['ramp-ms'] === '0' ? 0 : positiveInt('ramp-ms', values['ramp-ms'], 2_000);
  const timeoutS = positiveInt('timeout-s', values['timeout-s'], 600);

  // The overall timeout aborts every request and wait; the backends are still disposed of.
  const overall = new AbortController();
  // Every request and wait in flight listens to it (well over a thousand at once, each removed
  // when done): no leak, so no warning.
  setMaxListeners(0, overall.signal);
  const timer = setTimeout(() => overall.abort(new Error(`the soak did not finish within ${timeoutS} s (--timeout-s)`)), timeoutS * 1_000);
  // Should cleanup itself hang after the timeout, leave anyway (an exit hook kills nats-server).
  overall.signal.addEventListener('abort', () => setTimeout(() => (console.error('FAIL: cleanup hung after the timeout'), process.exit(1)), 30_000).unref());
  const results: SoakResult[] = [];
  const started = Date.now();
  try {
    for (const name of backends) {
      results.push(await soakBackend(name, { requesters, tasks, keepAliveMs, window, rampMs, signal: overall.signal, progress: (line) => console.error(line) }));
    }
  } catch (error) {
    // Aborted requests fail with a bare AbortError: say why they were aborted instead.
    throw overall.signal.aborted ? (overall.signal.reason as Error) : error;
  } finally {
    clearTimeout(timer);
  }
  const failed = results.filter((r) => r.ok !== r.tasks || !r.memoryOk);
  if (values.json === true) {
    console.log(JSON.stringify({ node: process.version, cpus: cpus().length, totalMs: Date.now() - started, passed: failed.length === 0, results }, null, 2));
  } else {
    console.log(`## Soak (Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${new Date().toISOString().slice(0, 10)})\n`);
    for (const r of results) console.log(render(r));
    console.log(
      `_Requesters join over ${rampMs} ms; each keeps ${window} tasks in flight (tasks cycle through sleep {ms 5–64}, fail {unique message}, prompt greeting {unique name}), ` +
        `asks a retention of ${keepAliveMs} ms, polls tasks/get every 50–200 ms, fetches tasks/result and compares it with the expected result (and, in SEP-1686, the direct reply too). ` +
        'Latency is from the accepted create to the poll that saw the task terminal. Heap is this process (server and requesters), after a full gc, ' +
        'except peak (sampled every 100 ms); it passes when final − baseline ≤ max(10 MB, 10 % of baseline) and nothing is retained. ' +
        `Total ${((Date.now() - started) / 1000).toFixed(1)} s._\n`,
    );
  }
  for (const r of failed) {
    console.error(`FAIL ${r.backend}: ${r.tasks - r.ok} lost or wrong result(s)${r.memoryOk ? '' : `; memory did not return (final ${mb(r.heap.final)} MB vs baseline ${mb(r.heap.baseline)} MB, ${r.residueFinal.retained} retained)`}`);
    for (const line of r.failures.slice(0, 10)) console.error(`  ${line}`);
    if (r.failures.length > 10) console.error(`  … and ${r.failures.length - 10} more`);
  }
  for (const r of results) for (const line of r.nodeLog) console.error(`${r.backend} node log: ${line}`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof Error && error.stack && !error.message.includes('did not finish')) console.error(error.stack);
    process.exit(1);
  },
);
