/**
 * The server side of the soak, in this process so that its heap can be measured: the same
 * assembly as `mcp-tasks serve --http 0` (a runtime with the default per-requester limits on,
 * `createTaskServer` with the demo definitions, `startHttpEndpoint` on a free loopback port).
 * On NATS: an own nats-server and two nodes (runtime + shared session store + endpoint each) on
 * one task space, as two `serve --nats` processes behind a balancer would be.
 *
 * @module
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { startHttpEndpoint, type HttpEndpoint, type HttpHandlerOptionsV1 } from '../../adapters/http/index.js';
import type { SessionRecord } from '../../adapters/http/session-restore.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { nameFromPrefix } from '../../runtime/backends/nats/keys.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { openSessionStore } from '../../runtime/backends/nats/session-store.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { startBenchNatsServer, type BenchNatsServer } from './nats-server.js';
import type { ChaosLog } from './soak-chaos.js';
import { lineLogger } from './line-logger.js';

/** The backends the soak runs on (`chaos`: NATS while a worker is killed and the server restarted). */
export type SoakBackendName = 'memory' | 'nats' | 'chaos';

/** What is left of the tasks on the server side. */
export interface SoakResidue {
  /** Tasks with a live actor / a running handler, over all nodes. */
  readonly live: number;
  /** Tasks still retained: memory, the runtime's count; NATS, keys in the record bucket (see {@link natsResidue}). */
  readonly retained: number;
  /** NATS only: results still stored, and what each stream of the task space still holds. */
  readonly stored?: { readonly results: number; readonly streams: Readonly<Record<string, number>> };
}

/** A running soak server. */
export interface SoakBackend {
  readonly name: SoakBackendName;
  /** The endpoints' `/mcp` URLs (one per node); requesters are spread over them. */
  readonly urls: readonly string[];
  /** What is left of the tasks (cheap enough to poll every second). */
  residue(): Promise<SoakResidue>;
  /** Warnings and errors the NATS nodes logged (lost workers, failed writes), first few. */
  readonly nodeLog: string[];
  /** Closes endpoints and runtimes and stops the nats-server. Never throws. */
  dispose(): Promise<void>;
  /** Chaos run only: told how far the load is (tasks done of total), what it did to the cluster. */
  onLoad?(done: number, total: number): void;
  readonly chaos?: ChaosLog;
}

const INFO = { name: 'mcp-tasks', version: '0.1.0' };
/** The NATS task space's prefix: the server is the soak's own, so any name does. */
const PREFIX = 'soak';
const NODES = 2;

/**
 * One served endpoint on `runtime`, as `serve --http 0` assembles it.
 *
 * @example
 * ```ts
 * const endpoint = await endpointFor(runtime);
 * ```
 */
export function endpointFor(runtime: TaskRuntime, sessions?: HttpHandlerOptionsV1['sessions']): Promise<HttpEndpoint> {
  return startHttpEndpoint({ port: 0, createServer: () => createTaskServer(INFO, { runtime, ...demoDefinitions }), ...(sessions !== undefined && { sessions }) });
}

async function startMemory(): Promise<SoakBackend> {
  // `limits: {}` is what serve does: the default per-requester limits, on.
  const runtime = createTaskRuntime({ limits: {} });
  const endpoint = await endpointFor(runtime);
  return {
    name: 'memory',
    urls: [endpoint.url],
    nodeLog: [],
    residue: async () => runtime.stats(),
    async dispose() {
      await endpoint.close().catch(() => undefined);
      await runtime.dispose().catch(() => undefined);
    },
  };
}

/**
 * What a NATS task space still holds: tasks retained (keys in the record bucket) and results (keys
 * in the results bucket), counted as the subjects of the buckets' streams (a removal purges its
 * key's subject, marker included; KV `keys()` was seen to list nothing while thousands of
 * subjects were being purged around it), and every stream's message count.
 *
 * @example
 * ```ts
 * const residue = await natsResidue(nc, 'soak', 0);
 * ```
 */
export async function natsResidue(nc: NatsConnection, prefix: string, live: number): Promise<SoakResidue> {
  const base = nameFromPrefix(prefix);
  const streams: Record<string, number> = {};
  const subjects: Record<string, number> = {};
  for await (const info of (await jetstreamManager(nc)).streams.list()) {
    streams[info.config.name] = info.state.messages;
    subjects[info.config.name] = info.state.num_subjects ?? 0;
  }
  return { live, retained: subjects[`KV_${base}_snapshots`] ?? 0, stored: { results: subjects[`KV_${base}_results`] ?? 0, streams } };
}

async function startNats(): Promise<SoakBackend> {
  const server: BenchNatsServer = await startBenchNatsServer();
  const nodes: NatsTaskRuntime[] = [];
  const endpoints: HttpEndpoint[] = [];
  const nodeLog: string[] = [];
  const dispose = async (): Promise<void> => {
    await Promise.allSettled(endpoints.map((e) => e.close()));
    await Promise.allSettled(nodes.map((n) => n.dispose()));
    await server.stop();
  };
  try {
    for (let i = 0; i < NODES; i++) {
      const runtime = await createNatsTaskRuntime({
        limits: {},
        nats: { servers: server.url },
        prefix: PREFIX,
        role: 'both',
        nodeId: `soak-${i}`,
        logger: lineLogger((level, message, fields) => {
          if (level !== 'info' && nodeLog.length < 20) nodeLog.push(`${level} ${message} ${JSON.stringify(fields)}`);
        }),
      });
      nodes.push(runtime);
      const sessions = await openSessionStore<SessionRecord>(runtime.connection, { prefix: PREFIX, replicas: 1, storage: 'file' });
      endpoints.push(await endpointFor(runtime, sessions));
    }
    const nc = nodes[0]!.connection;
    return {
      name: 'nats',
      urls: endpoints.map((e) => e.url),
      nodeLog,
      residue: () => natsResidue(nc, PREFIX, nodes.reduce((sum, n) => sum + n.stats().live, 0)),
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * Starts the soak's server side on a backend.
 *
 * @throws Error when nats-server cannot be started or a node cannot join
 * @example
 * ```ts
 * const backend = await startSoakBackend('nats');
 * try { await soak(backend.urls); } finally { await backend.dispose(); }
 * ```
 */
export function startSoakBackend(name: 'memory' | 'nats'): Promise<SoakBackend> {
  return name === 'memory' ? startMemory() : startNats();
}
