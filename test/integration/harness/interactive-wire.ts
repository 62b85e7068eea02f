/**
 * A raw JSON-RPC {@link Wire} whose client side can be asked things: it declares client
 * capabilities in `initialize` (by default `{ elicitation: {}, sampling: {} }`) and, instead of
 * refusing server-to-client requests like the plain wire does, records them so that a test can
 * inspect them and answer (or not answer, or answer late) by hand.
 *
 * Two transports, same conventions as stdio-wire.ts / http-wire.ts (which it does not modify):
 * - {@link connectInteractiveStdio}: `serve --stdio [flags]`, newline-delimited JSON on stdin/stdout;
 * - {@link connectInteractiveHttp}: `serve --http 0 [flags]`, raw fetch POSTs, replies read as JSON
 *   or incrementally as SSE, so a server request arriving on a still-open POST stream is seen at once.
 *
 * Every server request is recorded with the channel it arrived on (`stdout`, or
 * `POST <method> (sse)` over HTTP), so tests can check which open request carried it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  CLI_PATH,
  DEFAULT_TIMEOUT_MS,
  PROTOCOL_VERSION,
  REPO_ROOT,
  TailBuffer,
  WireCore,
  assertCliBuilt,
  killChild,
  trackChild,
  type JSONRPCRequest,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type Wire,
} from './wire.js';

/** One request the server sent to this client. */
export interface ServerRequestEntry {
  readonly message: JSONRPCRequest;
  /** Where it arrived: `stdout`, or e.g. `POST tools/call (sse)` over HTTP. */
  readonly origin: string;
  /** When it arrived (Date.now()). */
  readonly at: number;
}

export interface InteractiveWire extends Wire {
  /** The capabilities this client declared in `initialize`. */
  readonly clientCapabilities: Record<string, unknown>;
  /** Every server-to-client request except `ping` (answered automatically), in arrival order. */
  readonly serverRequests: readonly ServerRequestEntry[];
  /** Resolves with the first server request (already received or future) matching the predicate. */
  waitForServerRequest(predicate: (r: ServerRequestEntry) => boolean, timeoutMs?: number): Promise<ServerRequestEntry>;
  /** Answers a server request with a result. */
  answer(id: JsonRpcId, result: Record<string, unknown>): Promise<void>;
  /** Answers a server request with a JSON-RPC error. */
  answerError(id: JsonRpcId, error: JsonRpcErrorObject): Promise<void>;
}

export interface InteractiveOptions {
  /** CLI flags after `serve --stdio` / `serve --http 0`. */
  readonly flags?: readonly string[];
  /** Client capabilities for `initialize`; default `{ elicitation: {}, sampling: {} }`. */
  readonly capabilities?: Record<string, unknown>;
}

export type ConnectInteractive = (options?: InteractiveOptions) => Promise<InteractiveWire>;

export const DEFAULT_CLIENT_CAPABILITIES: Record<string, unknown> = { elicitation: {}, sampling: {} };

const URL_PATTERN = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const STARTUP_TIMEOUT_MS = 10_000;

interface RequestWaiter {
  predicate: (r: ServerRequestEntry) => boolean;
  resolve: (r: ServerRequestEntry) => void;
  reject: (e: Error) => void;
}

/** Server-request bookkeeping and a capability-declaring handshake on top of {@link WireCore}. */
abstract class InteractiveCore extends WireCore implements InteractiveWire {
  readonly serverRequests: ServerRequestEntry[] = [];
  private requestWaiters: RequestWaiter[] = [];
  private currentOrigin = '?';

  constructor(readonly clientCapabilities: Record<string, unknown>) {
    super();
  }

  protected override handleInbound(value: unknown, origin: string): void {
    const previous = this.currentOrigin;
    this.currentOrigin = origin;
    try {
      super.handleInbound(value, origin);
    } finally {
      this.currentOrigin = previous;
    }
  }

  protected override onServerRequest(message: JSONRPCRequest): void {
    if (message.method === 'ping') {
      void this.sendResponseRaw({ jsonrpc: '2.0', id: message.id, result: {} });
      return;
    }
    const entry: ServerRequestEntry = { message, origin: this.currentOrigin, at: Date.now() };
    this.serverRequests.push(entry);
    const matching = this.requestWaiters.filter((w) => w.predicate(entry));
    this.requestWaiters = this.requestWaiters.filter((w) => !matching.includes(w));
    for (const w of matching) w.resolve(entry);
  }

