/**
 * The one SDK v2 internal this project reaches: `_wrapHandler` of a `Server` or a `Client`, the
 * hook through which the SDK checks a request's result (and refuses a task as the result of
 * `tools/call`, `elicitation/create` or `sampling/createMessage`). Reached only here, and checked
 * when a server or client is attached, so that a changed SDK fails at start-up, named. SDK-free
 * itself (no import of either package), so the server and client adapters share it.
 *
 * @module
 */
/** A handler as the SDK wraps it; `Ctx` is the SDK's handler context (`ServerContext`, `ClientContext`). */
export type WrappedHandler<Ctx = never> = (request: unknown, ctx: Ctx) => Promise<unknown>;

/** The SDK v2 internals used, with why (see `SDK_INTERNALS` for the v1 ones). */
export const V2_SDK_INTERNALS = [
  {
    owner: 'Server, Client',
    name: '_wrapHandler',
    kind: 'function',
    why: 'answers a task-augmented request (tools/call, prompts/get, resources/read; elicitation/create, sampling/createMessage) with a task, ahead of the result checks that refuse one',
  },
  {
    owner: 'Server, Client',
    name: '_getRequestHandler',
    kind: 'function',
    why: "the McpServer's own tools/prompts/resources handlers are kept for its plain ones when the task ones are installed over them; a TaskClientV2 keeps the client's own elicitation/sampling handlers as the fallback of its per-call input routes",
  },
  { owner: 'McpServer', name: '_registeredTools', kind: 'object', why: 'a task tool whose name the McpServer already serves is refused at attach time, naming it' },
  { owner: 'McpServer', name: '_registeredPrompts', kind: 'object', why: 'a task prompt whose name the McpServer already serves is refused at attach time, naming it' },
  { owner: 'McpServer', name: '_registeredResources', kind: 'object', why: 'a task resource whose URI the McpServer already serves is refused at attach time, naming it' },
  { owner: 'McpServer', name: 'setToolRequestHandlers', kind: 'function', why: "the McpServer's own tools/* handlers are installed before the task ones, which keep them" },
  { owner: 'McpServer', name: 'setPromptRequestHandlers', kind: 'function', why: "the McpServer's own prompts/* handlers are installed before the task ones, which keep them" },
  { owner: 'McpServer', name: 'setResourceRequestHandlers', kind: 'function', why: "the McpServer's own resources/* handlers are installed before the task ones, which keep them" },
] as const;

type V2InternalName = (typeof V2_SDK_INTERNALS)[number]['name'];

/** The field `name` of `peer`, which must be of its listed kind. @throws Error naming the field and the package */
function readV2Field(peer: object, name: V2InternalName, sdk = '@modelcontextprotocol/server'): unknown {
  const spec = V2_SDK_INTERNALS.find((f) => f.name === name)!;
  const value: unknown = Reflect.get(peer, name);
  const kind = value === null ? 'null' : typeof value;
  if (kind !== spec.kind) {
    throw new Error(
      `${sdk}: ${peer.constructor.name}.${name} is ${kind}, expected ${spec.kind}. This SDK version changed an internal that mcp-task-actors relies on (${spec.why}); install ${sdk} within mcp-task-actors' peer dependency range.`,
    );
  }
  return value;
}

/** The three kinds an `McpServer` registers, and the internals that hold each. */
const MCP_KINDS = {
  tools: { registered: '_registeredTools', install: 'setToolRequestHandlers' },
  prompts: { registered: '_registeredPrompts', install: 'setPromptRequestHandlers' },
  resources: { registered: '_registeredResources', install: 'setResourceRequestHandlers' },
} as const satisfies Record<string, { registered: V2InternalName; install: V2InternalName }>;

/**
 * The names (resources: URIs) registered on a v2 `McpServer` for one kind.
 *
 * @throws Error naming the field when the SDK changed it
 * @example
 * ```ts
 * registeredNames(mcp, 'tools'); // ['ping']
 * ```
 */
