/**
 * A deliberately tiny, raw JSON-RPC client used by the black-box integration
 * tests. It knows nothing about MCP beyond the initialize handshake, so the
 * tests see exactly what the server puts on the wire.
 *
 * Two transports implement it: stdio-wire.ts and http-wire.ts. Both share the
 * bookkeeping in {@link WireCore}; they only differ in how bytes move.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';

export type JsonRpcId = string | number;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A whole JSON-RPC response message: exactly one of result / error is set. */
export interface JSONRPCResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: Record<string, unknown>;
  error?: JsonRpcErrorObject;
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

/** Every message the server sent us, in arrival order. */
export type InboundEntry =
  | { kind: 'response'; seq: number; message: JSONRPCResponse }
  | { kind: 'notification'; seq: number; message: JSONRPCNotification }
  | { kind: 'request'; seq: number; message: JSONRPCRequest };

export interface RequestOptions {
  /** Use this JSON-RPC id instead of an auto-generated one. */
  id?: JsonRpcId;
  /** How long request()/responseFor() wait before rejecting (default 10 s). */
  timeoutMs?: number;
}

export interface Wire {
  readonly transport: 'stdio' | 'http';
  /** The `result` of the initialize response. */
  readonly initializeResult: Record<string, unknown>;
  /** Every notification received, in arrival order. */
  readonly notifications: readonly JSONRPCNotification[];
  /** Every inbound message (responses, notifications, server requests), in arrival order. */
  readonly inbound: readonly InboundEntry[];
  /**
   * Protocol violations seen by the harness (non-JSON stdout line, response for
   * an id we never sent, duplicate response, unexpected HTTP status, ...).
   * Tests assert this stays empty.
   */
  readonly violations: readonly string[];

  /** Sends a request and resolves with the whole response message (result or error). */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<JSONRPCResponse>;
  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Sends a request without waiting; returns its id. Use responseFor(id) later. */
  sendRequestNoWait(method: string, params?: Record<string, unknown>, options?: { id?: JsonRpcId }): JsonRpcId;
  /** Resolves with the response to request `id` (immediately if it already arrived). */
  responseFor(id: JsonRpcId, timeoutMs?: number): Promise<JSONRPCResponse>;
  /** Whether any response for `id` has arrived. */
  responseReceived(id: JsonRpcId): boolean;
  /** Resolves with the first notification (already received or future) matching the predicate. */
  waitForNotification(
    predicate: (n: JSONRPCNotification) => boolean,
    timeoutMs?: number,
  ): Promise<JSONRPCNotification>;
  /** Everything the server wrote to stderr so far (for diagnostics). */
  stderr(): string;
  /** Ends the connection and kills the server process. Idempotent. */
  close(): Promise<void>;
}

export type Connect = (flags?: string[]) => Promise<Wire>;

export const PROTOCOL_VERSION = '2025-11-25';
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Repository root, computed from this file's location (test/integration/harness/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The server CLI. `SEP1686_CLI` may point elsewhere (e.g. to try the suite against
 * another build); by default it is the repository's own build output.
 */
export const CLI_PATH = process.env['SEP1686_CLI'] ?? path.join(REPO_ROOT, 'dist', 'adapters', 'cli', 'main.js');

export function assertCliBuilt(): void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`Server CLI not found at ${CLI_PATH}; run \`npm run build\` first.`);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------
// Child process bookkeeping: every spawned server is killed at the latest when
// the test worker exits, even if a test forgot to close its wire.
// ---------------------------------------------------------------------------
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

export function trackChild(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of liveChildren) {
        if (c.pid !== undefined) {
          try {
            process.kill(c.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    });
  }
}

/** SIGTERM by pid, then SIGKILL if it has not exited within `graceMs`. */
export async function killChild(child: ChildProcess, graceMs = 2_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  if ((await Promise.race([exited.then(() => 'exited' as const), timer])) === 'timeout') {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  }
}

/** Keeps the last `max` characters of a stream (stderr). */
export class TailBuffer {
  private text = '';
  constructor(private readonly max = 64_000) {}
  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.max) this.text = this.text.slice(this.text.length - this.max);
  }
  toString(): string {
    return this.text;
  }
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

interface NotificationWaiter extends Waiter<JSONRPCNotification> {
  predicate: (n: JSONRPCNotification) => boolean;
}

/**
 * Transport-independent bookkeeping: ids, responses, notifications, waiters,
 * violations. Subclasses implement the actual sending.
 */
export abstract class WireCore implements Wire {
  abstract readonly transport: 'stdio' | 'http';
  initializeResult: Record<string, unknown> = {};

  readonly notifications: JSONRPCNotification[] = [];
  readonly inbound: InboundEntry[] = [];
  readonly violations: string[] = [];

