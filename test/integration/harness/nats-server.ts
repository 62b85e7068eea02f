/**
 * A throwaway `nats-server` for integration tests: a free loopback port, a temporary JetStream
 * store dir, readiness by TCP connect, stop by pid (SIGTERM, then SIGKILL) and cleanup of the store
 * dir. Every spawned server is tracked, so it is killed at the latest when the test worker exits.
 *
 * @module
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { killChild, killPid, TailBuffer, trackChild, withStderr } from './process.js';

const STARTUP_TIMEOUT_MS = 10_000;

/** Options of {@link startNatsServer}. */
export interface NatsServerOptions {
  /**
   * Enable JetStream (`-js -sd <storeDir>`).
   * @default true
   */
  readonly jetstream?: boolean;
  /**
   * Server binary. `NATS_SERVER` in the environment overrides the default.
   * @default `nats-server` on PATH, else `/usr/sbin/nats-server`
   */
  readonly binary?: string;
  /** Extra command-line arguments, appended last. */
  readonly args?: readonly string[];
}

/** A running (or stopped) test `nats-server`. */
export interface NatsServer extends AsyncDisposable {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Pid of the current process (changes on {@link NatsServer.restart}). */
  readonly pid: number;
  /** Temporary JetStream store dir, kept across restarts, removed by `stop()`/`kill()`. */
  readonly storeDir: string;
  /** The tail of the server's stderr (its log). */
  log(): string;
  /** SIGTERM, SIGKILL after a grace period, then removes the store dir. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL at once (a crash), then removes the store dir. Idempotent. */
  kill(): Promise<void>;
  /** Stops the process (SIGTERM) and starts it again on the same port with the same store dir. */
  restart(): Promise<void>;
  /** Stops the process (SIGTERM, by pid) and keeps its store dir: an outage, until {@link NatsServer.resume}. */
  halt(): Promise<void>;
  /** Starts a {@link NatsServer.halt}ed server again, on the same port with the same store dir. */
  resume(): Promise<void>;
}

/** Finds the server binary: `NATS_SERVER`, then PATH, then Debian's `/usr/sbin`. */
function resolveBinary(explicit: string | undefined): string {
  const fromEnv = explicit ?? process.env['NATS_SERVER'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'nats-server');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return '/usr/sbin/nats-server';
}

/** A port that was free a moment ago (bind to 0, read, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves true once a TCP connection to the port succeeds. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** SIGKILL by pid (a crash, no shutdown work) and wait for the exit. */
async function sigkill(c: ChildProcessWithoutNullStreams): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  if (killPid(c.pid, 'SIGKILL')) await exited;
}

/**
 * Starts a `nats-server` on a free loopback port with a fresh temporary store dir and waits until
 * it accepts connections.
 *
 * @param options - see {@link NatsServerOptions}
 * @throws Error with the server's log when it exits or does not listen within 10 s
 * @example
 * ```ts
 * await using server = await startNatsServer({ jetstream: true });
 * const nc = await connectNats({ servers: server.url });
 * ```
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const binary = resolveBinary(options.binary);
  const jetstream = options.jetstream ?? true;
  const storeDir = await mkdtemp(path.join(tmpdir(), 'nats-js-'));
  const port = await freePort();
  const args = ['-a', '127.0.0.1', '-p', String(port), ...(jetstream ? ['-js', '-sd', storeDir] : []), ...(options.args ?? [])];
  const tail = new TailBuffer();
  let child: ChildProcessWithoutNullStreams | undefined;
  let removed = false;

  const launch = async (): Promise<void> => {
    const c = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    trackChild(c);
    c.stdout.setEncoding('utf8');
    c.stderr.setEncoding('utf8');
    c.stdout.on('data', (chunk: string) => tail.append(chunk));
    c.stderr.on('data', (chunk: string) => tail.append(chunk));
    let spawnError: Error | undefined;
    c.once('error', (e) => (spawnError = e));
    child = c;
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (spawnError !== undefined) throw withStderr(`cannot start ${binary}: ${spawnError.message}`, tail.toString());
      if (c.exitCode !== null || c.signalCode !== null) {
        throw withStderr(`${binary} exited (${c.exitCode ?? c.signalCode}) before listening on ${port}`, tail.toString());
      }
      if (await canConnect(port)) return;
      await delay(25);
    }
    await killChild(c, 500);
    throw withStderr(`${binary} did not listen on 127.0.0.1:${port} within ${STARTUP_TIMEOUT_MS} ms`, tail.toString());
  };

  const removeStore = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await rm(storeDir, { recursive: true, force: true });
  };

  try {
    await launch();
  } catch (e) {
    await removeStore();
    throw e;
  }

  const server: NatsServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid(): number {
      return child?.pid ?? -1;
    },
    storeDir,
    log: () => tail.toString(),
    async stop() {
      if (child) await killChild(child, 3_000);
      await removeStore();
    },
    async kill() {
      if (child) await sigkill(child);
      await removeStore();
    },
    async restart() {
      if (removed) throw new Error('nats-server was stopped; its store dir is gone');
      if (child) await killChild(child, 3_000);
      await launch();
    },
    async halt() {
      if (child) await killChild(child, 3_000);
    },
    async resume() {
      if (removed) throw new Error('nats-server was stopped; its store dir is gone');
      await launch();
    },
    [Symbol.asyncDispose]() {
      return server.stop();
    },
  };
  return server;
}

/** Options of {@link startNatsCluster}. */
export interface NatsClusterOptions {
  /**
   * Cluster name (`--cluster_name`).
   * @default 'c1'
   */
  readonly name?: string;
  /** Server binary, as in {@link NatsServerOptions.binary}. */
  readonly binary?: string;
  /**
   * How long to wait for the JetStream cluster to accept a stream with one replica per server.
   * @default 20000
   */
  readonly readyTimeoutMs?: number;
}

