/**
 * One soak run on one backend: warm up, take the baseline heap, let the requesters create and
 * check every task, take the loaded heap, close every session, wait until retention has removed
 * every task, take the final heap. The heap is this process's: server and requesters share it,
 * and both are gone or idle at the baseline and at the end, so the difference is what the
 * server kept.
 *
 * @module
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { percentile } from './report.js';
import { runRequester, type SoakTally } from './soak-requester.js';
import { startChaosBackend, type ChaosLog } from './soak-chaos.js';
import { startSoakBackend, type SoakBackendName, type SoakResidue } from './soak-server.js';
import { SoakSession } from './soak-wire.js';

/** Sizes of a run. */
export interface SoakOptions {
  readonly requesters: number;
  readonly tasks: number;
  /** Retention asked for each task; the server's own default is 5 minutes. */
  readonly keepAliveMs: number;
  /** Tasks each requester keeps in flight. */
  readonly window: number;
  /** Requesters start one after another over this long (0: all at once). */
  readonly rampMs: number;
  /** Aborts everything (the overall timeout). */
  readonly signal: AbortSignal;
  /** Progress lines (stderr). */
  readonly progress: (line: string) => void;
}

/** The figures of one backend's run. */
export interface SoakResult {
  readonly backend: SoakBackendName;
  readonly nodes: number;
  readonly tasks: number;
  readonly requesters: number;
  readonly ok: number;
  /** Opening every requester's session (initialize), all at once, in ms; not in `wallMs`. */
  readonly sessionsMs: number;
  readonly failures: readonly string[];
  readonly wallMs: number;
  readonly tasksPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly refusals: Readonly<Record<string, number>>;
  /** Requests sent again because the server had just closed their kept-alive socket. */
  readonly staleSockets: number;
  /** Request round trips by method: p50 and p99 in ms. */
  readonly roundTripsMs: Readonly<Record<string, { readonly p50: number; readonly p99: number }>>;
  /** Event loop delay (server and requesters share it) while loaded: p99 and max in ms. */
  readonly loopDelayMs: { readonly p99: number; readonly max: number };
  /** heapUsed in bytes: after warm-up (gc), highest sampled while loaded, after the run (gc), after expiry (gc). */
  readonly heap: { readonly baseline: number; readonly peak: number; readonly loaded: number; readonly final: number };
  /** What the server still held right after the run, and after expiry. */
  readonly residueLoaded: SoakResidue;
  readonly residueFinal: SoakResidue;
  /** From closing the sessions until nothing was retained, in ms. */
  readonly drainMs: number;
  readonly memoryOk: boolean;
  readonly nodeLog: readonly string[];
  /** Chaos run: internal errors answered while NATS was away, retried, by method. */
  readonly outageErrors: Readonly<Record<string, number>>;
  /** Chaos run: SEP-1686 direct replies that ended in an error (the task itself was then read by polling). */
  readonly directLost: number;
  /** Chaos run: what was done to the cluster, and when. */
  readonly chaos?: ChaosLog;
}

/**
 * How far the final heap may be above the baseline and still pass: max(10 MB, 10 %). The
 * margin covers what legitimately stays (the memory backend remembers up to 10,000 expired ids so
 * that a late get says "expired", V8's own caches); a leak of 10k tasks' state is well above it.
 *
 * @example
 * ```ts
 * heapAllowance(20 * 2 ** 20); // 10 MB
 * ```
 */
export function heapAllowance(baseline: number): number {
  return Math.max(10 * 2 ** 20, baseline * 0.1);
}

/** Full garbage collection, twice with a pause between (finalizers and weak refs settle). */
async function collectedHeap(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc (npm run soak does)');
  gc();
  await delay(100);
  gc();
  return process.memoryUsage().heapUsed;
}

/** Nothing live or retained, and (NATS) every retention timer has run: each acks its removal once done. */
const drained = (r: SoakResidue): boolean =>
  r.live === 0 && r.retained === 0 && (r.stored?.results ?? 0) === 0 && Object.entries(r.stored?.streams ?? {}).every(([name, n]) => !name.endsWith('_timers_work') || n === 0);

/** Polls the server until nothing of the tasks is left, or `timeoutMs` has passed. */
async function waitDrained(residue: () => Promise<SoakResidue>, timeoutMs: number, signal: AbortSignal): Promise<SoakResidue> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await residue();
    if (drained(r) || Date.now() > deadline) return r;
    await delay(500, undefined, { signal });
  }
}

/** The chaos run's least retention (see `soakBackend`). */
const CHAOS_MIN_RETENTION_MS = 30_000;

const newTally = (): SoakTally => ({ ok: 0, latenciesMs: [], refusals: {}, failures: [], roundTripsMs: {}, outageErrors: {}, directLost: 0 });

/**
 * Opens `count` sessions, all at once, spread over `urls`: pairs go to the next node, so that
 * with alternating dialects every node serves both.
 */
async function openSessions(urls: readonly string[], count: number, signal: AbortSignal): Promise<SoakSession[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, (_, id) => SoakSession.open(urls[Math.floor(id / 2) % urls.length]!, signal)));
  const opened = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const refused = settled.find((s) => s.status === 'rejected');
  if (refused === undefined) return opened;
  await Promise.all(opened.map((s) => s.close()));
  throw new Error(`${count - opened.length} of ${count} sessions could not be opened: ${String(refused.reason)}`);
}

