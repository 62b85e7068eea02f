/**
 * Worker SIGKILL → task resolved elsewhere: CLI nodes (one front, two workers) on one prefix, and an
 * in-process front node on the same prefix that starts a `long_job` through the runtime API and
 * watches it. The worker that logged `task run` for it is SIGKILLed; the figure is the time from
 * the signal to the task being terminal as the in-process front sees it (event-driven, not polled).
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { isTerminalStatus } from '../../machines/index.js';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { startCliNode, type CliNode } from './nats-cli.js';

/** Options of {@link measureWorkerKills}. */
export interface WorkerKillOptions {
  /** The nats-server URL. */
  readonly url: string;
  /** Kills to measure (one task each). */
  readonly repetitions: number;
  /** `--lease-ttl` of every node. */
  readonly leaseTtlMs: number;
}

const OWNER = { session: 'bench-kill', principal: null };

/** The worker that logged `task run` for `taskId` (polled: logs are the only outside sign of it). */
async function runnerOf(workers: () => CliNode[], taskId: string): Promise<CliNode> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await delay(5)) {
    const runner = workers().find((w) => w.ran(taskId));
    if (runner) return runner;
  }
  throw new Error(`no worker logged "task run" for ${taskId} within 10 s`);
}

/**
 * Measures SIGKILL → terminal, once per repetition, starting a replacement worker before each
 * repetition so that two are always running. Every process it started is stopped before it returns
 * or throws.
 *
 * @returns milliseconds from SIGKILL to terminal, one per repetition, and the end statuses seen
 * @example
 * ```ts
 * const { elapsedMs } = await measureWorkerKills({ url: server.url, repetitions: 3, leaseTtlMs: 2_000 });
 * ```
 */
export async function measureWorkerKills(o: WorkerKillOptions): Promise<{ elapsedMs: number[]; statuses: string[] }> {
  const prefix = `bkill${process.pid}`;
  // long_job resumes by default: here it may not, so the task ends as soon as its loss is decided.
  const flags = ['--lease-ttl', String(o.leaseTtlMs), '--retry-never', 'long_job'];
  const nodes: CliNode[] = [];
  let spawned = 0;
  const startWorker = (): Promise<CliNode> => startCliNode({ nats: o.url, prefix, role: 'worker', label: `bench-w${++spawned}`, flags });
  /** Starts whatever is missing; a node that did start is kept (and stopped at the end) even if another failed. */
  const ensure = async (starts: (() => Promise<CliNode>)[]): Promise<void> => {
    const settled = await Promise.allSettled(starts.map((s) => s()));
    for (const s of settled) if (s.status === 'fulfilled') nodes.push(s.value);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  };
  const front = await createNatsTaskRuntime({ nats: { servers: o.url }, prefix, role: 'front', nodeId: 'bench-front-inproc', leaseTtlMs: o.leaseTtlMs });
  // A front node checks the handler name at create; it never runs it (the workers' demo tool does).
  front.registerHandler('tools/call:long_job', () => Promise.reject(new Error('a front node runs nothing')));
  const elapsedMs: number[] = [];
  const statuses: string[] = [];
  try {
    await ensure([() => startCliNode({ nats: o.url, prefix, role: 'front', label: 'bench-front', flags }), startWorker, startWorker]);
    for (let rep = 1; rep <= o.repetitions; rep++) {
      const workers = (): CliNode[] => nodes.filter((n) => n.role === 'worker' && n.alive());
      await ensure(Array.from({ length: Math.max(0, 2 - workers().length) }, () => startWorker));
      const taskId = `kill-${rep}`;
      await front.create({ taskId, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', handler: 'tools/call:long_job', params: { seconds: 60 } });
      const runner = await runnerOf(workers, taskId);
      const killedAt = performance.now();
      await runner.crash();
      const end = await front.waitForTerminal(taskId, OWNER, { timeout: o.leaseTtlMs + 15_000 });
      elapsedMs.push(performance.now() - killedAt);
      statuses.push(isTerminalStatus(end.status) ? end.status : `not terminal: ${end.status}`);
    }
  } finally {
    await Promise.allSettled([...nodes.map((n) => n.close()), front.dispose()]);
  }
  return { elapsedMs, statuses };
}
