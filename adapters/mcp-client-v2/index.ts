/**
 * Tasks for an SDK v2 client (`@modelcontextprotocol/client` 2.x): host client-side tasks
 * (sampling, elicitation) with `attachTaskHostV2`; drive a server's tasks with `TaskClientV2` in
 * any of our dialects (SEP-1686, 2025-11-25, and the tasks extension on 2026-07-28, whose task
 * traffic goes through `createRawDispatch` since the v2 `Client` refuses `resultType: "task"`).
 * The official requester `@modelcontextprotocol/ext-tasks` works on 2026-07-28 with the same
 * `createRawDispatch`. Nothing here loads the SDK itself: it works on the `Client` you pass (its
 * types come from `@modelcontextprotocol/client`).
 *
 * @example
 * ```ts
 * import { attachTaskHostV2, createRawDispatch, TaskClientV2 } from 'mcp-task-actors/adapters/mcp-client-v2';
 * attachTaskHostV2(client, { runtime, elicitation: askTheUser });
 * const tasks = new TaskClientV2(client, { dialect: '2026-07-28', rawDispatch: createRawDispatch(url), onInputRequest });
 * ```
 *
 * @module
 */
export { attachTaskHostV2 } from './task-host-v2.js';
export { TaskClientV2 } from './task-client-v2.js';
export type { InputRequestHandler, TaskClientOptions } from '../wire/task-client.types.js';
export type { RawDispatch } from '../wire/task-client.ext-peer.js';
export type { TaskCall, TaskUpdate, CallOptions, CallStart, CallDialect, DialectChoice, TaskRefOptions } from '../wire/task-call.types.js';
export { TaskCancelledError, TaskClientError, TaskClientErrorCode, TaskFailedError, TaskProtocolError, isTaskClientError } from '../wire/task-client.errors.js';
export type { TaskHostV2Options } from './task-host-v2.js';
export { createRawDispatch } from './raw-dispatch.js';
export type { RawDispatchCall, RawDispatchOptions, RawResponse } from './raw-dispatch.js';
