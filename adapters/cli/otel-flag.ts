/**
 * `--otel` of `mcp-tasks serve`: starts the OpenTelemetry Node SDK (`@opentelemetry/sdk-node`, an
 * optional peer dependency) configured from the standard `OTEL_*` environment variables, so the
 * spans and metrics the library reports through `@opentelemetry/api` leave the process: OTLP over
 * HTTP by default (`OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` or `http/json`, to
 * `OTEL_EXPORTER_OTLP_ENDPOINT`), with the W3C trace context propagator and an async-local context.
 *
 * @module
 */
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { loadForCommand, type SdkPeer } from './sdk-peers.js';

/** The Node SDK, an optional peer dependency loaded only with `--otel`. */
export const OTEL_SDK_NODE: SdkPeer = { peer: '@opentelemetry/sdk-node', range: '>=0.200.0 <1' };

/** The service name when `OTEL_SERVICE_NAME` sets none. */
export const DEFAULT_OTEL_SERVICE_NAME = 'mcp-tasks';

/** The `parseArgs` spec of `--otel`. */
export const OTEL_FLAG_SPECS = { otel: { type: 'boolean' } } as const;

/**
 * Help lines of `--otel`, for `SERVE_HELP`.
 *
 * @example
 * ```ts
 * const help = `Operations:\n${OTEL_FLAG_HELP}\n`;
 * ```
 */
export const OTEL_FLAG_HELP = `  --otel                     report traces and metrics with the OpenTelemetry Node SDK (install
                             @opentelemetry/sdk-node), configured by the standard OTEL_* variables:
                             OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318),
                             OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf (default) or http/json,
                             OTEL_SERVICE_NAME (default ${DEFAULT_OTEL_SERVICE_NAME}), OTEL_TRACES_EXPORTER,
                             OTEL_METRICS_EXPORTER, OTEL_RESOURCE_ATTRIBUTES…; flushed at shutdown`;

/**
 * Starts the OpenTelemetry Node SDK from the `OTEL_*` environment. Call it before the runtime is
 * created, so that nothing is measured against the API's no-ops.
 *
 * @returns the SDK's handle: `shutdown()` flushes what is still buffered and stops it (once, at exit)
 * @param options - `serviceName` unless `OTEL_SERVICE_NAME` says otherwise (default `mcp-tasks`);
 *   `serviceVersion` (default the package's);
 *   `metricReaders` replace the OTLP metric export the environment would configure (a Prometheus
 *   reader, say)
 * @throws MissingPeerDependencyError when `@opentelemetry/sdk-node` is not installed
 * @example
 * ```ts
 * const otel = await startOtel({});
 * process.on('SIGTERM', () => void otel.shutdown().finally(() => process.exit(0)));
 * ```
 */
export async function startOtel(options: { serviceName?: string; serviceVersion?: string; metricReaders?: MetricReader[] }): Promise<{ shutdown(): Promise<void> }> {
  const { NodeSDK, resources } = await loadForCommand(OTEL_SDK_NODE, 'mcp-tasks serve --otel', () => import('@opentelemetry/sdk-node'));
  const serviceName = process.env['OTEL_SERVICE_NAME'] ?? options.serviceName ?? DEFAULT_OTEL_SERVICE_NAME;
  const readers = options.metricReaders ?? [];
  // The process's identity without its arguments: the SDK's default process detector exports the
  // command line (`process.command_args`), and with it every token given as a flag, to every
  // exporter and to `target_info` on the unauthenticated /metrics. The environment's
  // OTEL_RESOURCE_ATTRIBUTES still apply (the env detector), over these.
  const resource = resources.defaultResource().merge(resources.resourceFromAttributes(processIdentity(options.serviceVersion ?? DEFAULT_OTEL_SERVICE_VERSION)));
  const sdk = new NodeSDK({
    serviceName,
    resource,
    resourceDetectors: [resources.envDetector, resources.hostDetector],
    // Given readers replace the OTLP metric export the environment would configure.
    ...(readers.length > 0 && { metricReaders: readers }),
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/** `service.version` when none is given: the package's. */
export const DEFAULT_OTEL_SERVICE_VERSION = '0.1.0';

/**
 * The resource attributes that say which process reports: service version, pid and runtime, and
 * nothing read from its command line or environment.
 *
 * @example
 * ```ts
 * processIdentity('0.1.0')['process.pid']; // process.pid
 * ```
 */
export function processIdentity(serviceVersion: string): Record<string, string | number> {
  return {
    'service.version': serviceVersion,
    'process.pid': process.pid,
    'process.runtime.name': 'nodejs',
    'process.runtime.version': process.versions.node,
    'process.runtime.description': 'Node.js',
  };
}
