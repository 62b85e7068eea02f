/**
 * The soak's requester side of the wire: one MCP session over Streamable HTTP made of raw
 * JSON-RPC POSTs (an SDK `Client` per requester would weigh more than the server side being
 * measured, in the same heap). Plain `node:http` with an agent per session rather than `fetch`:
 * `fetch` shares one connection pool among all requesters in the process, in which requests
 * were seen waiting seconds before they reached the server. Replies are read as SSE or JSON, whichever the server sends; notifications on a
 * request's own stream (SEP-1686's `notifications/tasks/created`) are handed to the caller.
 *
 * @module
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';

/** The protocol version the soak's requesters announce (the task methods of both dialects work in it). */
const PROTOCOL_VERSION = '2025-11-25';

/** A JSON-RPC error as it came over the wire. */
export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The answer to one request: a result or an error, never both. */
export type RpcReply = { readonly result: Record<string, unknown> } | { readonly error: RpcError };

type Message = Record<string, unknown>;

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The reply among the messages, if this one is it; notifications go to `onNotification`. */
function sortMessage(message: unknown, id: number, onNotification: ((n: Message) => void) | undefined): RpcReply | undefined {
  if (!isObject(message)) return undefined;
  if (typeof message['method'] === 'string' && !('id' in message)) {
    onNotification?.(message);
    return undefined;
  }
  if (message['id'] !== id && message['id'] !== null) return undefined;
  if (isObject(message['error'])) return { error: message['error'] as unknown as RpcError };
  if (isObject(message['result'])) return { result: message['result'] };
  return undefined;
}

/** Reads an SSE body to its end and returns the reply to request `id` (the stream ends with it). */
async function readSse(body: AsyncIterable<Buffer>, id: number, onNotification?: (n: Message) => void): Promise<RpcReply | undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let reply: RpcReply | undefined;
  const flush = (): void => {
    buffer = buffer.replace(/\r\n/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data.trim() !== '') reply ??= sortMessage(JSON.parse(data), id, onNotification);
    }
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    flush();
  }
  buffer += `${decoder.decode()}\n\n`;
  flush();
  return reply;
}

/** Reads a whole body as text. */
async function readText(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One MCP session (one `mcp-session-id`) at an endpoint, as a requester holds it: its own
 * keep-alive connections (its own `http.Agent`), as a separate client process would have.
 *
 * @example
 * ```ts
 * const session = await SoakSession.open('http://127.0.0.1:3000/mcp', signal);
 * const reply = await session.request('tasks/get', { taskId });
 * await session.close();
 * ```
 */
export class SoakSession {
  readonly url: string;
  readonly #signal: AbortSignal;
  readonly #agent = new Agent({ keepAlive: true });
  #sessionId: string | undefined;
  #nextId = 1;
  /** Requests sent again because their kept-alive socket had just been closed by the server. */
  staleSockets = 0;

  private constructor(url: string, signal: AbortSignal) {
    this.url = url;
    this.#signal = signal;
  }

  /**
   * Opens a session: `initialize` (no client capabilities: the soak's tools ask nothing back) and
   * `notifications/initialized`.
   *
   * @param url - the endpoint's `/mcp` URL (loopback)
   * @param signal - aborts every request of the session (the soak's overall timeout)
   * @throws Error when the server refuses the handshake or gives no session id
   */
  static async open(url: string, signal: AbortSignal): Promise<SoakSession> {
    const session = new SoakSession(url, signal);
    const reply = await session.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'soak-requester', version: '1.0.0' } });
    if ('error' in reply || session.#sessionId === undefined) throw new Error(`initialize at ${url} failed: ${JSON.stringify(reply)}`);
    const res = await session.#send('POST', { jsonrpc: '2.0', method: 'notifications/initialized' });
    res.resume();
    return session;
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.#sessionId !== undefined) Object.assign(headers, { 'mcp-session-id': this.#sessionId, 'mcp-protocol-version': PROTOCOL_VERSION });
    return headers;
  }

  /**
   * One HTTP exchange; resolves with the response once its headers are in. A kept-alive socket
   * the server closed just as the request went out (its keep-alive timeout, reached late on a
   * busy event loop) fails with ECONNRESET before the server read anything: sent again on a
   * fresh socket, as the Node.js docs advise for `req.reusedSocket`, and counted.
   */
  async #send(method: 'POST' | 'DELETE', message?: Message): Promise<IncomingMessage> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await new Promise<IncomingMessage>((resolve, reject) => {
          const req = httpRequest(this.url, { method, headers: this.#headers(), agent: this.#agent, signal: this.#signal }, resolve);
          req.once('error', (error: NodeJS.ErrnoException) => reject(req.reusedSocket && error.code === 'ECONNRESET' && attempt < 3 ? new StaleSocket() : error));
          req.end(message === undefined ? undefined : JSON.stringify(message));
        });
      } catch (error) {
        if (!(error instanceof StaleSocket)) throw error;
        this.staleSockets++;
      }
    }
  }

  /**
   * Sends one request and waits for its reply. A reply that is not JSON-RPC at all (an HTTP error
   * page, a stream that ended without an answer) throws: the soak counts it as a failure.
   *
   * @param onNotification - receives notifications that travel on this request's stream
   * @throws Error when no JSON-RPC reply came back
   */
  async request(method: string, params: Record<string, unknown>, onNotification?: (n: Message) => void): Promise<RpcReply> {
    const id = this.#nextId++;
    const res = await this.#send('POST', { jsonrpc: '2.0', id, method, params });
    if (method === 'initialize') this.#sessionId = header(res, 'mcp-session-id');
    const type = header(res, 'content-type') ?? '';
    let reply: RpcReply | undefined;
    if (type.includes('text/event-stream')) reply = await readSse(res, id, onNotification);
    else if (type.includes('application/json')) reply = sortMessage(JSON.parse(await readText(res)), id, onNotification);
    else res.resume();
    if (reply === undefined) throw new Error(`${method}: HTTP ${res.statusCode ?? '?'} (${type || 'no content-type'}) carried no JSON-RPC reply`);
    return reply;
  }

  /** Ends the session (HTTP DELETE), as a client does when it is done, and its connections; best effort. */
  async close(): Promise<void> {
    if (this.#sessionId !== undefined) {
      const res = await this.#send('DELETE').catch(() => undefined);
      if (res) await readText(res).catch(() => undefined);
      this.#sessionId = undefined;
    }
    this.#agent.destroy();
  }
}

/** A request that failed on a reused socket before the server read it. */
class StaleSocket extends Error {}

function header(res: IncomingMessage, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
