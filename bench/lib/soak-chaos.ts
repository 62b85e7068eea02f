/**
 * The soak's chaos run on NATS: the load of the NATS soak, while a worker process is SIGKILLed and
 * the nats-server is restarted. Two front nodes in this process (so that the heap is still
 * measured) serve the requesters; the work runs on two `mcp-tasks serve --role worker` child
 * processes with a short lease. A third into the load, the worker holding the most leases is
 * SIGKILLed (and a replacement started, as a supervisor would); two thirds in, the nats-server is stopped and started again on
 * the same port and store. Loopback only; every process is stopped at the end.
 *
 * What must hold: no task lost or wrong (each ends as it must, with exactly its result). The
 * requesters retry what a server answers while NATS is away (internal errors), as a client
 * should, and the run counts those answers.
 *
 * @module
 */
import { LeaseManager } from '../../runtime/backends/nats/leases.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { openSessionStore } from '../../runtime/backends/nats/session-store.js';
import type { SessionRecord } from '../../adapters/http/session-restore.js';
import type { HttpEndpoint } from '../../adapters/http/index.js';
import { startCliNode, type CliNode } from './nats-cli.js';
import { startBenchNatsServer } from './nats-server.js';
import { endpointFor, natsResidue, type SoakBackend } from './soak-server.js';
import { lineLogger } from './line-logger.js';

const PREFIX = 'chaos';
/** Short, so that a killed worker's tasks move on quickly. */
const LEASE_TTL_MS = 2_000;

/** The chaos the run went through, for its report. */
export interface ChaosLog {
  /** When the worker was SIGKILLed, ms after the load started (null: the load ended first). */
  killedAtMs: number | null;
  /** When the nats-server was stopped, ms after the load started, and for how long. */
  restartedAtMs: number | null;
  downMs: number | null;
  /** Tasks the cluster found on a lost worker, by what it did with them (`restart`, `lost`). */
  readonly recovered: Record<string, number>;
}

/**
 * Starts the chaos backend: nats-server, two in-process front nodes, two worker processes.
 *
 * @throws Error when a part cannot start (whatever did start is stopped)
 * @example
 * ```ts
 * const backend = await startChaosBackend();
 * ```
 */
export async function startChaosBackend(): Promise<SoakBackend> {
  const server = await startBenchNatsServer();
  const fronts: NatsTaskRuntime[] = [];
  const endpoints: HttpEndpoint[] = [];
  const workers: CliNode[] = [];
  const nodeLog: string[] = [];
  const log: ChaosLog = { killedAtMs: null, restartedAtMs: null, downMs: null, recovered: {} };
  let spawned = 0;
  const frontRecoveries: Record<string, unknown>[] = [];
  /** Every node's failover monitor may take a lost worker's task over: the fronts' and the workers' logs together. */
  const tallyRecoveries = (): void => {
    for (const key of Object.keys(log.recovered)) delete log.recovered[key];
    for (const line of [...frontRecoveries, ...workers.flatMap((w) => w.lines('worker lost'))]) {
      const action = typeof line['action'] === 'string' ? line['action'] : '?';
      log.recovered[action] = (log.recovered[action] ?? 0) + 1;
    }
  };
  // `fail` is safe to re-run (it only answers); `sleep` always is. The prompt is left out of this run.
  const startWorker = (): Promise<CliNode> =>
    startCliNode({ nats: server.url, prefix: PREFIX, role: 'worker', label: `chaos-w${++spawned}`, flags: ['--lease-ttl', String(LEASE_TTL_MS), '--retry-restart', 'fail'], keepLine: (line) => line.includes('"msg":"worker lost"') });
  const dispose = async (): Promise<void> => {
    await Promise.allSettled(endpoints.map((e) => e.close()));
    await Promise.allSettled(fronts.map((n) => n.dispose()));
    await Promise.allSettled(workers.map((w) => w.close()));
    await server.stop();
  };
  try {
    for (let i = 0; i < 2; i++) {
      const runtime = await createNatsTaskRuntime({
        limits: {},
        nats: { servers: server.url },
        prefix: PREFIX,
        role: 'front',
        nodeId: `chaos-front-${i}`,
        leaseTtlMs: LEASE_TTL_MS,
        logger: lineLogger((level, message, fields) => {
          if (message === 'worker lost') frontRecoveries.push(fields);
          else if (level !== 'info' && nodeLog.length < 20) nodeLog.push(`${level} ${message} ${JSON.stringify(fields)}`);
        }),
      });
      fronts.push(runtime);
      const sessions = await openSessionStore<SessionRecord>(runtime.connection, { prefix: PREFIX, replicas: 1, storage: 'file' });
      endpoints.push(await endpointFor(runtime, sessions));
    }
    workers.push(await startWorker(), await startWorker());
    const nc = fronts[0]!.connection;
    const leases = await LeaseManager.open(nc, { bucketPrefix: PREFIX });
    const busiestWorker = async (): Promise<CliNode> => {
      const held = new Map<string, number>();
      for (const l of await leases.list().catch(() => [])) held.set(l.nodeId, (held.get(l.nodeId) ?? 0) + 1);
      const alive = workers.filter((w) => w.alive());
      return alive.reduce((best, w) => ((held.get(w.label) ?? 0) > (held.get(best.label) ?? 0) ? w : best), alive[0]!);
    };
    let started = 0;
    let killing: Promise<unknown> | null = null;
    let restarting: Promise<unknown> | null = null;
    return {
      name: 'chaos',
      urls: endpoints.map((e) => e.url),
      nodeLog,
      chaos: log,
      onLoad(done, total) {
        if (started === 0) started = Date.now();
        if (killing === null && done >= total / 3) {
          log.killedAtMs = Date.now() - started;
          // SIGKILL: no hand-over, its leases simply stop being renewed. The worker holding the
          // most leases right now, so that the kill does catch tasks mid-run.
          killing = busiestWorker().then(async (victim) => {
            await victim.crash();
            workers.push(await startWorker());
          });
        }
        if (restarting === null && done >= (2 * total) / 3) {
          log.restartedAtMs = Date.now() - started;
          restarting = server.restart().then((ms) => (log.downMs = ms));
        }
      },
      async residue() {
        await Promise.all([killing, restarting]);
        tallyRecoveries();
        return natsResidue(nc, PREFIX, fronts.reduce((sum, n) => sum + n.stats().live, 0));
      },
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
