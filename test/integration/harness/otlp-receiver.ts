/**
 * An OTLP/HTTP receiver for the telemetry tests: it keeps every span POSTed to /v1/traces as
 * OTLP/JSON, the metric names POSTed to /v1/metrics, and counts every export by path whatever
 * its encoding (a protobuf body is counted, not read).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON writes it, with its resource's attributes. */
export interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly resource: Record<string, unknown>;
}

type OtlpAttribute = { key: string; value: Record<string, unknown> };
const attributesOf = (list: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, value['stringValue'] ?? (value['intValue'] !== undefined ? Number(value['intValue']) : (value['boolValue'] ?? value['doubleValue']))]));

/**
 * An OTLP/HTTP receiver: every span POSTed to /v1/traces, the metric names POSTed to /v1/metrics,
 * and every body as received (`bodies`: path and text, whatever the signal) for a test that reads
 * everything that left a process.
 */
export async function startReceiver(port = 0): Promise<{ url: string; spans: ExportedSpan[]; metricNames: Set<string>; posts: Map<string, number>; bodies: { path: string; text: string }[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const bodies: { path: string; text: string }[] = [];
  const metricNames = new Set<string>();
  const posts = new Map<string, number>();
  const server: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.set(req.url ?? '', (posts.get(req.url ?? '') ?? 0) + 1);
      bodies.push({ path: req.url ?? '', text: Buffer.concat(chunks).toString('utf8') });
      const json = /json/.test(req.headers['content-type'] ?? '');
      const body = json ? JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') : {};
      if (req.url === '/v1/traces') {
        for (const rs of body.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, attributes: attributesOf(s.attributes), resource });
        }
      }
      if (req.url === '/v1/metrics') for (const rm of body.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metricNames.add(m.name);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${bound}`, spans, metricNames, posts, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

