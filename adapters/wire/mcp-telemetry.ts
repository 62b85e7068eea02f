/**
 * MCP requests as the OpenTelemetry semantic conventions for MCP describe them: a span per request
 * named `{mcp.method.name} {target}` (the tool or prompt name; just the method otherwise, resource
 * URIs being too many), with the `mcp.*`, `gen_ai.*`, `jsonrpc.*` and `error.type` attributes, and
 * the `mcp.server.operation.duration` / `mcp.client.operation.duration` histograms (seconds) with
 * the low-cardinality part of them, each value bounded (`runtime/telemetry/metric-labels.ts`). The caller's trace context rides in `params._meta` (SEP-414).
 * SDK-free: the server side is wrapped around any transport (`traced-transport.ts`) and the
 * stateless dispatcher, the client side around a requester's peer.
 *
 * @module
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Span } from '@opentelemetry/api';
import { shortened, shownSession } from '../../runtime/secrets.js';
import { extractTraceContext, injectTraceContext, lazyInstrument, tracer } from '../../runtime/telemetry/tracing.js';
import { boundedErrorCode, boundedErrorType, boundedMethod, boundedProtocolVersion, boundedTarget, OTHER } from '../../runtime/telemetry/metric-labels.js';

/** The project's own attribute of a span that concerns one task (a `tasks/*` request, a task created). */
export const TASK_ID_ATTRIBUTE = 'mcp_task_actors.task.id';

/** The bucket boundaries the conventions advise for both operation histograms, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

const serverDuration = lazyInstrument((meter) =>
  meter.createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  }),
);
const clientDuration = lazyInstrument((meter) =>
  meter.createHistogram('mcp.client.operation.duration', {
    unit: 's',
    description: 'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  }),
);

/**
 * Error codes that say the caller sent a request the receiver could not serve: on the server side
 * the conventions count them as the caller's doing, not as errors of the server.
 */
const CALLER_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32002]);

export { OTHER };

/**
 * Whether the server serves a tool or prompt of that name: its metric label and span name keep
 * only such a name (any other is the requester's to make up, see `metric-labels.ts`).
 *
 * @example
 * ```ts
 * const targets: KnownTargets = (kind, name) => (kind === 'tool' ? tools : prompts).has(name);
 * traceConnections(server, targets);
 * ```
 */
export type KnownTargets = (kind: 'tool' | 'prompt', name: string) => boolean;

/** What is known of the connection a request came over or goes out on. */
export interface McpPeerInfo {
  /** `pipe` for stdio, `tcp` for HTTP (the conventions' `network.transport`). */
  readonly network?: 'pipe' | 'tcp' | undefined;
  /** Exported shortened (see `runtime/secrets.ts`): whoever presents a session id may be its requester. */
  readonly sessionId?: string | undefined;
  readonly protocolVersion?: string | undefined;
  /** The server's tools and prompts; absent on the requester's side, whose names are its own choice. */
  readonly targets?: KnownTargets | undefined;
  /** The requester is anonymous on the 2026-07-28 wire: its task ids are bearer handles, exported shortened. */
  readonly bearerTasks?: boolean | undefined;
}

/** One JSON-RPC request or notification, as both sides see it. */
export interface McpMessage {
  readonly method: string;
  /** Absent on a notification. */
  readonly id?: string | number | undefined;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The span name and attributes of a request: `attributes` for the span, `metric` for the
 * duration histogram (no request id, session or URI: they would make a series per request).
 *
 * @example
 * ```ts
 * mcpOperation({ method: 'tools/call', id: 7, params: { name: 'sleep' } }, { network: 'pipe' });
 * // { name: 'tools/call sleep', attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'sleep', … }, metric: {…} }
 * ```
 */
export function mcpOperation(message: McpMessage, peer: McpPeerInfo): { name: string; attributes: Attributes; metric: Attributes } {
  const { method, params } = message;
  // The span keeps what was asked (a span is one request); the metric only bounded values.
  const attributes: Attributes = { 'mcp.method.name': method };
  const metric: Attributes = { 'mcp.method.name': boundedMethod(method) };
  const both = (key: string, value: string, bounded = value): void => {
    attributes[key] = value;
    metric[key] = bounded;
  };
  const target = targetOf(message);
  if (method === 'tools/call') both('gen_ai.operation.name', 'execute_tool');
  if (target !== undefined) both(method === 'tools/call' ? 'gen_ai.tool.name' : 'gen_ai.prompt.name', target, peer.targets === undefined ? target : boundedTarget(target, (name) => peer.targets!(kindOf(method), name)));
  if (peer.protocolVersion !== undefined) both('mcp.protocol.version', peer.protocolVersion, boundedProtocolVersion(peer.protocolVersion));
  if (peer.network !== undefined) both('network.transport', peer.network);
  if (peer.network === 'tcp') both('network.protocol.name', 'http');
  if (message.id !== undefined) attributes['jsonrpc.request.id'] = String(message.id);
  if (peer.sessionId !== undefined) attributes['mcp.session.id'] = shownSession(peer.sessionId);
  const uri = method.startsWith('resources/') ? text(params?.['uri']) : undefined;
  if (uri !== undefined) attributes['mcp.resource.uri'] = uri;
  const taskId = method.startsWith('tasks/') ? text(params?.['taskId']) : undefined;
  if (taskId !== undefined) attributes[TASK_ID_ATTRIBUTE] = peer.bearerTasks === true ? shortened(taskId) : taskId;
  return { name: spanName(message, peer), attributes, metric };
}

/** How a request ended: a JSON-RPC result or error, or neither (cancelled, connection gone). */
export type McpOutcome = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } } | { readonly abandoned: string };

