/**
 * Newline-delimited JSON-RPC over stdin/stdout that answers bad input instead of dropping it: a
 * line that is not JSON gets -32700 (Parse error), a request that is not a valid JSON-RPC/MCP
 * message gets -32600 (Invalid Request) naming what was wrong, a batch gets -32600 (MCP has no
 * batches), a line longer than the limit gets -32600 and is skipped to its end. The SDK's own
 * stdio transport only reports such lines to `onerror`, so the requester would wait forever for an
 * answer.
 *
 * Lines are framed on the 0x0A byte and decoded only once complete: a read may end inside a
 * multi-byte UTF-8 character, and decoding each read on its own would turn it into U+FFFD.
 *
 * @module
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RequestMetaKey, type StatelessHandler } from '../mcp-server/stateless/index.js';

/** Longest line accepted by default, in bytes of UTF-8 (8 MiB). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
// Fatal, so a line that is not UTF-8 is refused instead of delivered with U+FFFD in it.
const utf8 = new TextDecoder('utf-8', { fatal: true });

const errorReply = (id: string | number | null, code: number, message: string): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, error: { code, message } }) as unknown as JSONRPCMessage;

/**
 * Checks a parsed JSON value as one MCP JSON-RPC message: the message to deliver, the error reply
 * it deserves (-32600, naming what was wrong), or `null` for a malformed notification, which
 * JSON-RPC says to drop silently.
 *
 * @example
 * ```ts
 * checkMessage({ jsonrpc: '2.0', id: 7, method: 'tasks/get', params: [] }); // { reply: { id: 7, error: { code: -32600, … } } }
 * ```
 */
export function checkMessage(value: unknown): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | null {
  if (Array.isArray(value)) return { reply: errorReply(null, -32600, 'Invalid Request: batches are not supported; send one message per line') };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const id = typeof record['id'] === 'string' || typeof record['id'] === 'number' ? record['id'] : null;
  // A malformed notification (no id) gets no answer, as JSON-RPC says; anything with an id does.
  if (id === null && typeof record['method'] === 'string') return null;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  const params = record['params'];
  const badParams = typeof record['method'] === 'string' && params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params));
  const why = badParams ? 'params must be an object' : `${issue?.message ?? 'not a JSON-RPC 2.0 message'}${where}`;
  return { reply: errorReply(id, -32600, `Invalid Request: ${why}`) };
}

/**
 * What to answer for one line, or the message to deliver.
 *
 * @example
 * ```ts
 * readLine('not json'); // { reply: { jsonrpc: '2.0', id: null, error: { code: -32700, … } } }
 * ```
 */
export function readLine(line: string): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { reply: errorReply(null, -32700, `Parse error: ${error instanceof Error ? error.message : 'invalid JSON'}`) };
  }
  return checkMessage(value);
}

/** Options of {@link JsonRpcStdioTransport}. */
export interface JsonRpcStdioTransportOptions {
  /**
   * Longest line accepted, in bytes of UTF-8 (without its newline); a longer one is answered with
   * -32600 and skipped.
   * @default 8_388_608 (8 MiB)
   */
  readonly maxLineBytes?: number;
  /**
   * Answers the requests of the 2026-07-28 wire (those whose `_meta` names a protocol version)
   * here, ahead of the SDK, which cannot serve that wire: the stdio twin of the HTTP endpoint's
   * stateless dispatch. Without it, they go to the SDK like any other message.
   */
  readonly stateless?: StatelessHandler;
}

/** Whether a message is a request of the 2026-07-28 wire: its own `_meta` names the protocol version. */
function isStatelessRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number; method: string; params?: Record<string, unknown> } {
  const m = message as { id?: unknown; method?: unknown; params?: { _meta?: unknown } };
  if (m.id === undefined || typeof m.method !== 'string') return false;
  const meta = m.params?._meta;
  return typeof meta === 'object' && meta !== null && RequestMetaKey.protocolVersion in meta;
}

/**
 * The stdio transport of `mcp-tasks serve --stdio`.
 *
 * @example
 * ```ts
 * await server.connect(new JsonRpcStdioTransport());
 * ```
 */
export class JsonRpcStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Bytes of the line being read, kept as the chunks they came in (no copy until it ends). */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** True while the rest of an oversized line is being thrown away. */
  #skipping = false;
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #maxLineBytes: number;
  readonly #stateless: StatelessHandler | undefined;
  /** Aborted on close: ends the stateless wire's subscription streams. */
  readonly #closing = new AbortController();

  /**
   * @param stdin - where requests come from
   * @param stdout - where answers go
   * @param options - line limit
   */
  constructor(
    stdin: NodeJS.ReadableStream = process.stdin,
    stdout: NodeJS.WritableStream = process.stdout,
    options: JsonRpcStdioTransportOptions = {},
  ) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#stateless = options.stateless;
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let end: number;
    while ((end = data.indexOf(NEWLINE, start)) >= 0) {
      this.#append(data.subarray(start, end));
      const skipped = this.#skipping;
      const parts = this.#parts;
      this.#parts = [];
      this.#partBytes = 0;
      this.#skipping = false;
      if (!skipped) this.#line(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      start = end + 1;
    }
    if (start < data.length) this.#append(data.subarray(start));
  };

  /** Adds bytes to the current line, or refuses the line once it outgrows the limit. */
  #append(bytes: Buffer): void {
    if (this.#skipping || bytes.length === 0) return;
    this.#partBytes += bytes.length;
    // A "\r" that ends the line is not part of it; count it only once more bytes follow.
    const counted = bytes[bytes.length - 1] === CARRIAGE_RETURN ? this.#partBytes - 1 : this.#partBytes;
    if (counted > this.#maxLineBytes) {
      this.#parts = [];
      this.#partBytes = 0;
      this.#skipping = true;
      void this.send(errorReply(null, -32600, `Invalid Request: line longer than ${this.#maxLineBytes} bytes`));
      return;
    }
    this.#parts.push(bytes);
  }

  #line(bytes: Buffer): void {
    const body = bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.subarray(0, -1) : bytes;
    let line: string;
    try {
      line = utf8.decode(body);
    } catch {
      this.#refuse(errorReply(null, -32700, 'Parse error: the line is not valid UTF-8'));
      return;
    }
    if (line.trim() !== '') this.#handle(line);
  }

  readonly #onEnd = (): void => {
    this.onclose?.();
  };

  #handle(line: string): void {
    const read = readLine(line);
    if (read === null) return;
    if ('reply' in read) {
      this.#refuse(read.reply);
      return;
    }
    if (this.#stateless && isStatelessRequest(read.message)) return void this.#answerStateless(this.#stateless, read.message);
    this.onmessage?.(read.message);
  }

  /** One request of the 2026-07-28 wire: its answer, or (subscriptions/listen) its stream of messages, one per line. */
  async #answerStateless(stateless: StatelessHandler, message: { id: string | number; method: string; params?: unknown }): Promise<void> {
    const reply = await stateless(message, { principal: null, signal: this.#closing.signal });
    if ('body' in reply) return this.send(reply.body as JSONRPCMessage);
    await reply.stream((m) => void this.send(m as JSONRPCMessage), this.#closing.signal);
  }

  #refuse(reply: JSONRPCMessage): void {
    this.onerror?.(new Error(`Refused input: ${JSON.stringify(reply)}`));
    void this.send(reply);
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const text = `${JSON.stringify(message)}\n`;
    if (!this.#stdout.write(text)) await new Promise<void>((resolve) => this.#stdout.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.#closing.abort();
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.onclose?.();
  }
}
