/**
 * Wire over Streamable HTTP: spawns `node dist/adapters/cli/main.js serve --http 0 [flags]`,
 * reads the `http://127.0.0.1:<port>/mcp` line from stderr, and talks to it with raw
 * fetch POSTs. Replies may be `application/json` or an SSE stream; SSE streams are read
 * incrementally so notifications (e.g. notifications/tasks/created) are recorded as
 * they arrive, before the response that ends the stream.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  CLI_PATH,
  PROTOCOL_VERSION,
  REPO_ROOT,
  TailBuffer,
  WireCore,
  assertCliBuilt,
  killChild,
  trackChild,
  type JsonRpcId,
  type Wire,
} from './wire.js';

const URL_PATTERN = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const STARTUP_TIMEOUT_MS = 10_000;

class HttpWire extends WireCore {
  readonly transport = 'http' as const;
  sessionId: string | undefined;
  private readonly controllers = new Set<AbortController>();

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly stderrTail: TailBuffer,
    readonly url: string,
  ) {
    super();
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
        if (sid === null || sid === '') {
          this.violation('http: initialize response carries no mcp-session-id header');
        } else {
          this.sessionId = sid;
        }
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
    const flushEvents = (): void => {
      buffer = buffer.replace(/\r\n/g, '\n');
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const dataLines = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''));
        if (dataLines.length === 0) continue;
        const data = dataLines.join('\n');
        if (data.trim() === '') continue; // priming event
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
      flushEvents();
    }
    buffer += decoder.decode();
    if (buffer.trim() !== '') buffer += '\n\n';
    flushEvents();
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
        const res = await fetch(this.url, {
          method: 'DELETE',
          headers: this.headers(),
          signal: AbortSignal.timeout(1_000),
        });
        await res.body?.cancel();
      } catch {
        // best effort
      }
    }
    await killChild(this.child);
  }
}

/** Spawns the server with `--http 0`, waits for its URL, and performs the handshake. */
export async function connectHttp(flags: string[] = []): Promise<Wire> {
  assertCliBuilt();
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--http', '0', ...flags], {
    cwd: REPO_ROOT,
    env: { ...process.env },
  });
  trackChild(child);
  const stderrTail = new TailBuffer();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => stderrTail.append(chunk));
  child.stdout.on('data', () => {
    // Logs belong on stderr; stdout is ignored for HTTP.
  });

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`server did not print its http://127.0.0.1:<port>/mcp URL within ${STARTUP_TIMEOUT_MS} ms`));
      }, STARTUP_TIMEOUT_MS);
      const onData = (chunk: string): void => {
        seen += chunk;
        const match = URL_PATTERN.exec(seen);
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
    });
  } catch (error) {
    await killChild(child);
    throw new Error(
      `http startup failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${stderrTail.toString().slice(-4000)}`,
    );
  }
  const wire = new HttpWire(child, stderrTail, url);
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
}
