/**
 * Tasks for an SDK v2 client (`@modelcontextprotocol/client` 2.x): host client-side tasks
 * (sampling, elicitation) with `attachTaskHostV2`; drive a server's tasks with `TaskClientV2`
 * (SEP-1686 and 2025-11-25), or on the 2026-07-28 wire with the official requester
 * `@modelcontextprotocol/ext-tasks`, given the raw request path it needs (`createRawDispatch`). Nothing here loads the SDK itself: it works on the
 * `Client` you pass (its types come from `@modelcontextprotocol/client`).
 *
 * @example
 * ```ts
 * import { attachTaskHostV2, createRawDispatch } from 'mcp-task-actors/adapters/mcp-client-v2';
 * attachTaskHostV2(client, { runtime, elicitation: askTheUser });
 * const tasks = createTaskSessionFromClient(client, { endpointId, rawDispatch: createRawDispatch(url), v2RequestFraming });
 * ```
 *
 * @module
 */
export { attachTaskHostV2 } from './task-host-v2.js';
export { TaskClientV2 } from './task-client-v2.js';
export type { TaskHostV2Options } from './task-host-v2.js';
export { createRawDispatch } from './raw-dispatch.js';
export type { RawDispatchCall, RawDispatchOptions, RawResponse } from './raw-dispatch.js';
