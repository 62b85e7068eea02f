/**
 * How `mcp-tasks serve` stops: `--drain-timeout MS`, `--drain-linger MS` and the signals (SIGTERM,
 * SIGINT), and the probes an orchestrator reads (`--health-port`, `--health-host`; on `--http` its
 * own port serves them too). A first signal drains: at once the node is not ready, refuses new
 * tasks and sessions (retryable), and each HTTP answer closes its connection; running tasks and
 * calls waiting for them get the drain time; then the calls still waiting get -32030, the runs
 * are ended or handed over, pollers are answered for the linger, and the node closes what it
 * serves and exits 0. A second signal exits at once.
 *
 * @module
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { TaskRuntime } from '../../runtime/index.js';
import { DEFAULT_DRAIN_MS, DEFAULT_DRAIN_RETRY_AFTER_MS, drainOf } from '../../runtime/core/drain.js';

/** `--drain-linger` by default, ms. */
export const DEFAULT_DRAIN_LINGER_MS = 10_000;
import { DEFAULT_CLOSE_GRACE_MS } from '../http/front.js';
import { startHealthServer, type HealthProbes } from '../http/health.js';
import { cliLogger, log } from '../log.js';

/** The `parseArgs` option specs of the flags. */
export const DRAIN_FLAG_SPECS = {
  'drain-timeout': { type: 'string' },
  'drain-linger': { type: 'string' },
  'health-port': { type: 'string' },
  'health-host': { type: 'string' },
} as const;

/**
 * Help lines of the flags, for `SERVE_HELP`.
 *
 * @example
 * ```ts
 * const help = `${DRAIN_FLAGS_HELP}\n`;
 * ```
 */
export const DRAIN_FLAGS_HELP = `Shutdown and health probes:
  --drain-timeout MS         on SIGTERM or SIGINT, running tasks get this long to finish (default 30000).
                             At once: /readyz answers 503, a new task gets JSON-RPC error -32030 (retryable,
                             data.retryAfterMs), a new HTTP session 503 with Retry-After, each HTTP answer
                             closes its connection; everything else keeps answering. Then a call still
                             waiting for a task (a tasks/result, a SEP-1686 call) gets -32030 too, what still
                             runs is handed to another worker (with --nats: re-run or resumed as its tool
                             allows, else failed) or ends failed ("shut down before the task finished"), the
                             node answers pollers for --drain-linger, and the process exits 0. A second signal
                             exits at once. On stdio, the end of stdin exits at once.
  --drain-linger MS          after the drain, how long at most reads are still answered, for requesters
                             between two polls (until the last one expected back, by the interval it was
                             suggested, has come), so that each sees how its task ended (default 10000)
  --health-port PORT         serve GET /healthz (alive: 200) and GET /readyz (200, or 503 with the reasons)
                             on this port, e.g. for stdio and worker nodes (with --http its port serves
                             them too); no token needed: they tell only ready or not, and why
  --health-host HOST         address of --health-port (default 127.0.0.1; 0.0.0.0 for a kubelet)`;

/**
 * Past the drain, how long closing what the node serves may take before the process exits
 * anyway: the endpoint's and the inspector's close grace, and a NATS hand-over and disposal.
 */
const SHUTDOWN_MARGIN_MS = DEFAULT_CLOSE_GRACE_MS * 2 + 10_000;

type DrainFlagValues = {
  readonly 'drain-timeout'?: string | undefined;
  readonly 'drain-linger'?: string | undefined;
  readonly 'health-port'?: string | undefined;
  readonly 'health-host'?: string | undefined;
};

/** What the flags say. */
export interface DrainSettings {
  readonly drainMs: number;
  /** `--drain-linger`: see `CloseOptions.lingerMs`. */
  readonly lingerMs: number;
  readonly health: { readonly port: number; readonly host: string | undefined } | null;
}

/**
 * Reads the flags.
 *
 * @throws Error naming the flag for a malformed value
 * @example
 * ```ts
 * const settings = drainSettings(values);
 * ```
 */