/** Runs one requester per session, dialects alternating, `tasks` shared out among them. */
async function runAll(sessions: readonly SoakSession[], tasks: number, o: SoakOptions & { readonly keepAliveMs: number; readonly chaos: boolean }, tally: SoakTally): Promise<void> {
  const nonce = randomBytes(4).toString('hex');
  const count = sessions.length;
  await Promise.all(
    sessions.map((session, id) => {
      const share = Math.floor(tasks / count) + (id < tasks % count ? 1 : 0);
      const startDelayMs = (o.rampMs * id) / count;
      return runRequester({ id, session, dialect: id % 2 === 0 ? '2025-11-25' : 'sep-1686', tasks: share, window: o.window, startDelayMs, keepAliveMs: o.keepAliveMs, nonce, signal: o.signal, tally, outage: o.chaos });
    }),
  );
}

/**
 * Runs the soak on one backend and returns its figures; the backend is disposed of (and its
 * nats-server stopped) whatever happens.
 *
 * @throws the abort reason when the overall timeout fires, or an error when the server cannot start
 * @example
 * ```ts
 * const result = await soakBackend('memory', { requesters: 100, tasks: 10_000, keepAliveMs: 5_000, window: 2, rampMs: 2_000, signal, progress: console.error });
 * ```
 */
export async function soakBackend(name: SoakBackendName, o: SoakOptions): Promise<SoakResult> {
  const backend = name === 'chaos' ? await startChaosBackend() : await startSoakBackend(name);
  const chaos = name === 'chaos';
  // A task that ends while its requester is kept away by the outage (requests time out after 5 s
  // while the server restarts) must still be there when it gets back.
  const retention = chaos ? Math.max(o.keepAliveMs, CHAOS_MIN_RETENTION_MS) : o.keepAliveMs;
  try {
    const say = (line: string): void => o.progress(`${name}: ${line}`);
    // Warm-up: every code path once (both dialects, every kind), so that lazily loaded modules
    // and compiled code are in the baseline, not counted as growth. Short retention, then drained.
    const warm = newTally();
    const warmSessions = await openSessions(backend.urls, 2 * backend.urls.length, o.signal);
    await runAll(warmSessions, 12 * backend.urls.length, { ...o, keepAliveMs: 2_000, rampMs: 0, chaos }, warm);
    if (warm.failures.length > 0) throw new Error(`warm-up failed:\n${warm.failures.slice(0, 5).join('\n')}`);
    await Promise.all(warmSessions.map((s) => s.close()));
    await waitDrained(() => backend.residue(), 60_000, o.signal);
    const baseline = await collectedHeap();
    say(`baseline heap ${mb(baseline)} MB; ${o.requesters} requesters, ${o.tasks} tasks`);

    const tally = newTally();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 100);
    const ticker = setInterval(() => say(`${tally.ok + tally.failures.length}/${o.tasks} tasks done, heap ${mb(process.memoryUsage().heapUsed)} MB`), 5_000);
    const onLoad = backend.onLoad?.bind(backend);
    const chaosTicker = onLoad && setInterval(() => onLoad(tally.ok + tally.failures.length, o.tasks), 50);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    let sessions: SoakSession[];
    let sessionsMs: number;
    let started: number;
    try {
      // Sessions first, then the clock starts: the wall time and latencies are the tasks' alone.
      const opening = performance.now();
      sessions = await openSessions(backend.urls, o.requesters, o.signal);
      started = performance.now();
      sessionsMs = started - opening;
      onLoad?.(0, o.tasks);
      await runAll(sessions, o.tasks, { ...o, keepAliveMs: retention, chaos }, tally);
    } finally {
      clearInterval(sampler);
      clearInterval(ticker);
      clearInterval(chaosTicker);
      loop.disable();
    }
    const wallMs = performance.now() - started;
    const residueLoaded = await backend.residue();
    const loaded = await collectedHeap();
    say(`all tasks done in ${(wallMs / 1000).toFixed(1)} s; ${residueLoaded.retained} retained; closing sessions, waiting for retention to expire`);

    const closedAt = performance.now();
    await Promise.all(sessions.map((s) => s.close()));
    const residueFinal = await waitDrained(() => backend.residue(), retention + 180_000, o.signal);
    const drainMs = performance.now() - closedAt;
    const final = await collectedHeap();
    say(`final heap ${mb(final)} MB after ${(drainMs / 1000).toFixed(1)} s`);
    const lat = tally.latenciesMs;
    return {
      backend: name,
      nodes: backend.urls.length,
      tasks: o.tasks,
      requesters: o.requesters,
      ok: tally.ok,
      sessionsMs,
      failures: tally.failures,
      wallMs,
      tasksPerSecond: (tally.ok * 1_000) / wallMs,
      latencyMs: { p50: percentile(lat, 50), p99: percentile(lat, 99), max: lat.length === 0 ? Number.NaN : Math.max(...lat) },
      refusals: tally.refusals,
      staleSockets: sessions.reduce((n, s) => n + s.staleSockets, 0),
      roundTripsMs: Object.fromEntries(Object.entries(tally.roundTripsMs).map(([m, v]) => [m, { p50: percentile(v, 50), p99: percentile(v, 99) }])),
      loopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      heap: { baseline, peak, loaded, final },
      residueLoaded,
      residueFinal,
      drainMs,
      memoryOk: drained(residueFinal) && final - baseline <= heapAllowance(baseline),
      nodeLog: backend.nodeLog,
      outageErrors: tally.outageErrors,
      directLost: tally.directLost,
      ...(backend.chaos && { chaos: backend.chaos }),
    };
  } finally {
    await backend.dispose();
  }
}

/**
 * Bytes as MB (MiB) with one decimal.
 *
 * @example
 * ```ts
 * mb(3 * 2 ** 20); // '3.0'
 * ```
 */
export function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
