/**
 * Reading what SDK v2 tells a request handler: which era the request is on, who is asking, and
 * what its per-request envelope declares. The only place that knows the v2 context's shape.
 *
 * @module
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { TaskOwner } from '../../machines/index.js';
import type { TaskRuntime } from '../../runtime/index.js';
import type { ServedDefinitions } from '../wire/served-work.js';
import { ownerOf2026, type StatelessCall } from '../wire/stateless/work-call.js';
import { PROTOCOL_2026_07_28, RequestMetaKey } from '../wire/stateless/wire.js';
import { JsonRpcCode, JsonRpcError } from '../wire/wire-errors.js';

/**
 * Whether the request is on the 2026-07-28 wire: it carries the per-request envelope, which the
 * SDK requires of every request of that era and lifts out of `_meta` for us.
 *
 * @example
 * ```ts
 * if (isModern(ctx)) return callStateless(statelessCall(ctx, runtime, served), 'tools/call', params);
 * ```
 */
export function isModern(ctx: ServerContext): boolean {
  return typeof envelopeOf(ctx)[RequestMetaKey.protocolVersion] === 'string';
}

/** The lifted envelope's keys (the SDK types it as an empty object). */
function envelopeOf(ctx: ServerContext): Record<string, unknown> {
  return (ctx.mcpReq.envelope ?? {});
}

/** The authenticated principal the SDK was handed (`createMcpHandler(…).fetch(req, { authInfo })`). */
function principalOf(ctx: ServerContext): string | null {
  // An empty client id names nobody: it must not share the anonymous requester's key.
  return ctx.http?.authInfo?.clientId || null;
}

/**
 * The requester a task is bound to. The 2025-11-25 spec binds tasks to the authorization context:
 * with a principal, that is all (a serialized task reference works from a new connection of the
 * same principal); without one, the session keeps requesters apart. The 2026-07-28 wire has no
 * session: its owner is `ownerOf2026`'s (the principal, a stdio connection, or the anonymous owner
 * whose tasks only their ids reach).
 *
 * @example
 * ```ts
 * ownerOfV2(ctx, connection); // { session: null, principal: 'alice' }
 * ```
 *
 * @param connection - the id of the connection the server instance serves, for a transport that is
 *   one requester and names no session (stdio: the SDK's per-connection channel has none)
 */
export function ownerOfV2(ctx: ServerContext, connection: string): TaskOwner {
  const principal = principalOf(ctx);
  // Without HTTP (stdio) the connection is one requester: its own owner, on every backend.
  const requester = ctx.http === undefined ? (ctx.sessionId ?? connection) : null;
  if (isModern(ctx)) return ownerOf2026(principal, requester);
  if (principal !== null) return { session: null, principal };
  // A 2025-11-25 request over HTTP with neither a session nor a principal (the SDK's stateless
  // legacy serving): nothing tells its requester from any other, so it gets no tasks at all.
  if (ctx.sessionId === undefined && ctx.http !== undefined) {
    throw new JsonRpcError(JsonRpcCode.invalidRequest, 'Tasks need a session or an authenticated principal: this 2025-11-25 request over HTTP has neither (serve it with createTaskHttpHandlerV2, or authenticate)');
  }
  return { session: requester ?? ctx.sessionId ?? null, principal: null };
}

/**
 * The capabilities the request's envelope declares (2026-07-28); none on 2025-11-25.
 *
 * @example
 * ```ts
 * declaresTasks(clientCapabilitiesOf(ctx));
 * ```
 */
function clientCapabilitiesOf(ctx: ServerContext): Record<string, unknown> {
  const caps = envelopeOf(ctx)[RequestMetaKey.clientCapabilities];
  return typeof caps === 'object' && caps !== null ? (caps as Record<string, unknown>) : {};
}

/**
 * A 2026-07-28 request as the shared extension code reads it (the same code the stateless
 * dispatcher of `mcp-tasks serve` runs).
 *
 * @example
 * ```ts
 * await extTaskMethod(statelessCall(ctx, runtime, served, connection), 'tasks/get', params);
 * ```
 */
export function statelessCall(ctx: ServerContext, runtime: TaskRuntime, served: ServedDefinitions, connection: string): StatelessCall {
  const envelope = envelopeOf(ctx);
  return {
    runtime,
    served,
    owner: ownerOfV2(ctx, connection),
    meta: {
      protocolVersion: typeof envelope[RequestMetaKey.protocolVersion] === 'string' ? (envelope[RequestMetaKey.protocolVersion] as string) : PROTOCOL_2026_07_28,
      clientCapabilities: clientCapabilitiesOf(ctx),
      clientInfo: envelope[RequestMetaKey.clientInfo],
    },
    signal: ctx.mcpReq.signal,
  };
}

/**
 * The request's params with the input answers the SDK lifted out of them put back, for the shared
 * code that reads them there. An answer the SDK dropped (not a bare result object) comes back as
 * `null`, so the shared code treats it as it treats any malformed answer on the other wires.
 *
 * @example
 * ```ts
 * extTaskMethod(call, 'tasks/update', withInputResponses(params, ctx));
 * ```
 */
export function withInputResponses(params: Record<string, unknown>, ctx: ServerContext): Record<string, unknown> {
  const { inputResponses, droppedInputResponseKeys } = ctx.mcpReq;
  if (params['inputResponses'] !== undefined || inputResponses === undefined) return params;
  const dropped = Object.fromEntries((droppedInputResponseKeys ?? []).map((key) => [key, null]));
  return { ...params, inputResponses: { ...inputResponses, ...dropped } };
}
