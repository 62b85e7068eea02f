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
] as const;

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
