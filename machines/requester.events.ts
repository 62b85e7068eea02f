/**
 * Events the requester machine accepts from outside: what arrives on the wire for the original
 * request (its direct response, its failure, `notifications/tasks/created` or `CreateTaskResult`)
 * and the caller's cancel. Poll results arrive as the done events of the invoked effect actors.
 *
 * @module
 */
import type { RequesterErrorCode, RequesterTask } from './requester.types.js';

/**
 * The receiver created the task: SEP-1686 `notifications/tasks/created` (`task` null, the id being
 * the requester's own) or the 2025-11-25 `CreateTaskResult` (`task` required).
 */
export interface RequesterCreatedEvent { readonly type: 'requester.created'; readonly task: RequesterTask | null }
/** The original request was answered with its result (SEP-1686: the direct response). */
export interface RequesterResponseEvent { readonly type: 'requester.response'; readonly result: Record<string, unknown> }
/**
 * The original request failed: a JSON-RPC error, the transport went away, or (2026-07-28) what
 * the server asked before it decided on a task could not be answered (`code` `input_failed`).
 */
export interface RequesterRequestFailedEvent {
  readonly type: 'requester.request.failed';
  readonly message: string;
  readonly rpcCode: number | null;
  /** Why, when it is not the request itself (`request_failed`, the default). */
  readonly code?: RequesterErrorCode;
}
/** The caller wants the task cancelled. */
export interface RequesterCancelEvent { readonly type: 'requester.cancel'; readonly reason: string | null }

/** Every event the requester machine accepts from outside. */
export type RequesterEvent = RequesterCreatedEvent | RequesterResponseEvent | RequesterRequestFailedEvent | RequesterCancelEvent;

/** The `type` of every requester event, for iteration in tests and tools. */
export const REQUESTER_EVENT_TYPES = [
  'requester.created',
  'requester.response',
  'requester.request.failed',
  'requester.cancel',
] as const satisfies readonly RequesterEvent['type'][];

/**
 * Event creators.
 *
 * @example
 * ```ts
 * import { requesterEvents } from 'mcp-task-actors/machines';
 * actor.send(requesterEvents.created(null));              // SEP-1686 notification
 * actor.send(requesterEvents.response({ content: [] }));  // direct response
 * actor.send(requesterEvents.cancel('user asked'));
 * ```
 */
export const requesterEvents = {
  created: (task: RequesterTask | null): RequesterCreatedEvent => ({ type: 'requester.created', task }),
  response: (result: Record<string, unknown>): RequesterResponseEvent => ({ type: 'requester.response', result }),
  requestFailed: (message: string, rpcCode: number | null = null, code?: RequesterErrorCode): RequesterRequestFailedEvent => ({
    type: 'requester.request.failed',
    message,
    rpcCode,
    ...(code !== undefined && { code }),
  }),
  cancel: (reason: string | null = null): RequesterCancelEvent => ({ type: 'requester.cancel', reason }),
} as const;