export function registeredNames(mcp: object, kind: keyof typeof MCP_KINDS): string[] {
  return Object.keys(readV2Field(mcp, MCP_KINDS[kind].registered) as object);
}

/**
 * Whether a v2 `McpServer` has `name` registered for one kind now (it may register more at any time).
 *
 * @throws Error naming the field when the SDK changed it
 * @example
 * ```ts
 * isRegistered(mcp, 'tools', 'ping'); // true
 * ```
 */
export function isRegistered(mcp: object, kind: keyof typeof MCP_KINDS, name: string): boolean {
  return Object.hasOwn(readV2Field(mcp, MCP_KINDS[kind].registered) as object, name);
}

/**
 * Makes a v2 `McpServer` install its own handlers of one kind now (it does so once, at its first
 * registration of that kind, and would throw if another handler held the method by then), and
 * returns what it installed for `methods`, as the SDK holds them.
 *
 * @throws Error naming the field when the SDK changed it
 * @example
 * ```ts
 * const [list, call] = installedMcpHandlers(mcp, mcp.server, 'tools', ['tools/list', 'tools/call']);
 * ```
 */
export function installedMcpHandlers<Ctx>(mcp: object, server: object, kind: keyof typeof MCP_KINDS, methods: readonly string[]): WrappedHandler<Ctx>[] {
  (readV2Field(mcp, MCP_KINDS[kind].install) as (this: object) => void).call(mcp);
  const get = readV2Field(server, '_getRequestHandler') as (this: object, method: string) => unknown;
  return methods.map((method) => {
    const handler = get.call(server, method);
    if (typeof handler !== 'function') throw new Error(`@modelcontextprotocol/server: the McpServer installed no ${method} handler; install @modelcontextprotocol/server within mcp-task-actors' peer dependency range.`);
    return handler as WrappedHandler<Ctx>;
  });
}

/**
 * Wraps every request handler the server installs from now on: `wrap` gets the method, the
 * handler as the SDK would run it, and returns the handler to run instead.
 *
 * @param sdk - the package `peer` comes from, named when the hook is missing
 * @throws Error naming the package and the field when the SDK has no such hook
 * @example
 * ```ts
 * interceptHandlers(server, (method, sdkHandler) => (request, ctx) => sdkHandler(request, ctx));
 * ```
 */
export function interceptHandlers<Ctx>(peer: object, wrap: (method: string, sdkHandler: WrappedHandler<Ctx>) => WrappedHandler<Ctx>, sdk = '@modelcontextprotocol/server'): void {
  const hook = peer as { _wrapHandler?: (method: string, handler: WrappedHandler<Ctx>) => WrappedHandler<Ctx> };
  const sdkWrap = hook._wrapHandler;
  if (typeof sdkWrap !== 'function') {
    const [field] = V2_SDK_INTERNALS;
    throw new Error(
      `${sdk}: ${peer.constructor.name}.${field.name} is ${typeof sdkWrap}, expected a function. This SDK version changed an internal that mcp-task-actors relies on (${field.why}); install ${sdk} within mcp-task-actors' peer dependency range.`,
    );
  }
  hook._wrapHandler = (method, handler) => wrap(method, sdkWrap.call(peer, method, handler));
}

/**
 * The handler a v2 peer (`Client` or `Server`) holds for `method` as the SDK stored it, or
 * `undefined` when there is none.
 *
 * @example
 * ```ts
 * const before = storedRequestHandler(client, 'elicitation/create');
 * ```
 */
export function storedRequestHandler<Ctx>(peer: object, method: string, sdk = '@modelcontextprotocol/client'): WrappedHandler<Ctx> | undefined {
  const read = readV2Field(peer, '_getRequestHandler', sdk) as (this: object, method: string) => WrappedHandler<Ctx> | undefined;
  return read.call(peer, method);
}
