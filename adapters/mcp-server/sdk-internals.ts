/**
 * Every private field of the MCP TypeScript SDK 1.x this project relies on, and the only code
 * that touches them.
 *
 * The SDK 1.x has no public way to resume a session on another node, to chain a notification
 * handler someone else installed, or to ask whether a request id is its own, so a few private
 * fields are read or written. A private field can be renamed in any release; reading one through
 * an ad hoc cast and falling back when it is missing would silently turn off cross-node relays
 * or let request ids collide. So each accessor here checks the field's kind on every use and
 * throws an {@link SdkInternalsError} naming the field, its class and the installed SDK version,
 * and `assertSdkInternals()` (in `./sdk-internals-check.ts`) checks them all at start-up.
 *
 * @module
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { installedSdkVersion } from './sdk-version.js';

/** The SDK class that declares a field (`Protocol` fields live on every `Server` and `Client`). */
export type SdkClass = 'Protocol' | 'Server' | 'McpServer' | 'StreamableHTTPServerTransport' | 'WebStandardStreamableHTTPServerTransport';

/** What a field holds; `?` marks one that is `undefined` until the SDK's own `initialize` sets it. */
export type SdkFieldKind = 'Map' | 'number' | 'boolean' | 'function' | 'object' | 'object?' | 'string?';

/** One private SDK field this project relies on. */
export interface SdkInternalField {
  readonly owner: SdkClass;
  readonly name: string;
  readonly kind: SdkFieldKind;
  /** What breaks without it. */
  readonly why: string;
}

/**
 * The private SDK fields this project relies on. A test checks each against the installed SDK,
 * and that no source file reaches an SDK field missing from this list.
 *
 * @example
 * ```ts
 * for (const f of SDK_INTERNALS) console.log(`${f.owner}.${f.name}: ${f.kind}`);
 * ```
 */
export const SDK_INTERNALS = [
  { owner: 'Protocol', name: '_requestMessageId', kind: 'number', why: 'request ids start at a random offset per node, so an answer relayed from another node cannot match the wrong request' },
  { owner: 'Protocol', name: '_responseHandlers', kind: 'Map', why: 'tells whether an answer from the client is for a request of this node or must be relayed' },
  { owner: 'Protocol', name: '_requestHandlerAbortControllers', kind: 'Map', why: 'tells whether a cancel from the client is for a request this node handles or must be relayed' },
  { owner: 'Protocol', name: '_notificationHandlers', kind: 'Map', why: 'a notifications/tasks/created handler installed before ours is kept and still called' },
  { owner: 'Protocol', name: '_requestHandlers', kind: 'Map', why: 'the fast lane answers a method only while the handler the SDK holds for it is still the one installed with it' },
  { owner: 'Protocol', name: '_oncancel', kind: 'function', why: "the SDK's own notifications/cancelled handling (aborting the request) still runs after ours" },
  { owner: 'Server', name: '_clientCapabilities', kind: 'object?', why: 'a session resumed from another node knows what its client supports' },
  { owner: 'Server', name: '_clientVersion', kind: 'object?', why: 'a session resumed from another node knows its client' },
  { owner: 'McpServer', name: '_registeredTools', kind: 'object', why: 'a task tool whose name the McpServer already serves is refused at attach time, naming it' },
  { owner: 'McpServer', name: '_registeredPrompts', kind: 'object', why: 'a task prompt whose name the McpServer already serves is refused at attach time, naming it' },
  { owner: 'McpServer', name: '_registeredResources', kind: 'object', why: 'a task resource whose URI the McpServer already serves is refused at attach time, naming it' },
  { owner: 'McpServer', name: 'setToolRequestHandlers', kind: 'function', why: "the McpServer's own tools/* handlers are installed before the task ones, which keep them for the user's plain tools" },
  { owner: 'McpServer', name: 'setPromptRequestHandlers', kind: 'function', why: "the McpServer's own prompts/* handlers are installed before the task ones, which keep them for the user's plain prompts" },
  { owner: 'McpServer', name: 'setResourceRequestHandlers', kind: 'function', why: "the McpServer's own resources/* handlers are installed before the task ones, which keep them for the user's plain resources" },
  { owner: 'StreamableHTTPServerTransport', name: '_webStandardTransport', kind: 'object', why: 'holds the session state a resumed session sets' },
  { owner: 'WebStandardStreamableHTTPServerTransport', name: '_initialized', kind: 'boolean', why: 'a resumed session accepts requests without its initialize' },
  // Public on the inner transport, but reachable only through the private field above.
  { owner: 'WebStandardStreamableHTTPServerTransport', name: 'sessionId', kind: 'string?', why: 'a resumed session answers to its id' },
] as const satisfies readonly SdkInternalField[];

