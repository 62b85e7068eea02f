/**
 * Newline-delimited JSON-RPC over a pair of streams that answers bad input instead of dropping it,
 * for either SDK: the caller brings the SDK's own message check ({@link MessageParser}), so a
 * valid message is delivered exactly as that SDK reads it. A line that is not JSON gets -32700
 * (Parse error), a message that is not a valid JSON-RPC/MCP message gets -32600 (Invalid Request)
 * naming what was wrong, a batch gets -32600 (MCP has no batches), a line longer than the limit
 * gets -32600 and is skipped to its end. The SDKs' own stdio transports only report such lines to
 * `onerror` (SDK v2 drops unparsable ones unseen), so the requester would wait forever for an answer.
 *
 * Lines are framed on the 0x0A byte and decoded only once complete: a read may end inside a
 * multi-byte UTF-8 character, and decoding each read on its own would turn it into U+FFFD.
 *
 * This module imports no SDK: `serve --sdk v2` uses it without `@modelcontextprotocol/sdk` installed.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

/** The error reply to a refused message. */
export interface JsonRpcErrorReply {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly error: { readonly code: number; readonly message: string };
}

/** What an SDK's schema says of one parsed JSON value: the message, or its first issue. */
export type MessageParser<M> = (value: unknown) => { message: M } | { issue: { message: string; path: readonly PropertyKey[] } | undefined };

/** Longest line accepted by default, in bytes of UTF-8 (8 MiB). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
// Fatal, so a line that is not UTF-8 is refused instead of delivered with U+FFFD in it.
const utf8 = new TextDecoder('utf-8', { fatal: true });

const errorReply = (id: string | number | null, code: number, message: string): JsonRpcErrorReply => ({ jsonrpc: '2.0', id, error: { code, message } });

/**
 * Checks a parsed JSON value as one MCP JSON-RPC message: the message to deliver, the error reply
 * it deserves (-32600, naming what was wrong), or `null` for a malformed notification, which
 * JSON-RPC says to drop silently.
 *
 * @param parse - the SDK's check of one message
 * @param value - the parsed JSON
 * @example
 * ```ts
 * checkMessageWith(parse, { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: [] }); // { reply: { id: 7, error: { code: -32600, … } } }
 * ```
 */
export function checkMessageWith<M>(parse: MessageParser<M>, value: unknown): { message: M } | { reply: JsonRpcErrorReply } | null {
  if (Array.isArray(value)) return { reply: errorReply(null, -32600, 'Invalid Request: batches are not supported; send one message per line') };
  const parsed = parse(value);
  if ('message' in parsed) return parsed;
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const id = typeof record['id'] === 'string' || typeof record['id'] === 'number' ? record['id'] : null;
  // A malformed notification (no id at all) gets no answer, as JSON-RPC says; anything with an id
  // does, an id that is not a string or number being answered with id null.
  if (!('id' in record) && typeof record['method'] === 'string') return null;
  const { issue } = parsed;
  const where = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
  const params = record['params'];
  const badParams = typeof record['method'] === 'string' && params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params));
  const why = badParams ? 'params must be an object' : `${issue?.message ?? 'not a JSON-RPC 2.0 message'}${where}`;
  return { reply: errorReply(id, -32600, `Invalid Request: ${why}`) };
}

/**
 * What to answer for one line, or the message to deliver.
 *
 * @param parse - the SDK's check of one message
 * @param line - one line of input, without its newline
 * @example
 * ```ts
 * readLineWith(parse, 'not json'); // { reply: { jsonrpc: '2.0', id: null, error: { code: -32700, … } } }
 * ```
 */
export function readLineWith<M>(parse: MessageParser<M>, line: string): { message: M } | { reply: JsonRpcErrorReply } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { reply: errorReply(null, -32700, `Parse error: ${error instanceof Error ? error.message : 'invalid JSON'}`) };
  }
  return checkMessageWith(parse, value);
}

/** Options of {@link JsonRpcLineTransport}. */
export interface JsonRpcLineTransportOptions<M> {
  /** The SDK's check of one message: what it accepts is delivered, what it refuses is answered. */
  readonly parse: MessageParser<M>;
  /**
   * Longest line accepted, in bytes of UTF-8 (without its newline); a longer one is answered with
   * -32600 and skipped.
   * @default 8_388_608 (8 MiB)
   */
  readonly maxLineBytes?: number;
}

/**
 * A line-delimited JSON-RPC transport, in the shape both SDKs' `Transport` has.
 *
 * @example
 * ```ts
 * serveStdio(factory, { transport: new JsonRpcLineTransport(process.stdin, process.stdout, { parse }) });
 * ```
 */
export class JsonRpcLineTransport<M> {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: M) => void;
  /**
   * This connection's own id, which the SDK hands request handlers as the session: the requester
   * at the other end of the pipe owns what it creates, on every backend. Without it every stdio
   * user of one NATS task space would be the same owner and see each other's tasks.
   */
  readonly sessionId: string = randomUUID();
  /** Bytes of the line being read, kept as the chunks they came in (no copy until it ends). */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** True while the rest of an oversized line is being thrown away. */
  #skipping = false;
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #parse: MessageParser<M>;
  readonly #maxLineBytes: number;

  /**
   * @param stdin - where requests come from
   * @param stdout - where answers go
   * @param options - the message check and the line limit
   */
  constructor(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, options: JsonRpcLineTransportOptions<M>) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#parse = options.parse;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
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
      void this.#write(errorReply(null, -32600, `Invalid Request: line longer than ${this.#maxLineBytes} bytes`));
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
    if (line.trim() === '') return;
    const read = readLineWith(this.#parse, line);
    if (read === null) return;
    if ('reply' in read) this.#refuse(read.reply);
    else this.deliver(read.message);
  }

  /** Hands one valid message on; a subclass may answer some itself. */
  protected deliver(message: M): void {
    this.onmessage?.(message);
  }

  readonly #onEnd = (): void => {
    this.onclose?.();
  };

  #refuse(reply: JsonRpcErrorReply): void {
    this.onerror?.(new Error(`Refused input: ${JSON.stringify(reply)}`));
    void this.#write(reply);
  }

  async #write(message: unknown): Promise<void> {
    const text = `${JSON.stringify(message)}\n`;
    if (!this.#stdout.write(text)) await new Promise<void>((resolve) => this.#stdout.once('drain', resolve));
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
  }

  send(message: M): Promise<void> {
    return this.#write(message);
  }

  async close(): Promise<void> {
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.onclose?.();
  }
}
