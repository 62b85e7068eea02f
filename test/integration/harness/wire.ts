/**
 * A deliberately tiny, raw JSON-RPC client used by the black-box integration
 * tests. It knows nothing about MCP beyond the initialize handshake, so the
 * tests see exactly what the server puts on the wire.
 *
 * {@link WireCore} does the transport-independent bookkeeping; stdio-wire.ts and
 * http-wire.ts only move bytes. A {@link ClientProfile} decides whether server-to-client
 * requests are refused (plain wire) or recorded for the test to answer (interactive wire).
 */
import {
  isRecord,
  type InboundEntry,
  type InteractiveWire,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type RequestOptions,
  type ServerRequestEntry,
} from './types.js';
import { Waiters } from './waiters.js';

export const PROTOCOL_VERSION = '2025-11-25';
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_CLIENT_CAPABILITIES: Record<string, unknown> = { elicitation: {}, sampling: {} };

/** How the client presents itself in `initialize`, and what it does with server requests. */
export interface ClientProfile {
  readonly capabilities: Record<string, unknown>;
  readonly name: string;
  /** Record server requests for the test (true) or refuse them with -32601 (false). */
  readonly interactive: boolean;
}

/** The plain raw client: no capabilities, refuses every server request but `ping`. */
export const PLAIN_CLIENT: ClientProfile = { capabilities: {}, name: 'raw-test', interactive: false };

/** A client that declares `capabilities` and lets the test answer server requests. */
export function interactiveClient(capabilities: Record<string, unknown> = DEFAULT_CLIENT_CAPABILITIES): ClientProfile {
  return { capabilities, name: 'raw-interactive-test', interactive: true };
}

/**
 * Transport-independent bookkeeping: ids, responses, notifications, server requests,
 * waiters, violations. Subclasses implement the actual sending.
 */
export abstract class WireCore implements InteractiveWire {
  abstract readonly transport: 'stdio' | 'http';
  initializeResult: Record<string, unknown> = {};

  readonly notifications: JSONRPCNotification[] = [];
  readonly inbound: InboundEntry[] = [];
  readonly violations: string[] = [];
  readonly serverRequests: ServerRequestEntry[] = [];

  private nextId = 1;
  private seq = 0;
  private readonly sentIds = new Map<JsonRpcId, string>(); // id -> method
  private readonly responses = new Map<JsonRpcId, JSONRPCResponse>();
  private readonly failures = new Map<JsonRpcId, Error>();
  private readonly responseWaiters = new Waiters<JSONRPCResponse>();
  private readonly notificationWaiters = new Waiters<JSONRPCNotification>();
  private readonly requestWaiters = new Waiters<ServerRequestEntry>();
  /** Set once the connection is unusable (fatal violation, process exit, close). */
  protected fatal: Error | undefined;
  protected closed = false;

  constructor(private readonly profile: ClientProfile) {}

  get clientCapabilities(): Record<string, unknown> {
    return this.profile.capabilities;
  }

  protected abstract sendRaw(message: Record<string, unknown>, requestId: JsonRpcId | undefined): void;
  protected abstract sendNotificationRaw(message: Record<string, unknown>): Promise<void>;
  protected abstract sendResponseRaw(message: Record<string, unknown>): Promise<void>;
  abstract stderr(): string;
  abstract close(): Promise<void>;

  // -- outgoing -------------------------------------------------------------

  sendRequestNoWait(method: string, params?: Record<string, unknown>, options?: { id?: JsonRpcId }): JsonRpcId {
    const id = options?.id ?? this.nextId++;
    if (this.sentIds.has(id)) throw new Error(`harness: request id ${String(id)} already used`);
    this.sentIds.set(id, method);
    const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message['params'] = params;
    if (this.fatal !== undefined) {
      this.failures.set(id, this.fatal);
      return id;
    }
    this.sendRaw(message, id);
    return id;
  }

