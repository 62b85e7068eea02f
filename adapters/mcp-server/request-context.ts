/**
 * The SDK v1 types of a task-hosting peer and of what its request handlers are given; reading a
 * request is `wire/request-info.ts`'s.
 *
 * @module
 */
import type { Protocol, RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Notification, Request, Result } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK peer that hosts tasks: a `Server` (tools, prompts, resources) or a `Client` (sampling,
 * elicitation). Both are a `Protocol`; the hosting code needs nothing role-specific, so it sees
 * them through this one type.
 */
export type TaskHost = Protocol<Request, Notification, Result>;

/** The `extra` argument the SDK passes to request handlers of a {@link TaskHost}. */
export type ServerExtra = RequestHandlerExtra<Request, Notification>;