/** The name of a field in {@link SDK_INTERNALS}. */
export type SdkInternalName = (typeof SDK_INTERNALS)[number]['name'];

/**
 * A private SDK field is missing or holds something else than this project expects: the
 * installed SDK changed its internals.
 *
 * @example
 * ```ts
 * if (error instanceof SdkInternalsError) console.error(error.field, error.sdkVersion);
 * ```
 */
export class SdkInternalsError extends Error {
  override readonly name = 'SdkInternalsError';
  /** The field, as `Class.name`. */
  readonly field: string;
  readonly sdkVersion: string;

  /** @param problem - what was found instead of the expected kind */
  constructor(spec: SdkInternalField, problem: string, options?: ErrorOptions) {
    const version = installedSdkVersion();
    super(
      `@modelcontextprotocol/sdk ${version}: private field ${spec.owner}.${spec.name} ${problem}, expected ${spec.kind}. ` +
        `This SDK version changed internals that mcp-task-actors relies on (${spec.why}); install a version within mcp-task-actors' @modelcontextprotocol/sdk dependency range.`,
      options,
    );
    this.field = `${spec.owner}.${spec.name}`;
    this.sdkVersion = version;
  }
}

/**
 * The value of field `name` of `instance`, checked against its listed kind.
 *
 * @throws SdkInternalsError when the field is missing or of another kind
 * @example
 * ```ts
 * const inner = readSdkField(transport, '_webStandardTransport');
 * ```
 */
export function readSdkField(instance: object, name: SdkInternalName): unknown {
  const spec = specOf(name);
  const value: unknown = Reflect.get(instance, name);
  if (!hasKind(value, spec.kind)) throw new SdkInternalsError(spec, `is ${describe(value)} on a ${instance.constructor.name}`);
  return value;
}

/**
 * Fails unless `check` holds: for the `?` kinds, which a renamed field passes (reading
 * `undefined`), the caller proves the field's meaning through a public getter instead.
 *
 * @throws SdkInternalsError when `check` is false
 * @example
 * ```ts
 * expectSdkMeaning('_clientVersion', server.getClientVersion() === info, 'is not what getClientVersion() returns');
 * ```
 */
export function expectSdkMeaning(name: SdkInternalName, check: boolean, problem: string): void {
  if (!check) throw new SdkInternalsError(specOf(name), problem);
}

/** The first request id the peer sends from now on. @throws SdkInternalsError @example `setNextRequestId(server, 7)` */
export function setNextRequestId(protocol: object, id: number): void {
  readSdkField(protocol, '_requestMessageId');
  Reflect.set(protocol, '_requestMessageId', id);
}

/** True when the peer waits for the answer to its request `id`. @throws SdkInternalsError @example `awaitsResponse(server, 7)` */
export function awaitsResponse(protocol: object, id: number): boolean {
  return (readSdkField(protocol, '_responseHandlers') as Map<unknown, unknown>).has(id);
}

/** True when the peer waits for an answer to any request it sent. @throws SdkInternalsError @example `awaitsAnyResponse(server)` */
export function awaitsAnyResponse(protocol: object): boolean {
  return (readSdkField(protocol, '_responseHandlers') as Map<unknown, unknown>).size > 0;
}

