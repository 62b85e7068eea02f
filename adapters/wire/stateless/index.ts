/**
 * The stateless 2026-07-28 wire with the `io.modelcontextprotocol/tasks` extension, served beside
 * the SDK's session-based wire on the same runtime.
 *
 * @example
 * ```ts
 * import { createStatelessHandler } from 'mcp-task-actors/adapters/mcp-server';
 * const stateless = createStatelessHandler({ runtime, info, tools });
 * ```
 *
 * @experimental
 * @module
 */
export { createStatelessHandler } from './stateless-handler.js';
export type { StatelessHandler, StatelessHandlerOptions, StatelessRequestContext } from './stateless-handler.js';
export { checkRoutingHeaders } from './headers.js';
export type { RequestHeaders } from './headers.js';
export { missingCapability, PROTOCOL_2026_07_28, readRequestMeta, RequestMetaKey, StatelessCode, StatelessError } from './wire.js';
export type { RequestMeta, StatelessReply } from './wire.js';
