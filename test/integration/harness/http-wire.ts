/**
 * Wire over Streamable HTTP: raw fetch POSTs to a `serve --http 0` server's
 * `http://127.0.0.1:<port>/mcp` URL, one HTTP session (mcp-session-id) per wire. Replies may
 * be `application/json` or an SSE stream; SSE streams are read incrementally so notifications
 * (e.g. notifications/tasks/created) and server requests are recorded as they arrive, before
 * the response that ends the stream.
 *
 * - {@link connectHttp} / {@link connectInteractiveHttp}: spawn their own server and kill it on close;
 * - {@link attachHttpWire}: joins an already running server (several requesters, raw and SDK,
 *   can share one process) and leaves it running on close.
 */
import { killChild, messageOf, spawnHttpServer, withStderr, type HttpServerProcess } from './process.js';
import { isRecord, type Connect, type ConnectInteractive, type InteractiveWire, type JsonRpcId, type Wire } from './types.js';
import { PLAIN_CLIENT, PROTOCOL_VERSION, WireCore, interactiveClient, type ClientProfile } from './wire.js';

class HttpWire extends WireCore {
  readonly transport = 'http' as const;
  sessionId: string | undefined;
  /** Whether close() ends the session (DELETE). False for a wire that borrows another wire's session. */
  deleteSessionOnClose = true;
  /**
   * Fail a request at once when the server answers it with a JSON-RPC error whose id is null (e.g.
   * HTTP 404 "Session not found"), instead of waiting for a response that will never come.
   */
  failOnNullIdError = false;
  /** Sent as `Authorization: Bearer <token>` on every request (servers started with `--auth-token`). */
  bearerToken: string | undefined;
  /** Runs once at the end of close(), e.g. to stop the processes behind `url` that the caller started. */
  afterClose: (() => Promise<void>) | undefined;
  private readonly controllers = new Set<AbortController>();

  /** `owned`: the server process this wire spawned (killed on close), if any. */
  constructor(
    readonly url: string,
    private readonly serverStderr: () => string,
    profile: ClientProfile,
    private readonly owned?: HttpServerProcess,
  ) {
    super(profile);
    owned?.child.once('exit', (code, signal) => {
      if (!this.closed) {
        this.fail(
          withStderr(`http: server process exited unexpectedly (code ${String(code)}, signal ${String(signal)}).`, this.stderr()),
        );
      }
    });
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.bearerToken !== undefined) headers['authorization'] = `Bearer ${this.bearerToken}`;
    if (this.sessionId !== undefined) {
      headers['mcp-session-id'] = this.sessionId;
      headers['mcp-protocol-version'] = PROTOCOL_VERSION;
    }
    return headers;
  }

  /** POSTs one message; for requests, reads the reply (JSON or SSE) into the core. */
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
        // Notifications and responses: the server answers 202 Accepted with no body.
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
        if (this.failOnNullIdError && isRecord(parsed) && parsed['id'] === null && 'error' in parsed) {
          throw new Error(`http: ${label} was answered with status ${res.status} and an error without id: ${text.slice(0, 500)}`);
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

  /** Reads an SSE stream to its end, feeding every `data:` payload to the core. */
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
    return this.serverStderr();
  }

  /** Ends the session (DELETE), aborts pending POSTs and kills the server if this wire owns it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('wire closed'));
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
    if (this.deleteSessionOnClose && this.sessionId !== undefined && (this.owned === undefined || this.owned.child.exitCode === null)) {
      try {
        const res = await fetch(this.url, { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(1_000) });
        await res.body?.cancel();
      } catch {
        // best effort
      }
    }
    if (this.owned !== undefined) await killChild(this.owned.child);
    await this.afterClose?.();
  }
}

/** Performs the handshake on a new wire; on failure closes it and throws `failure: <reason>` with stderr. */
async function handshake(wire: HttpWire, failure: string): Promise<HttpWire> {
  try {
    await wire.handshake();
    if (wire.sessionId === undefined) throw new Error('initialize response carried no mcp-session-id header');
  } catch (error) {
    await wire.close();
    throw withStderr(`${failure}: ${messageOf(error)}`, wire.stderr());
  }
  return wire;
}