/** The tool or prompt a request names, if it is a `tools/call` or `prompts/get`. */
function targetOf(message: McpMessage): string | undefined {
  return message.method === 'tools/call' || message.method === 'prompts/get' ? text(message.params?.['name']) : undefined;
}

const kindOf = (method: string): 'tool' | 'prompt' => (method === 'tools/call' ? 'tool' : 'prompt');

/**
 * The span name of a request: `{mcp.method.name} {target}`, the target a tool or prompt name. A
 * name a requester made up is not one (the conventions keep span names low-cardinality): an
 * unknown method is {@link OTHER}, an unknown tool or prompt leaves the method alone.
 */
function spanName(message: McpMessage, peer: McpPeerInfo): string {
  const method = boundedMethod(message.method);
  const target = targetOf(message);
  return target === undefined || (peer.targets !== undefined && !peer.targets(kindOf(message.method), target)) ? method : `${method} ${target}`;
}

/** One request being served or sent: its span, and the context its work runs in. */
export class McpOperation {
  readonly span: Span;
  /** The span's context: run the request's work in it (`context.with`) so what it does joins the trace. */
  readonly context: Context;
  readonly #side: 'server' | 'client';
  readonly #bearerTasks: boolean;
  readonly #duration: Histogram | null;
  /** The histogram's attributes; `null` when nothing records (no SDK): none are built then. */
  readonly #metric: Attributes | null = null;
  readonly #start = performance.now();
  #ended = false;

  constructor(span: Span, ctx: Context, message: McpMessage, peer: McpPeerInfo, side: 'server' | 'client') {
    this.span = span;
    this.context = ctx;
    this.#side = side;
    this.#bearerTasks = peer.bearerTasks === true;
    this.#duration = (side === 'server' ? serverDuration : clientDuration)();
    // Built only for an SDK that records them (most of a no-op request's cost was building them);
    // a sampler therefore sees the name and kind, not the attributes.
    if (span.isRecording() || this.#duration !== null) {
      const { attributes, metric } = mcpOperation(message, peer);
      if (span.isRecording()) span.setAttributes(attributes);
      this.#metric = metric;
    }
  }

  /** Ends the span and records the duration; later calls do nothing. */
  end(outcome: McpOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    const metric = this.#metric;
    if (metric === null) return this.span.end();
    let errorType: number | string | undefined;
    let message: string | undefined;
    if ('error' in outcome) {
      const { code } = outcome.error;
      metric['rpc.response.status_code'] = boundedErrorCode(code);
      this.span.setAttribute('rpc.response.status_code', String(code));
      if (this.#side === 'client' || !CALLER_CODES.has(code)) errorType = code;
      message = outcome.error.message;
    } else if ('abandoned' in outcome) {
      errorType = outcome.abandoned;
    } else if (isRecord(outcome.result)) {
      // A tool's own failure is a result, not a JSON-RPC error: the conventions call it tool_error.
      if (outcome.result['isError'] === true) errorType = 'tool_error';
      const task = isRecord(outcome.result['task']) ? outcome.result['task'] : outcome.result['resultType'] === 'task' ? outcome.result : undefined;
      const taskId = text(task?.['taskId']);
      if (taskId !== undefined) this.span.setAttribute(TASK_ID_ATTRIBUTE, this.#bearerTasks ? shortened(taskId) : taskId);
    }
    if (errorType !== undefined) {
      metric['error.type'] = boundedErrorType(errorType);
      this.span.setAttribute('error.type', String(errorType));
      this.span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) });
    }
    this.span.end();
    this.#duration?.record((performance.now() - this.#start) / 1000, metric);
  }
}

/**
 * Starts the SERVER span of a request that arrived: its parent is the trace context the caller
 * put in `params._meta` (else the active context), and an active span of another trace (the HTTP
 * request's, say) is linked, as the conventions advise.
 *
 * @example
 * ```ts
 * const op = startServerOperation(message, { network: 'tcp', sessionId });
 * context.with(op.context, () => dispatch(message)).then((result) => op.end({ result }), (e) => op.end({ error: e }));
 * ```
 */
export function startServerOperation(message: McpMessage, peer: McpPeerInfo): McpOperation {
  const ambient = context.active();
  const meta = message.params?.['_meta'];
  const parent = isRecord(meta) ? extractTraceContext(meta, ambient) : ambient;
  const around = parent === ambient ? undefined : trace.getSpan(ambient)?.spanContext();
  const span = tracer().startSpan(spanName(message, peer), { kind: SpanKind.SERVER, ...(around !== undefined && { links: [{ context: around }] }) }, parent);
  return new McpOperation(span, trace.setSpan(parent, span), message, peer, 'server');
}

/**
 * Starts the CLIENT span of a request about to be sent, as a child of the active context, and
 * gives the params to send: a copy whose `_meta` carries the span's trace context (SEP-414).
 *
 * @example
 * ```ts
 * const { operation, params } = startClientOperation({ method: 'tools/call', params: { name: 'sleep' } }, {});
 * ```
 */
export function startClientOperation(message: McpMessage, peer: McpPeerInfo): { operation: McpOperation; params: Record<string, unknown> | undefined } {
  const parent = context.active();
  const span = tracer().startSpan(spanName(message, peer), { kind: SpanKind.CLIENT }, parent);
  const ctx = trace.setSpan(parent, span);
  const operation = new McpOperation(span, ctx, message, peer, 'client');
  const meta: Record<string, unknown> = {};
  injectTraceContext(meta, ctx);
  // Nothing to carry (no SDK): the params go out as they came, not copied.
  if (Object.keys(meta).length === 0) return { operation, params: message.params };
  const own = message.params?.['_meta'];
  return { operation, params: { ...message.params, _meta: { ...(isRecord(own) ? own : {}), ...meta } } };
}