  async request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<JSONRPCResponse> {
    const id = this.sendRequestNoWait(method, params, options?.id !== undefined ? { id: options.id } : undefined);
    return this.responseFor(id, options?.timeoutMs);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.fatal !== undefined) throw this.fatal;
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message['params'] = params;
    await this.sendNotificationRaw(message);
  }

  async answer(id: JsonRpcId, result: Record<string, unknown>): Promise<void> {
    await this.sendResponseRaw({ jsonrpc: '2.0', id, result });
  }

  async answerError(id: JsonRpcId, error: JsonRpcErrorObject): Promise<void> {
    await this.sendResponseRaw({ jsonrpc: '2.0', id, error });
  }

  // -- waiting --------------------------------------------------------------

  private timeoutError(timeoutMs: number, what: () => string): () => Error {
    return () =>
      new Error(`Timed out after ${timeoutMs} ms waiting for ${what()}\n--- server stderr (tail) ---\n${this.stderr().slice(-4000)}`);
  }

  responseFor(id: JsonRpcId, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<JSONRPCResponse> {
    const existing = this.responses.get(id);
    if (existing !== undefined) return Promise.resolve(existing);
    const failure = this.failures.get(id);
    if (failure !== undefined) return Promise.reject(failure);
    if (!this.sentIds.has(id)) return Promise.reject(new Error(`harness: no request with id ${String(id)} was sent`));
    if (this.fatal !== undefined) return Promise.reject(this.fatal);
    const what = (): string =>
      `the response to ${this.sentIds.get(id) ?? '?'} (id ${JSON.stringify(id)}) over ${this.transport}.`;
    return this.responseWaiters.wait((r) => r.id === id, timeoutMs, this.timeoutError(timeoutMs, what), id);
  }

  responseReceived(id: JsonRpcId): boolean {
    return this.responses.has(id);
  }

  waitForNotification(
    predicate: (n: JSONRPCNotification) => boolean,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<JSONRPCNotification> {
    const found = this.notifications.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    if (this.fatal !== undefined) return Promise.reject(this.fatal);
    const what = (): string =>
      `a matching notification over ${this.transport}. ` +
      `Received so far: ${JSON.stringify(this.notifications.map((n) => n.method))}`;
    return this.notificationWaiters.wait(predicate, timeoutMs, this.timeoutError(timeoutMs, what));
  }

  waitForServerRequest(predicate: (r: ServerRequestEntry) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ServerRequestEntry> {
    const found = this.serverRequests.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    if (this.fatal !== undefined) return Promise.reject(this.fatal);
    const what = (): string =>
      `a matching server request over ${this.transport}. ` +
      `Server requests so far: ${JSON.stringify(this.serverRequests.map((r) => r.message.method))}`;
    return this.requestWaiters.wait(predicate, timeoutMs, this.timeoutError(timeoutMs, what));
  }

  // -- incoming -------------------------------------------------------------

  /** Feed one parsed inbound JSON value (a message or a batch array). */
  protected handleInbound(value: unknown, origin: string): void {
    if (Array.isArray(value)) {
      for (const item of value) this.handleInbound(item, origin);
      return;
    }
    if (!isRecord(value) || value['jsonrpc'] !== '2.0') {
      this.violation(`${origin}: not a JSON-RPC 2.0 message: ${JSON.stringify(value)}`);
      return;
    }
    const hasId = 'id' in value;
    const method = value['method'];
    if (typeof method === 'string') {
      const params = value['params'];
      if (params !== undefined && !isRecord(params)) {
        this.violation(`${origin}: params is not an object: ${JSON.stringify(value)}`);
      }
      if (hasId) {
        const message = value as unknown as JSONRPCRequest;
        this.inbound.push({ kind: 'request', seq: this.seq++, message });
        this.onServerRequest(message, origin);
      } else {
        const message = value as unknown as JSONRPCNotification;
        this.notifications.push(message);
        this.inbound.push({ kind: 'notification', seq: this.seq++, message });
        this.notificationWaiters.offer(message);
      }
      return;
    }
    if (!hasId || !('result' in value || 'error' in value)) {
      this.violation(`${origin}: message is neither request, notification nor response: ${JSON.stringify(value)}`);
      return;
    }
    const message = value as unknown as JSONRPCResponse;
    const hasResult = 'result' in value;
    const hasError = 'error' in value;
    if (hasResult === hasError) {
      this.violation(`${origin}: response must have exactly one of result/error: ${JSON.stringify(value)}`);
    }
    if (hasResult && !isRecord(value['result'])) {
      this.violation(`${origin}: response result is not an object: ${JSON.stringify(value)}`);
    }
    if (hasError) {
      const err = value['error'];
      if (!isRecord(err) || typeof err['code'] !== 'number' || typeof err['message'] !== 'string') {
        this.violation(`${origin}: malformed error object: ${JSON.stringify(value)}`);
      }
    }
    this.inbound.push({ kind: 'response', seq: this.seq++, message });
    const id = message.id;
    if (id === null) {
      this.violation(`${origin}: response with null id: ${JSON.stringify(value)}`);
      return;
    }
    if (!this.sentIds.has(id)) {
      this.violation(`${origin}: response for an id we never sent (${JSON.stringify(id)}): ${JSON.stringify(value)}`);
      return;
    }
    if (this.responses.has(id)) {
      this.violation(`${origin}: second response for id ${JSON.stringify(id)}: ${JSON.stringify(value)}`);
      return;
    }
    this.responses.set(id, message);
    this.responseWaiters.offer(message);
  }

  /** Server-to-client requests: answer ping; record the rest (interactive) or refuse them (plain). */
  private onServerRequest(message: JSONRPCRequest, origin: string): void {
    if (message.method === 'ping') {
      void this.sendResponseRaw({ jsonrpc: '2.0', id: message.id, result: {} });
    } else if (this.profile.interactive) {
      const entry: ServerRequestEntry = { message, origin, at: Date.now() };
      this.serverRequests.push(entry);
      this.requestWaiters.offer(entry);
    } else {
      void this.sendResponseRaw({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: `raw test client does not implement ${message.method}` },
      });
    }
  }

  /** Records a non-fatal violation. */
  protected violation(text: string): void {
    this.violations.push(text);
  }

  /** Records a violation and fails every pending and future wait. */
  protected fail(error: Error): void {
    if (this.fatal !== undefined) return;
    this.fatal = error;
    if (!this.closed) this.violations.push(error.message);
    this.responseWaiters.rejectAll(error);
    this.notificationWaiters.rejectAll(error);
    this.requestWaiters.rejectAll(error);
  }

  /** Fails one request (e.g. its HTTP POST failed). */
  protected failRequest(id: JsonRpcId, error: Error): void {
    this.failures.set(id, error);
    this.responseWaiters.rejectAll(error, id);
  }

  // -- handshake ------------------------------------------------------------

  /** initialize (with this client's capabilities) + notifications/initialized. */
  async handshake(): Promise<void> {
    const response = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: this.profile.capabilities,
      clientInfo: { name: this.profile.name, version: '0' },
    });
    if (response.error !== undefined || response.result === undefined) {
      throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    }
    this.initializeResult = response.result;
    await this.notify('notifications/initialized');
  }
}
