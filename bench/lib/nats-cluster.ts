/**
 * A throwaway 3-server JetStream cluster for benchmarks (routes on loopback, a store dir each),
 * ready once it accepts a stream replicated on every server.
 *
 * @module
 */
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, startBenchNatsServer, type BenchNatsServer } from './nats-server.js';

/** A running benchmark cluster. */
export interface BenchNatsCluster {
  /** Every server's client URL. */
  readonly urls: readonly string[];
  readonly servers: readonly BenchNatsServer[];
  /** Stops every server and removes the store dirs. Never throws. */
  stop(): Promise<void>;
}

/** Waits until a stream with one replica per server can be created (a meta leader and every peer). */
async function ready(urls: readonly string[], replicas: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const nc = await connect({ servers: [...urls], timeout: 2_000, reconnect: false }).catch((e: unknown) => void (last = e));
    if (nc) {
      try {
        const jsm = await jetstreamManager(nc, { timeout: 3_000 });
        await jsm.streams.add({ name: 'bench_probe', subjects: ['bench_probe.>'], num_replicas: replicas, storage: StorageType.File });
        await jsm.streams.delete('bench_probe');
        return;
      } catch (e) {
        last = e;
      } finally {
        await nc.close().catch(() => undefined);
      }
    }
    await delay(250);
  }
  throw new Error(`the JetStream cluster did not form within ${timeoutMs} ms: ${String(last)}`);
}

/**
 * Starts `size` nats-servers routed to each other as one JetStream cluster.
 *
 * @throws Error when a server does not start or the cluster does not form within 20 s
 * @example
 * ```ts
 * const cluster = await startBenchNatsCluster(3);
 * try { await measure(cluster.urls); } finally { await cluster.stop(); }
 * ```
 */
export async function startBenchNatsCluster(size = 3): Promise<BenchNatsCluster> {
  const routes: number[] = [];
  while (routes.length < size) {
    const port = await freePort();
    if (!routes.includes(port)) routes.push(port);
  }
  const url = (port: number): string => `nats://127.0.0.1:${port}`;
  const started = await Promise.allSettled(
    routes.map((port, i) =>
      startBenchNatsServer(['-n', `b${i + 1}`, '--cluster_name', 'bench', '--cluster', url(port), '--routes', routes.filter((p) => p !== port).map(url).join(',')]),
    ),
  );
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stop = async (): Promise<void> => void (await Promise.all(servers.map((s) => s.stop())));
  try {
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
    await ready(servers.map((s) => s.url), size, 20_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { urls: servers.map((s) => s.url), servers, stop };
}