  private nextId = 1;
  private seq = 0;
  private readonly sentIds = new Map<JsonRpcId, string>(); // id -> method
  private readonly responses = new Map<JsonRpcId, JSONRPCResponse>();
  private readonly failures = new Map<JsonRpcId, Error>();
  private readonly responseWaiters = new Map<JsonRpcId, Waiter<JSONRPCResponse>[]>();
  private notificationWaiters: NotificationWaiter[] = [];
  /** Set once the connection is unusable (fatal violation, process exit, close). */
  protected fatal: Error | undefined;
  protected closed = false;

  protected abstract sendRaw(message: Record<string, unknown>, requestId: JsonRpcId | undefined): void;
  protected abstract sendNotificationRaw(message: Record<string, unknown>): Promise<void>;
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

  responseFor(id: JsonRpcId, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<JSONRPCResponse> {
    const existing = this.responses.get(id);
    if (existing !== undefined) return Promise.resolve(existing);
    const failure = this.failures.get(id);
    if (failure !== undefined) return Promise.reject(failure);
    if (!this.sentIds.has(id)) return Promise.reject(new Error(`harness: no request with id ${String(id)} was sent`));
    if (this.fatal !== undefined) return Promise.reject(this.fatal);
    return new Promise<JSONRPCResponse>((resolve, reject) => {
      const waiter: Waiter<JSONRPCResponse> = {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.removeResponseWaiter(id, waiter);
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for the response to ${this.sentIds.get(id) ?? '?'} ` +
              `(id ${JSON.stringify(id)}) over ${this.transport}.\n--- server stderr (tail) ---\n${this.stderr().slice(-4000)}`,
          ),
        );
      }, timeoutMs);
      const list = this.responseWaiters.get(id) ?? [];
      list.push(waiter);
      this.responseWaiters.set(id, list);
    });
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
    return new Promise<JSONRPCNotification>((resolve, reject) => {
      const waiter: NotificationWaiter = {
        predicate,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.notificationWaiters = this.notificationWaiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for a matching notification over ${this.transport}. ` +
              `Received so far: ${JSON.stringify(this.notifications.map((n) => n.method))}` +
              `\n--- server stderr (tail) ---\n${this.stderr().slice(-4000)}`,
          ),
        );
      }, timeoutMs);
      this.notificationWaiters.push(waiter);
    });
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
        this.onServerRequest(message);
      } else {
        const message = value as unknown as JSONRPCNotification;
        this.notifications.push(message);
        this.inbound.push({ kind: 'notification', seq: this.seq++, message });
        const matching = this.notificationWaiters.filter((w) => w.predicate(message));
        this.notificationWaiters = this.notificationWaiters.filter((w) => !matching.includes(w));
        for (const w of matching) w.resolve(message);
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
    const waiters = this.responseWaiters.get(id) ?? [];
    this.responseWaiters.delete(id);
    for (const w of waiters) w.resolve(message);
  }

  /** Server-to-client requests: answer ping, refuse everything else. */
  protected onServerRequest(message: JSONRPCRequest): void {
    if (message.method === 'ping') {
      void this.sendResponseRaw({ jsonrpc: '2.0', id: message.id, result: {} });
    } else {
      void this.sendResponseRaw({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: `raw test client does not implement ${message.method}` },
      });
    }
  }

  protected abstract sendResponseRaw(message: Record<string, unknown>): Promise<void>;

  /** Records a non-fatal violation. */
  protected violation(text: string): void {
    this.violations.push(text);
  }

  /** Records a violation and fails every pending and future wait. */
  protected fail(error: Error): void {
    if (this.fatal !== undefined) return;
    this.fatal = error;
    if (!this.closed) this.violations.push(error.message);
    for (const [, waiters] of this.responseWaiters) for (const w of waiters) w.reject(error);
    this.responseWaiters.clear();
    for (const w of this.notificationWaiters) w.reject(error);
    this.notificationWaiters = [];
  }

  /** Fails one request (e.g. its HTTP POST failed). */
  protected failRequest(id: JsonRpcId, error: Error): void {
    this.failures.set(id, error);
    const waiters = this.responseWaiters.get(id) ?? [];
    this.responseWaiters.delete(id);
    for (const w of waiters) w.reject(error);
  }

  private removeResponseWaiter(id: JsonRpcId, waiter: Waiter<JSONRPCResponse>): void {
    const list = this.responseWaiters.get(id);
    if (list === undefined) return;
    const rest = list.filter((w) => w !== waiter);
    if (rest.length === 0) this.responseWaiters.delete(id);
    else this.responseWaiters.set(id, rest);
  }

  // -- handshake ------------------------------------------------------------

  /** initialize + notifications/initialized. */
  async handshake(): Promise<void> {
    const response = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw-test', version: '0' },
    });
    if (response.error !== undefined || response.result === undefined) {
      throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    }
    this.initializeResult = response.result;
    await this.notify('notifications/initialized');
  }
}
