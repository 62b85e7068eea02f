/**
 * The one SDK v2 internal this project reaches: `Server._wrapHandler`, the hook through which the
 * SDK checks a request's result (and refuses a task as the result of `tools/call`). Reached only
 * here, and checked when a server is attached, so that a changed SDK fails at start-up, named.
 *
 * @module
 */
import type { Server, ServerContext } from '@modelcontextprotocol/server';

/** A handler as the SDK wraps it. */
export type WrappedHandler = (request: unknown, ctx: ServerContext) => Promise<unknown>;

/** The SDK v2 internals used, with why (see `SDK_INTERNALS` for the v1 ones). */
export const V2_SDK_INTERNALS = [
  {
    owner: 'Server',
    name: '_wrapHandler',
    kind: 'function',
    why: 'answers a task-augmented tools/call, prompts/get or resources/read with a task, ahead of the result checks that refuse one',
  },
] as const;

/**
 * Wraps every request handler the server installs from now on: `wrap` gets the method, the
 * handler as the SDK would run it, and returns the handler to run instead.
 *
 * @throws Error naming `@modelcontextprotocol/server` and the field when the SDK has no such hook
 * @example
 * ```ts
 * interceptHandlers(server, (method, sdkHandler) => (request, ctx) => sdkHandler(request, ctx));
 * ```
 */
export function interceptHandlers(server: Server, wrap: (method: string, sdkHandler: WrappedHandler) => WrappedHandler): void {
  const hook = server as unknown as { _wrapHandler?: (method: string, handler: WrappedHandler) => WrappedHandler };
  const sdkWrap = hook._wrapHandler;
  if (typeof sdkWrap !== 'function') {
    const [field] = V2_SDK_INTERNALS;
    throw new Error(
      `@modelcontextprotocol/server: Server.${field.name} is ${typeof sdkWrap}, expected a function. This SDK version changed an internal that mcp-task-actors relies on (${field.why}); install @modelcontextprotocol/server within mcp-task-actors' peer dependency range.`,
    );
  }
  hook._wrapHandler = (method, handler) => wrap(method, sdkWrap.call(server, method, handler));
}