  waitForServerRequest(predicate: (r: ServerRequestEntry) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ServerRequestEntry> {
    const found = this.serverRequests.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    if (this.fatal !== undefined) return Promise.reject(this.fatal);
    return new Promise<ServerRequestEntry>((resolve, reject) => {
      const waiter: RequestWaiter = {
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
        this.requestWaiters = this.requestWaiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for a matching server request over ${this.transport}. ` +
              `Server requests so far: ${JSON.stringify(this.serverRequests.map((r) => r.message.method))}` +
              `\n--- server stderr (tail) ---\n${this.stderr().slice(-4000)}`,
          ),
        );
      }, timeoutMs);
      this.requestWaiters.push(waiter);
    });
  }

  async answer(id: JsonRpcId, result: Record<string, unknown>): Promise<void> {
    await this.sendResponseRaw({ jsonrpc: '2.0', id, result });
  }

  async answerError(id: JsonRpcId, error: JsonRpcErrorObject): Promise<void> {
    await this.sendResponseRaw({ jsonrpc: '2.0', id, error });
  }

  protected override fail(error: Error): void {
    super.fail(error);
    for (const w of this.requestWaiters) w.reject(error);
    this.requestWaiters = [];
  }

  /** initialize (with this client's capabilities) + notifications/initialized. */
  override async handshake(): Promise<void> {
    const response = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: this.clientCapabilities,
      clientInfo: { name: 'raw-interactive-test', version: '0' },
    });
    if (response.error !== undefined || response.result === undefined) {
      throw new Error(`initialize failed: ${JSON.stringify(response)}`);
    }
    this.initializeResult = response.result;
    await this.notify('notifications/initialized');
  }
}

// ---------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------

class InteractiveStdioWire extends InteractiveCore {
  readonly transport = 'stdio' as const;
  private readonly stderrTail = new TailBuffer();
  private stdoutBuffer = '';

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    capabilities: Record<string, unknown>,
  ) {
    super(capabilities);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    child.stderr.on('data', (chunk: string) => this.stderrTail.append(chunk));
    child.stdin.on('error', (err) => {
      if (!this.closed) this.fail(new Error(`stdio: cannot write to server stdin: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      if (!this.closed) {
        this.fail(
          new Error(
            `stdio: server process exited unexpectedly (code ${String(code)}, signal ${String(signal)}).` +
              `\n--- server stderr (tail) ---\n${this.stderrTail.toString().slice(-4000)}`,
          ),
        );
      }
    });
  }

  private onStdout(chunk: string): void {
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
      const raw = this.stdoutBuffer.slice(0, newline);
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        this.fail(new Error(`stdio: server wrote a non-JSON line to stdout: ${JSON.stringify(line.slice(0, 500))}`));
        continue;
      }
      this.handleInbound(parsed, 'stdout');
    }
  }

  private write(message: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  protected sendRaw(message: Record<string, unknown>, _requestId: JsonRpcId | undefined): void {
    this.write(message);
  }

  protected sendNotificationRaw(message: Record<string, unknown>): Promise<void> {
    this.write(message);
    return Promise.resolve();
  }

  protected sendResponseRaw(message: Record<string, unknown>): Promise<void> {
    if (!this.closed && this.fatal === undefined) this.write(message);
    return Promise.resolve();
  }

  stderr(): string {
    return this.stderrTail.toString();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('wire closed'));
    try {
      this.child.stdin.end();
    } catch {
      // ignore
    }
    await killChild(this.child);
  }
}

/** Spawns `serve --stdio [flags]` and performs the handshake with the given client capabilities. */
export const connectInteractiveStdio: ConnectInteractive = async (options = {}) => {
  assertCliBuilt();
  const flags = [...(options.flags ?? [])];
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--stdio', ...flags], { cwd: REPO_ROOT, env: { ...process.env } });
  trackChild(child);
  const wire = new InteractiveStdioWire(child, options.capabilities ?? DEFAULT_CLIENT_CAPABILITIES);
  try {
    await wire.handshake();
  } catch (error) {
    await wire.close();
    throw new Error(
      `stdio handshake failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${wire.stderr().slice(-4000)}`,
    );
  }
  return wire;
};

// ---------------------------------------------------------------------------
// Streamable HTTP
// ---------------------------------------------------------------------------

