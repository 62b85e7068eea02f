/**
 * The SDK v1 stdio transport of `mcp-tasks serve --stdio`: {@link JsonRpcLineTransport} (bad input
 * answered, not dropped) with SDK v1's message check, and the 2026-07-28 wire answered beside the
 * SDK. `checkMessage` also serves the HTTP endpoint's check of a single message.
 *
 * @module
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RequestMetaKey, type StatelessHandler } from '../wire/stateless/index.js';
import { checkMessageWith, JsonRpcLineTransport, readLineWith, type MessageParser } from '../wire/json-rpc-lines.js';

/** SDK v1's check of one message. */
const parseV1: MessageParser<JSONRPCMessage> = (value) => {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? { message: parsed.data } : { issue: parsed.error.issues[0] };
};

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
  return checkMessageWith(parseV1, value) as { message: JSONRPCMessage } | { reply: JSONRPCMessage } | null;
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
  return readLineWith(parseV1, line) as { message: JSONRPCMessage } | { reply: JSONRPCMessage } | null;
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
export class JsonRpcStdioTransport extends JsonRpcLineTransport<JSONRPCMessage> implements Transport {
  readonly #stateless: StatelessHandler | undefined;
  /** Aborted on close: ends the stateless wire's subscription streams. */
  readonly #closing = new AbortController();

  /**
   * @param stdin - where requests come from
   * @param stdout - where answers go
   * @param options - line limit, the 2026-07-28 wire
   */
  constructor(
    stdin: NodeJS.ReadableStream = process.stdin,
    stdout: NodeJS.WritableStream = process.stdout,
    options: JsonRpcStdioTransportOptions = {},
  ) {
    super(stdin, stdout, { parse: parseV1, ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }) });
    this.#stateless = options.stateless;
  }

  protected override deliver(message: JSONRPCMessage): void {
    if (this.#stateless && isStatelessRequest(message)) return void this.#answerStateless(this.#stateless, message);
    super.deliver(message);
  }

  /** One request of the 2026-07-28 wire: its answer, or (subscriptions/listen) its stream of messages, one per line. */
  async #answerStateless(stateless: StatelessHandler, message: { id: string | number; method: string; params?: unknown }): Promise<void> {
    const reply = await stateless(message, { principal: null, connection: this.sessionId, signal: this.#closing.signal });
    if ('body' in reply) return this.send(reply.body as JSONRPCMessage);
    await reply.stream((m) => void this.send(m as JSONRPCMessage), this.#closing.signal);
  }

  override async close(): Promise<void> {
    this.#closing.abort();
    await super.close();
  }
}
