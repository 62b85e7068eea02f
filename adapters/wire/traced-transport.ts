/**
 * Server spans at the one place every request of a connection passes, whichever SDK line serves
 * it: the transport. A request that arrives starts its span (see `mcp-telemetry.ts`) and is
 * handed on inside the span's context, so everything its handler does (a task created, a log
 * line written) joins the caller's trace; its response, when it is sent, ends the span. Requests
 * answered by the fast lane and by the SDK alike, over stdio and Streamable HTTP.
 *
 * @module
 */
import { context } from '@opentelemetry/api';
import { startServerOperation, type KnownTargets, type McpOperation } from './mcp-telemetry.js';
import { requestKey } from './request-info.js';
import { PROTOCOL_2026_07_28 } from './stateless/wire.js';

/** What is used of a transport (both SDK lines' transports are such). */
export interface TraceableTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  send(message: never, options?: never): Promise<void>;
  onclose?: (() => void) | undefined;
  readonly sessionId?: string | undefined;
}

/** A peer whose `connect` takes a transport (a v1 or v2 `Server`, a task-hosting `Client`). */
export interface ConnectingPeer {
  connect(transport: never, ...rest: never[]): Promise<void>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';

/**
 * Traces every connection of `peer`: each transport it connects to is wrapped once connected (the
 * SDK installs its message handler in `connect`, the fast lane its own just after; this wrapper
 * goes in front of both).
 *
 * @param targets - the server's tools and prompts: a name it does not serve is kept out of span names and metric labels
 * @example
 * ```ts
 * const server = new Server(info, options);
 * traceConnections(server);
 * await server.connect(transport);
 * ```
 */
export function traceConnections(peer: ConnectingPeer, targets?: KnownTargets): void {
  const connect = (peer.connect as (transport: TraceableTransport, ...rest: unknown[]) => Promise<void>).bind(peer);
  (peer as { connect: (transport: TraceableTransport, ...rest: unknown[]) => Promise<void> }).connect = async (transport, ...rest) => {
    await connect(transport, ...rest);
    traceTransport(transport, targets);
  };
}

/**
 * Wraps a connected transport's `onmessage` and `send` so that each request it carries has a
 * SERVER span from its arrival to its response. A request that gets no response ends its span
 * when cancelled (`error.type` `cancelled`) or when the connection closes (`connection_closed`).
 *
 * @param targets - the server's tools and prompts (see {@link traceConnections})
 * @example
 * ```ts
 * await server.connect(transport);
 * traceTransport(transport);
 * ```
 */
export function traceTransport(transport: TraceableTransport, targets?: KnownTargets): void {
  const open = new Map<string, McpOperation>();
  let protocolVersion: string | undefined;
  const inner = transport.onmessage as ((message: unknown, extra?: unknown) => void) | undefined;
  transport.onmessage = ((message: unknown, extra?: unknown) => {
    if (!isRecord(message) || typeof message['method'] !== 'string') return inner?.(message, extra);
    const method = message['method'];
    const id = message['id'];
    const params = isRecord(message['params']) ? message['params'] : undefined;
    if (method === 'notifications/cancelled') {
      const cancelled = params?.['requestId'];
      if (isId(cancelled)) settle(cancelled, { abandoned: 'cancelled' });
    }
    const meta = isRecord(params?.['_meta']) ? params['_meta'] : undefined;
    const version = protocolVersion ?? versionOf(meta?.['io.modelcontextprotocol/protocolVersion']) ?? versionOf(headersOf(extra)?.['mcp-protocol-version']);
    const operation = startServerOperation(
      { method, ...(isId(id) && { id }), ...(params && { params }) },
      { network: networkOf(extra), sessionId: transport.sessionId, protocolVersion: version, targets, bearerTasks: bearerTasksOf(version, extra) },
    );
    // A notification gets no answer: its span covers its dispatch.
    if (!isId(id)) {
      try {
        return context.with(operation.context, () => inner?.(message, extra));
      } finally {
        operation.end({ result: undefined });
      }
    }
    open.get(requestKey(id))?.end({ abandoned: 'superseded' });
    open.set(requestKey(id), operation);
    return context.with(operation.context, () => inner?.(message, extra));
  });

  const settle = (id: string | number, outcome: Parameters<McpOperation['end']>[0]): void => {
    const key = requestKey(id);
    const operation = open.get(key);
    if (operation === undefined) return;
    open.delete(key);
    operation.end(outcome);
  };
  const send = (transport.send as (message: unknown, options?: unknown) => Promise<void>).bind(transport);
  transport.send = ((message: unknown, options?: unknown) => {
    if (isRecord(message) && isId(message['id']) && message['method'] === undefined && open.size > 0) {
      const result = message['result'];
      const error = message['error'];
      if (isRecord(result) && typeof result['protocolVersion'] === 'string' && result['serverInfo'] !== undefined) protocolVersion = result['protocolVersion'];
      if (isRecord(error)) settle(message['id'], { error: { code: typeof error['code'] === 'number' ? error['code'] : -32603, message: String(error['message']) } });
      else settle(message['id'], { result });
    }
    return send(message, options);
  });
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const operation of open.values()) operation.end({ abandoned: 'connection_closed' });
    open.clear();
    onclose?.();
  };
}

/** HTTP transports pass the request's details with each message; stdio passes none. */
function networkOf(extra: unknown): 'pipe' | 'tcp' {
  return isRecord(extra) && (extra['requestInfo'] !== undefined || extra['request'] !== undefined) ? 'tcp' : 'pipe';
}

const versionOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Whether the request's task ids are bearer handles (exported shortened, `runtime/secrets.ts`): an
 * anonymous 2026-07-28 request over HTTP, which SDK v2 serves through this transport (the
 * requester has no session there, so a task id alone reaches its task).
 */
function bearerTasksOf(version: string | undefined, extra: unknown): boolean {
  return version === PROTOCOL_2026_07_28 && networkOf(extra) === 'tcp' && !(isRecord(extra) && extra['authInfo'] !== undefined);
}

/** The HTTP headers an SDK v1 transport passes with a message (a session resumed elsewhere says its version only there). */
function headersOf(extra: unknown): Record<string, unknown> | undefined {
  const info = isRecord(extra) ? extra['requestInfo'] : undefined;
  return isRecord(info) && isRecord(info['headers']) ? info['headers'] : undefined;
}
