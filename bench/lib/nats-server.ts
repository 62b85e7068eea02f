/**
 * A throwaway `nats-server` for benchmarks: JetStream on file storage in a temporary store dir, a
 * free loopback port, a monitoring port (to count what the server received), and a stop by pid
 * that also removes the store dir. Kept apart from the test harness on purpose: benchmarks do not
 * import from test/.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** A running benchmark `nats-server`. */
export interface BenchNatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly pid: number;
  /** Message counters of the whole server so far (from its monitoring endpoint `/varz`). */
  counters(): Promise<{ readonly inMsgs: number; readonly outMsgs: number }>;
  /**
   * Stops the server (SIGTERM by pid, a clean shutdown that flushes its store) and starts it again
   * on the same port and store dir, as an operator's restart does.
   *
   * @returns how long no server was listening, in ms
   * @throws Error with the server's log when it does not listen again within 10 s
   */
  restart(): Promise<number>;
  /** SIGTERM by pid, SIGKILL after 2 s, then removes the store dir. Idempotent, never throws. */
  stop(): Promise<void>;
}

/** `NATS_SERVER`, else `nats-server` on PATH, else Debian's `/usr/sbin/nats-server`. */
function binary(): string {
  const fromEnv = process.env['NATS_SERVER'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (dir !== '' && existsSync(path.join(dir, 'nats-server'))) return path.join(dir, 'nats-server');
  }
  return '/usr/sbin/nats-server';
}

/** A port that was free a moment ago (bind to 0, read it, close). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

function gone(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends `signal` by pid; false when the process is gone already. */
export function signalPid(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `nats-server -js` on free loopback ports with a fresh store dir and waits until it
 * accepts connections (`args` are added to its command line, e.g. cluster routes). The caller must `stop()` it (in a `finally`); a process exit hook SIGKILLs
 * it as a last resort.
 *
 * @throws Error with the server's log when it exits or does not listen within 10 s
 * @example
 * ```ts
 * const server = await startBenchNatsServer();
 * try { await measure(server.url); } finally { await server.stop(); }
 * ```
 */
export async function startBenchNatsServer(args: readonly string[] = []): Promise<BenchNatsServer> {
  const storeDir = await mkdtemp(path.join(tmpdir(), 'bench-nats-'));
  const [port, monitor] = [await freePort(), await freePort()];
  let log = '';
  let child: ChildProcess;
  let spawnError: Error | undefined;
  const killOnExit = (): void => void signalPid(child.pid, 'SIGKILL');
  process.on('exit', killOnExit);
  /** Sends SIGTERM, then SIGKILL after 2 s; resolves once the process is gone. */
  const halt = async (): Promise<void> => {
    if (gone(child)) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalPid(child.pid, 'SIGTERM');
    if ((await Promise.race([exited.then(() => true), delay(2_000, false)])) === false) {
      signalPid(child.pid, 'SIGKILL');
      await exited;
    }
  };
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      process.off('exit', killOnExit);
      await halt();
      await rm(storeDir, { recursive: true, force: true }).catch(() => undefined);
    })());
  /** Spawns the server and waits until it accepts connections. */
  const launch = async (): Promise<void> => {
    spawnError = undefined;
    child = spawn(binary(), ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-js', '-sd', storeDir, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (log = (log + chunk).slice(-4_000)));
    child.once('error', (e) => (spawnError = e));
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(port))) {
      if (spawnError !== undefined || gone(child) || Date.now() > deadline) {
        await stop();
        throw new Error(`nats-server did not listen on 127.0.0.1:${port}: ${(spawnError as Error | undefined)?.message ?? `exit ${String(child.exitCode ?? child.signalCode)}`}\n${log}`);
      }
      await delay(25);
    }
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    get pid() {
      return child.pid ?? -1;
    },
    async counters() {
      const varz = (await (await fetch(`http://127.0.0.1:${monitor}/varz`)).json()) as { in_msgs: number; out_msgs: number };
      return { inMsgs: varz.in_msgs, outMsgs: varz.out_msgs };
    },
    async restart() {
      const down = Date.now();
      await halt();
      await launch();
      return Date.now() - down;
    },
    stop,
  };
}