/** Spawns `serve --http 0 [flags]`, waits for its URL, and performs the handshake as `profile`. */
async function openHttp(flags: readonly string[], profile: ClientProfile): Promise<HttpWire> {
  const server = await spawnHttpServer(flags);
  const wire = new HttpWire(server.url, () => server.stderr(), profile, server);
  return handshake(wire, `http handshake failed (flags ${JSON.stringify(flags)})`);
}

/** Spawns the server with `--http 0`, waits for its URL, and performs the handshake. */
export const connectHttp: Connect = (flags = []) => openHttp(flags, PLAIN_CLIENT);

/** Spawns `serve --http 0 [flags]`, waits for its URL, and performs the handshake with the given capabilities. */
export const connectInteractiveHttp: ConnectInteractive = (options = {}) =>
  openHttp([...(options.flags ?? [])], interactiveClient(options.capabilities));

/** Options of the attach functions that begin a session. */
export interface AttachOptions {
  /** Sent as `Authorization: Bearer <token>` on every request, initialize included. */
  readonly bearerToken?: string;
  /**
   * Runs once when the wire is closed (after the session's DELETE), also when the handshake fails:
   * e.g. stops the server processes behind `url` that the caller started for this wire alone.
   */
  readonly onClose?: () => Promise<void>;
}

function withToken(wire: HttpWire, bearerToken: string | undefined, onClose?: () => Promise<void>): HttpWire {
  wire.bearerToken = bearerToken;
  wire.afterClose = onClose;
  return wire;
}

/** A raw wire with its own HTTP session on a running server; performs the initialize handshake. */
export async function attachHttpWire(
  url: string,
  serverStderr: () => string = () => '',
  options: AttachOptions = {},
): Promise<Wire & { readonly sessionId: string | undefined }> {
  return handshake(withToken(new HttpWire(url, serverStderr, PLAIN_CLIENT), options.bearerToken, options.onClose), `raw http handshake against ${url} failed`);
}

/** A raw interactive wire with its own HTTP session on a running server: declares `capabilities` in initialize. */
export async function attachInteractiveHttpWire(
  url: string,
  serverStderr: () => string = () => '',
  capabilities?: Record<string, unknown>,
  options: AttachOptions = {},
): Promise<InteractiveWire & { readonly sessionId: string | undefined }> {
  return handshake(
    withToken(new HttpWire(url, serverStderr, interactiveClient(capabilities)), options.bearerToken, options.onClose),
    `interactive http handshake against ${url} failed`,
  );
}

/** Options of {@link attachHttpSession}. */
export interface AttachSessionOptions {
  /** Record server-to-client requests for the test to answer (true) or refuse them (false, default). */
  readonly interactive?: boolean;
  /** The stderr of the server behind `url`, for diagnostics. */
  readonly serverStderr?: () => string;
  /** Sent as `Authorization: Bearer <token>` on every request. */
  readonly bearerToken?: string;
}

/**
 * A raw wire that joins an EXISTING session (`sessionId`, obtained by initializing elsewhere, e.g. on
 * another node of a cluster) at `url`: no initialize; every request carries that mcp-session-id.
 * Closing it does not end the session (no DELETE): the session belongs to the wire that created it.
 * A request the server answers with an id-less JSON-RPC error (HTTP 404 "Session not found": the
 * server does not know the session) fails at once with that error.
 */
export function attachHttpSession(
  url: string,
  sessionId: string,
  options: AttachSessionOptions = {},
): InteractiveWire & { readonly sessionId: string | undefined } {
  const profile = options.interactive === true ? interactiveClient() : PLAIN_CLIENT;
  const wire = withToken(new HttpWire(url, options.serverStderr ?? (() => ''), profile), options.bearerToken);
  wire.sessionId = sessionId;
  wire.deleteSessionOnClose = false;
  wire.failOnNullIdError = true;
  return wire;
}