class InteractiveHttpWire extends InteractiveCore {
  readonly transport = 'http' as const;
  sessionId: string | undefined;
  private readonly controllers = new Set<AbortController>();

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly stderrTail: TailBuffer,
    readonly url: string,
    capabilities: Record<string, unknown>,
  ) {
    super(capabilities);
    child.once('exit', (code, signal) => {
      if (!this.closed) {
        this.fail(
          new Error(
            `http: server process exited unexpectedly (code ${String(code)}, signal ${String(signal)}).` +
              `\n--- server stderr (tail) ---\n${this.stderrTail.toString().slice(-4000)}`,
          ),
        );
      }
    });
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId !== undefined) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = PROTOCOL_VERSION;
    }
    return headers;
  }

  private async post(message: Record<string, unknown>, requestId: JsonRpcId | undefined): Promise<void> {
    const controller = new AbortController();
    this.controllers.add(controller);
    const label = `POST ${typeof message['method'] === 'string' ? message['method'] : 'response'}`;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(message),
        signal: controller.signal,
      });
      if (message['method'] === 'initialize') {
        const sid = res.headers.get('mcp-session-id');
        if (sid === null || sid === '') this.violation('http: initialize response carries no mcp-session-id header');
        else this.sessionId = sid;
      }
      if (requestId === undefined) {
        if (res.status !== 202) {
          const body = await res.text();
          this.violation(`http: ${label} expected 202, got ${res.status}: ${body.slice(0, 500)}`);
        } else {
          await res.body?.cancel();
        }
        return;
      }
      const contentType = res.headers.get('content-type') ?? '';
      if (contentType.includes('text/event-stream')) {
        if (res.body === null) throw new Error(`http: ${label} SSE reply has no body`);
        await this.consumeSse(res.body, label);
      } else if (contentType.includes('application/json')) {
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new Error(`http: ${label} returned a non-JSON application/json body: ${text.slice(0, 500)}`);
        }
        this.handleInbound(parsed, `${label} (json, status ${res.status})`);
      } else {
        const text = await res.text();
        throw new Error(`http: ${label} returned status ${res.status}, content-type '${contentType}': ${text.slice(0, 500)}`);
      }
    } finally {
      this.controllers.delete(controller);
    }
  }

  private async consumeSse(body: ReadableStream<Uint8Array>, label: string): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const flush = (): void => {
      buffer = buffer.replace(/\r\n/g, '\n');
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data.trim() === '') continue; // priming event / comment
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch {
          this.violation(`http: ${label} SSE event data is not JSON: ${data.slice(0, 500)}`);
          continue;
        }
        this.handleInbound(parsed, `${label} (sse)`);
      }
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      flush();
    }
    buffer += decoder.decode();
    if (buffer.trim() !== '') buffer += '\n\n';
    flush();
  }

  protected sendRaw(message: Record<string, unknown>, requestId: JsonRpcId | undefined): void {
    this.post(message, requestId).catch((error: unknown) => {
      if (this.closed) return;
      const err = error instanceof Error ? error : new Error(String(error));
      this.violation(err.message);
      if (requestId !== undefined) this.failRequest(requestId, err);
    });
  }

  protected async sendNotificationRaw(message: Record<string, unknown>): Promise<void> {
    await this.post(message, undefined);
  }

  protected async sendResponseRaw(message: Record<string, unknown>): Promise<void> {
    if (this.closed) return;
    try {
      await this.post(message, undefined);
    } catch (error) {
      if (!this.closed) this.violation(`http: failed to answer a server request: ${String(error)}`);
    }
  }

  stderr(): string {
    return this.stderrTail.toString();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('wire closed'));
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
    if (this.sessionId !== undefined && this.child.exitCode === null) {
      try {
        const res = await fetch(this.url, { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(1_000) });
        await res.body?.cancel();
      } catch {
        // best effort
      }
    }
    await killChild(this.child);
  }
}

/** Spawns `serve --http 0 [flags]`, waits for its URL, and performs the handshake with the given capabilities. */
export const connectInteractiveHttp: ConnectInteractive = async (options = {}) => {
  assertCliBuilt();
  const flags = [...(options.flags ?? [])];
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--http', '0', ...flags], { cwd: REPO_ROOT, env: { ...process.env } });
  trackChild(child);
  const stderrTail = new TailBuffer();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => stderrTail.append(chunk));
  child.stdout.on('data', () => {
    // logs belong on stderr
  });
  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`server did not print its http://127.0.0.1:<port>/mcp URL within ${STARTUP_TIMEOUT_MS} ms`));
      }, STARTUP_TIMEOUT_MS);
      const onData = (): void => {
        const match = URL_PATTERN.exec(stderrTail.toString());
        if (match !== null) {
          cleanup();
          resolve(match[0]);
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        cleanup();
        reject(new Error(`server exited before listening (code ${String(code)}, signal ${String(signal)})`));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
      };
      child.stderr.on('data', onData);
      child.once('exit', onExit);
      onData();
    });
  } catch (error) {
    await killChild(child);
    throw new Error(
      `http startup failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${stderrTail.toString().slice(-4000)}`,
    );
  }
  const wire = new InteractiveHttpWire(child, stderrTail, url, options.capabilities ?? DEFAULT_CLIENT_CAPABILITIES);
  try {
    await wire.handshake();
    if (wire.sessionId === undefined) throw new Error('initialize response carried no mcp-session-id header');
  } catch (error) {
    await wire.close();
    throw new Error(
      `http handshake failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${stderrTail.toString().slice(-4000)}`,
    );
  }
  return wire;
};