export function drainSettings(values: DrainFlagValues): DrainSettings {
  const drainMs = msFlag('drain-timeout', values['drain-timeout'], DEFAULT_DRAIN_MS);
  const lingerMs = msFlag('drain-linger', values['drain-linger'], DEFAULT_DRAIN_LINGER_MS);
  const portFlag = values['health-port'];
  if (portFlag === undefined) {
    if (values['health-host'] !== undefined) throw new Error('--health-host needs --health-port PORT');
    return { drainMs, lingerMs, health: null };
  }
  const port = Number(portFlag);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--health-port expects a port number, got '${portFlag}'`);
  return { drainMs, lingerMs, health: { port, host: values['health-host'] } };
}

/** A flag's non-negative number of ms, or `fallback` when absent; a malformed one is refused naming the flag. */
function msFlag(flag: string, raw: string | undefined, fallback: number): number {
  const ms = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`--${flag} expects a non-negative number of ms, got '${raw}'`);
  return ms;
}

/** What a node closes once drained, in order. */
export interface ShutdownSteps {
  /** Tells its HTTP front that a drain began (see `HttpEndpoint.drain`), when it has one. */
  readonly drain?: () => void;
  /** The calls its HTTP front is still answering: the drain waits for them too, within its time. */
  readonly callsInFlight?: () => number;
  /** Closes what it serves (endpoint, inspector) and disposes the runtime. */
  readonly close: () => Promise<void>;
}

/** How often a drain looks whether the front's calls in flight have ended. */
const CALLS_POLL_MS = 50;

/** Past the drain's deadline, how long the answers it gave to calls held open may take to be written. */
const ANSWER_GRACE_MS = 1_000;

/**
 * One node's shutdown: its drain state (read by the HTTP front and the probes), the probes'
 * server of `--health-port`, and the signals.
 *
 * @example
 * ```ts
 * const shutdown = new NodeShutdown(runtime, drainSettings(values));
 * await shutdown.startHealth();
 * shutdown.onSignals({ drain: () => endpoint.drain(), close: async () => { await endpoint.close(); await runtime.dispose(); } });
 * ```
 */
export class NodeShutdown {
  readonly #runtime: TaskRuntime;
  readonly #settings: DrainSettings;
  #draining = false;
  #health: { close(): Promise<void> } | null = null;

  constructor(runtime: TaskRuntime, settings: DrainSettings) {
    this.#runtime = runtime;
    this.#settings = settings;
  }

  /** What the probes read, and when the HTTP front refuses new sessions (see `HttpHandlerOptions.draining`). */
  readonly probes: HealthProbes & { readonly draining: () => number | null } = {
    readiness: () => this.#runtime.readiness(),
    draining: () => (this.#draining ? DEFAULT_DRAIN_RETRY_AFTER_MS : null),
  };

  /** Starts the probes' own server when `--health-port` asks for one. */
  async startHealth(): Promise<void> {
    const { health } = this.#settings;
    if (health === null) return;
    const server = await startHealthServer({ port: health.port, ...(health.host !== undefined && { host: health.host }), logger: cliLogger }, this.probes);
    this.#health = server;
    log('info', `health probes at ${server.url}/healthz and ${server.url}/readyz`, { url: server.url });
  }

  /** Closes the probes' own server, if any. */
  async closeHealth(): Promise<void> {
    await this.#health?.close();
  }

  /**
   * Drains on the first SIGTERM or SIGINT, then runs `steps.close` and exits 0; exits at once on
   * a second, and with 1 when closing takes longer than the drain time and a margin.
   */
  onSignals(steps: ShutdownSteps): void {
    const stop = (signal: NodeJS.Signals): void => {
      if (this.#draining) return process.exit(signal === 'SIGINT' ? 130 : 143);
      void this.#shutdown(signal, steps);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }

  async #shutdown(signal: NodeJS.Signals, steps: ShutdownSteps): Promise<void> {
    const { drainMs, lingerMs } = this.#settings;
    this.#draining = true;
    const running = this.#runtime.stats().live;
    log('info', `${signal}: shutting down (send it again to exit at once)`, { signal, drainMs, running });
    steps.drain?.();
    const limit = drainMs + lingerMs + SHUTDOWN_MARGIN_MS;
    // Unref'd: a shutdown that ends sooner exits sooner.
    setTimeout(() => {
      log('error', `shutdown took longer than ${limit} ms: exiting now`, { limitMs: limit });
      process.exit(1);
    }, limit).unref();
    const started = Date.now();
    const deadline = setTimeout(() => log('warn', 'drain timeout: tasks still running are handed over or ended', { drainMs, running: this.#runtime.stats().live }), drainMs);
    deadline.unref();
    try {
      // Calls held open on a task are ended by the drain at its deadline (-32030), and pollers
      // answered while they linger.
      await drainOf(this.#runtime)({ drainMs, retryAfterMs: DEFAULT_DRAIN_RETRY_AFTER_MS, lingerMs });
      // Other calls still in flight (a plain tool call) get what is left of the drain time, and
      // the answers the drain's deadline gave (-32030) a moment to be written.
      const callsUntil = Math.max(started + drainMs, Date.now() + ANSWER_GRACE_MS);
      while ((steps.callsInFlight?.() ?? 0) > 0 && Date.now() < callsUntil) await delay(CALLS_POLL_MS);
      clearTimeout(deadline);
      log('info', 'drained', { ms: Date.now() - started });
      await steps.close();
      await this.closeHealth();
    } catch (error) {
      log('error', 'shutdown failed', { error: error instanceof Error ? error.message : String(error) });
    }
    log('info', 'shut down', { ms: Date.now() - started });
    process.exit(0);
  }
}
