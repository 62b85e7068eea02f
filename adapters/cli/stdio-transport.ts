/**
 * Newline-delimited JSON-RPC over stdin/stdout that answers bad input instead of dropping it: a
 * line that is not JSON gets -32700 (Parse error), a request that is not a valid JSON-RPC/MCP
 * message gets -32600 (Invalid Request) naming what was wrong, a batch gets -32600 (MCP has no
 * batches). The SDK's own stdio transport only reports such lines to `onerror`, so the requester
 * would wait forever for an answer.
 *
 * @module
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Longest line accepted; a longer one is answered with an error and skipped. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

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
  #buffer = '';
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;

  constructor(stdin: NodeJS.ReadableStream = process.stdin, stdout: NodeJS.WritableStream = process.stdout) {
    this.#stdin = stdin;
    this.#stdout = stdout;
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#buffer += chunk.toString();
    let end: number;
    while ((end = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, end).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(end + 1);
      if (line.trim() !== '') this.#handle(line);
    }
    if (this.#buffer.length > MAX_LINE_BYTES) {
      this.#buffer = '';
      void this.send(errorReply(null, -32600, `Invalid Request: line longer than ${MAX_LINE_BYTES} bytes`));
    }
  };

  readonly #onEnd = (): void => {
    this.onclose?.();
  };

  #handle(line: string): void {
    const read = readLine(line);
    if (read === null) return;
    if ('reply' in read) {
      this.onerror?.(new Error(`Refused input: ${JSON.stringify(read.reply)}`));
      void this.send(read.reply);
      return;
    }
    this.onmessage?.(read.message);
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
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.onclose?.();
  }
}