/** True when the peer is handling the incoming request `requestId`. @throws SdkInternalsError @example `isHandlingRequest(server, 3)` */
export function isHandlingRequest(protocol: object, requestId: unknown): boolean {
  return (readSdkField(protocol, '_requestHandlerAbortControllers') as Map<unknown, unknown>).has(requestId);
}

/**
 * The peer's request handlers by method, as the SDK holds them (what `setRequestHandler` stores,
 * wrappers included). @throws SdkInternalsError @example `requestHandlers(server).get('tasks/get')`
 */
export function requestHandlers(protocol: object): ReadonlyMap<string, unknown> {
  return readSdkField(protocol, '_requestHandlers') as ReadonlyMap<string, unknown>;
}

/** The raw handler installed on the peer for notification `method`, if any. @throws SdkInternalsError @example `notificationHandler(client, 'notifications/tasks/created')` */
export function notificationHandler(protocol: object, method: string): ((notification: unknown) => Promise<void>) | undefined {
  const handler: unknown = (readSdkField(protocol, '_notificationHandlers') as Map<string, unknown>).get(method);
  expectSdkMeaning('_notificationHandlers', handler === undefined || typeof handler === 'function', `holds ${describe(handler)} for ${method}`);
  return handler as ((notification: unknown) => Promise<void>) | undefined;
}

/** The SDK's own `notifications/cancelled` handling of the peer. @throws SdkInternalsError @example `await sdkCancelHandler(server)(notification)` */
export function sdkCancelHandler(protocol: object): (notification: unknown) => Promise<void> {
  const oncancel = readSdkField(protocol, '_oncancel') as (this: object, notification: unknown) => unknown;
  return async (notification) => {
    await oncancel.call(protocol, notification);
  };
}

/**
 * Gives `server` the client a session's `initialize` announced, as if it had answered it.
 *
 * @throws SdkInternalsError when the server's getters do not see what was set
 * @example
 * ```ts
 * restoreClientInfo(server, record.capabilities, record.clientInfo);
 * ```
 */
export function restoreClientInfo(server: Server, capabilities: Record<string, unknown>, clientInfo: Record<string, unknown> | null): void {
  readSdkField(server, '_clientCapabilities');
  Reflect.set(server, '_clientCapabilities', capabilities);
  expectSdkMeaning('_clientCapabilities', server.getClientCapabilities() === capabilities, 'is not what getClientCapabilities() returns');
  if (clientInfo === null) return;
  readSdkField(server, '_clientVersion');
  Reflect.set(server, '_clientVersion', clientInfo);
  expectSdkMeaning('_clientVersion', server.getClientVersion() === clientInfo, 'is not what getClientVersion() returns');
}

/**
 * Puts `transport` in the state its own `initialize` handling leaves it in, for `sessionId`.
 *
 * @throws SdkInternalsError when the transport's fields are not the expected ones
 * @example
 * ```ts
 * await server.connect(transport);
 * markSessionInitialized(transport, sessionId);
 * ```
 */
export function markSessionInitialized(transport: StreamableHTTPServerTransport, sessionId: string): void {
  const inner = readSdkField(transport, '_webStandardTransport') as object;
  readSdkField(inner, '_initialized');
  readSdkField(inner, 'sessionId');
  Reflect.set(inner, '_initialized', true);
  Reflect.set(inner, 'sessionId', sessionId);
  expectSdkMeaning('sessionId', transport.sessionId === sessionId, 'is not what the outer transport reports as its sessionId');
}

function specOf(name: SdkInternalName): SdkInternalField {
  return SDK_INTERNALS.find((f) => f.name === name) as SdkInternalField;
}

function hasKind(value: unknown, kind: SdkFieldKind): boolean {
  switch (kind) {
    case 'Map':
      return value instanceof Map;
    case 'object':
      return typeof value === 'object' && value !== null;
    case 'object?':
      return value === undefined || (typeof value === 'object' && value !== null);
    case 'string?':
      return value === undefined || typeof value === 'string';
    default:
      return typeof value === kind;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return typeof value === 'object' ? `an object of class ${value.constructor?.name ?? 'none'}` : `a ${typeof value}`;
}
