/**
 * A raw JSON-RPC {@link Wire} over Streamable HTTP that attaches to an already running
 * server URL (it does not own the process), so several requesters, raw and SDK, can share
 * one `serve --http 0` process. Same conventions as http-wire.ts: raw fetch POSTs, replies
 * read as JSON or incrementally as SSE, one HTTP session (mcp-session-id) per wire.
 */
import { PROTOCOL_VERSION, WireCore, type JsonRpcId, type Wire } from './wire.js';

class AttachedHttpWire extends WireCore {
  readonly transport = 'http' as const;
  sessionId: string | undefined;
  private readonly controllers = new Set<AbortController>();

  constructor(
    readonly url: string,
    private readonly serverStderr: () => string,
  ) {
    super();
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
    return this.serverStderr();
  }

  /** Ends the session (DELETE) and aborts pending POSTs; the server process is left running. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('wire closed'));
    for (const controller of this.controllers) controller.abort();
    this.controllers.clear();
    if (this.sessionId !== undefined) {
      try {
        const res = await fetch(this.url, { method: 'DELETE', headers: this.headers(), signal: AbortSignal.timeout(1_000) });
        await res.body?.cancel();
      } catch {
        // best effort
      }
    }
  }
}

/** A raw wire with its own HTTP session on a running server; performs the initialize handshake. */
export async function attachHttpWire(url: string, serverStderr: () => string = () => ''): Promise<Wire & { readonly sessionId: string | undefined }> {
  const wire = new AttachedHttpWire(url, serverStderr);
  try {
    await wire.handshake();
    if (wire.sessionId === undefined) throw new Error('initialize response carried no mcp-session-id header');
  } catch (error) {
    await wire.close();
    throw new Error(
      `raw http handshake against ${url} failed: ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${serverStderr().slice(-4000)}`,
    );
  }
  return wire;
}
