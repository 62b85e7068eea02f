/**
 * Tasks for an SDK v2 client (`@modelcontextprotocol/client` 2.x): drive tasks on any of our
 * dialects and host client-side tasks (sampling, elicitation). Needs the optional peer dependency
 * `@modelcontextprotocol/client`.
 *
 * @example
 * ```ts
 * import { createRawDispatch } from 'mcp-task-actors/adapters/mcp-client-v2';
 * const tasks = createTaskSessionFromClient(client, { endpointId, rawDispatch: createRawDispatch(url), v2RequestFraming });
 * ```
 *
 * @module
 */
export { createRawDispatch } from './raw-dispatch.js';
export type { RawDispatchCall, RawDispatchOptions, RawResponse } from './raw-dispatch.js';