/** A running JetStream cluster of test `nats-server`s. */
export interface NatsCluster extends AsyncDisposable {
  /** The servers, `s1` … `sN` (server names are `s<i>`, 1-based). */
  readonly servers: readonly NatsServer[];
  /** Every server's client URL, in order. */
  readonly urls: readonly string[];
  /** Every server's log, labelled, for diagnostics. */
  log(): string;
  /** Stops every server that is still running and removes the store dirs. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Creates (and deletes again) a file-backed stream with `replicas` replicas: succeeds only once the
 * JetStream cluster has a metadata leader and enough peers.
 */
async function probeJetStream(urls: readonly string[], replicas: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const nc = await connect({ servers: [...urls], timeout: 2_000, reconnect: false }).catch((e: unknown) => {
      last = e;
      return undefined;
    });
    if (nc !== undefined) {
      const name = `probe_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
      try {
        const jsm = await jetstreamManager(nc, { timeout: 3_000 });
        await jsm.streams.add({ name, subjects: [`${name}.>`], num_replicas: replicas, storage: StorageType.File });
        await jsm.streams.delete(name);
        return;
      } catch (e) {
        last = e;
      } finally {
        await nc.close().catch(() => undefined);
      }
    }
    await delay(250);
  }
  throw new Error(`JetStream cluster not ready (R${replicas} stream refused) within ${timeoutMs} ms: ${String(last)}`);
}

/**
 * Starts a `size`-server JetStream cluster on loopback: each server `-js -sd <own dir> --cluster
 * nats://127.0.0.1:<route port> --routes <the others> --cluster_name c1 -n s<i>`, then waits until
 * the cluster accepts a stream replicated on every server (so it has a metadata leader and all peers).
 *
 * @param size - number of servers (3 for an R3 cluster)
 * @param options - see {@link NatsClusterOptions}
 * @throws Error with the servers' logs when a server does not start or the cluster does not form
 * @example
 * ```ts
 * const cluster = await startNatsCluster(3);
 * spawnServe(['--nats', cluster.urls.join(','), '--nats-replicas', '3']);
 * ```
 */
export async function startNatsCluster(size = 3, options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const clusterName = options.name ?? 'c1';
  const routePorts: number[] = [];
  while (routePorts.length < size) {
    const port = await freePort();
    if (!routePorts.includes(port)) routePorts.push(port);
  }
  const routeUrl = (port: number): string => `nats://127.0.0.1:${port}`;
  const started = await Promise.allSettled(
    routePorts.map((port, i) =>
      startNatsServer({
        ...(options.binary !== undefined && { binary: options.binary }),
        args: [
          '-n',
          `s${i + 1}`,
          '--cluster_name',
          clusterName,
          '--cluster',
          routeUrl(port),
          '--routes',
          routePorts
            .filter((p) => p !== port)
            .map(routeUrl)
            .join(','),
        ],
      }),
    ),
  );
  const servers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  // a killed member makes the others retry its route every second: keep one such line, not hundreds
  const quiet = (text: string): string => {
    let seen = 0;
    return text
      .split('\n')
      .filter((line) => !line.includes('Error trying to connect to route') || seen++ === 0)
      .join('\n');
  };
  const log = (): string => servers.map((s, i) => `--- nats s${i + 1} (${s.url}) ---\n${quiet(s.log()).slice(-3000)}`).join('\n');
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.stop()));
  };
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) {
    await stop();
    throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }
  const urls = servers.map((s) => s.url);
  try {
    await probeJetStream(urls, size, options.readyTimeoutMs ?? 20_000);
  } catch (e) {
    const text = log();
    await stop();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${text}`);
  }
  const cluster: NatsCluster = {
    servers,
    urls,
    log,
    stop,
    [Symbol.asyncDispose]() {
      return cluster.stop();
    },
  };
  return cluster;
}
