/**
 * `serve --metrics-port M [--metrics-host H]`: the node's metrics at `http://H:M/metrics` in the
 * Prometheus text format, through the OpenTelemetry Prometheus exporter (an optional peer
 * dependency, loaded only for this flag). The exporter's reader is served from a server of ours,
 * guarded as every front of a node is (deadlines, a bad request never ends the process), that
 * answers `GET`/`HEAD /metrics` only.
 *
 * Start it before the runtime: the runtime takes its meter when it is created, and a meter taken
 * before a provider is registered measures nothing (the metrics API has no proxy provider).
 *
 * @module
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { metrics } from '@opentelemetry/api';
import type * as ExporterModule from '@opentelemetry/exporter-prometheus';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type * as SdkMetricsModule from '@opentelemetry/sdk-metrics';
import type { IMetricReader, MeterProvider } from '@opentelemetry/sdk-metrics';
import { closeServer, guardedServer } from '../http/front.js';
import { cliLogger, log } from '../log.js';
import { loadForCommand, type SdkPeer } from './sdk-peers.js';

/** The Prometheus exporter, which `--metrics-port` is built on. */
export const PROMETHEUS_EXPORTER: SdkPeer = { peer: '@opentelemetry/exporter-prometheus', range: '>=0.200.0 <1' };

/** The `parseArgs` option specs of the metrics flags. */
export const METRICS_FLAG_SPECS = {
  'metrics-port': { type: 'string' },
  'metrics-host': { type: 'string' },
} as const;

/** Help lines of the metrics flags, for `SERVE_HELP`. */
export const METRICS_FLAGS_HELP = `Metrics (needs @opentelemetry/exporter-prometheus; any role, stdio too):
  --metrics-port PORT        serve this node's metrics at http://HOST:PORT/metrics in the Prometheus text
                             format (PORT 0 picks a free port; the log line says which)
  --metrics-host HOST        address to bind with --metrics-port (default 127.0.0.1)`;

/** Options of {@link startMetricsPort}. */
export interface MetricsPortOptions {
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Whether `serve --otel` registers the global meter provider (with this reader among its
   * readers): then this registers none. Else this registers one of its own, with this reader.
   */
  readonly withOtel: boolean;
}

/** A running metrics port. */
export interface MetricsPort {
  /** The exporter's reader: give it to the SDK (`startOtel({ metricReaders: [reader] })`) with `withOtel`. */
  readonly reader: IMetricReader;
  /** Where the metrics are, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  /** Stops serving (and, without `withOtel`, the meter provider it registered). Idempotent. */
  close(): Promise<void>;
}

/** What the flag loads: the exporter, and the metrics SDK it was built against (one copy of its classes). */
interface Loaded {
  readonly PrometheusExporter: typeof PrometheusExporter;
  readonly MeterProvider: typeof MeterProvider;
}

function loadExporter(): Promise<Loaded> {
  return loadForCommand(PROMETHEUS_EXPORTER, 'mcp-tasks serve --metrics-port', async () => {
    const exporter: typeof ExporterModule = await import('@opentelemetry/exporter-prometheus');
    // The exporter's own dependency, not whichever copy this package would find: its reader must
    // be one the provider knows.
    const sdk = createRequire(fileURLToPath(import.meta.resolve(PROMETHEUS_EXPORTER.peer)))('@opentelemetry/sdk-metrics') as typeof SdkMetricsModule;
    return { PrometheusExporter: exporter.PrometheusExporter, MeterProvider: sdk.MeterProvider };
  });
}

/** `GET`/`HEAD /metrics` (any query) are the metrics; any other target 404, any other method 405. */
function routeTo(exporter: PrometheusExporter): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.resume();
    const target = req.url ?? '';
    const text = { 'content-type': 'text/plain; charset=utf-8' };
    if (!target.startsWith('/')) return void res.writeHead(400, text).end('Bad Request: the request target must be a path, e.g. /metrics\n');
    if (target.split('?', 1)[0] !== '/metrics') return void res.writeHead(404, text).end('Not Found: the metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { ...text, allow: 'GET, HEAD' }).end('Method Not Allowed: GET /metrics\n');
    exporter.getMetricsRequestHandler(req, res);
  };
}

/**
 * Serves the node's metrics at `/metrics` in the Prometheus format.
 *
 * @param options - where to listen; whether `--otel` registers the meter provider
 * @throws MissingPeerDependencyError when `@opentelemetry/exporter-prometheus` is not installed
 * @throws Error naming `--metrics-port` when the port cannot be bound
 * @example
 * ```ts
 * const port = await startMetricsPort({ port: 9464, withOtel: false });
 * // … create the runtime now, then on shutdown:
 * await port.close();
 * ```
 */
export async function startMetricsPort(options: MetricsPortOptions): Promise<MetricsPort> {
  const { port, withOtel } = options;
  const host = options.host ?? '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--metrics-port expects a port number, got '${port}'`);
  const loaded = await loadExporter();
  // Served by the server below, guarded, not by the exporter's own.
  const exporter = new loaded.PrometheusExporter({ preventServerStart: true });
  const server = guardedServer('metrics', routeTo(exporter), {}, cliLogger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`--metrics-port: cannot listen on ${host}:${port} (${error.code ?? error.message})`, { cause: error })));
    server.listen(port, host, () => resolve());
  });
  let provider: MeterProvider | null = null;
  if (!withOtel) {
    provider = new loaded.MeterProvider({ readers: [exporter] });
    metrics.setGlobalMeterProvider(provider);
  }
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const name = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    reader: exporter,
    url: `http://${name}:${bound}/metrics`,
    close: () =>
      (closing ??= (async () => {
        await closeServer(server, 1_000);
        await provider?.shutdown();
      })()),
  };
}

type MetricsFlagValues = {
  readonly 'metrics-port'?: string | undefined;
  readonly 'metrics-host'?: string | undefined;
};

/**
 * Starts the metrics port when `--metrics-port` is given, and logs where it is.
 *
 * @param values - the parsed flags
 * @param withOtel - `--otel` registers the meter provider (see {@link MetricsPortOptions})
 * @returns the port, or `undefined` without `--metrics-port`
 * @throws Error for a bad port, `--metrics-host` alone, a port in use, or the exporter not installed
 * @example
 * ```ts
 * const metricsPort = await startMetricsFlag(values, false); // before the runtime is created
 * ```
 */
export async function startMetricsFlag(values: MetricsFlagValues, withOtel: boolean): Promise<MetricsPort | undefined> {
  const raw = values['metrics-port'];
  if (raw === undefined) {
    if (values['metrics-host'] !== undefined) throw new Error('--metrics-host needs --metrics-port PORT');
    return undefined;
  }
  if (!/^\d{1,5}$/.test(raw)) throw new Error(`--metrics-port expects a port number, got '${raw}'`);
  const started = await startMetricsPort({ port: Number(raw), withOtel, ...(values['metrics-host'] !== undefined && { host: values['metrics-host'] }) });
  log('info', `metrics at ${started.url}`, { url: started.url });
  return started;
}
