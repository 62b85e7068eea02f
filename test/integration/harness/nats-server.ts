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
async function freePort(): Promise<number> {
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
    [Symbol.asyncDispose]() {
      return server.stop();
    },
  };
  return server;
}
