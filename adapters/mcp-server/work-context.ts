/**
 * What the work of a tool, prompt or resource can do while it runs as a plain call on an SDK v1
 * connection: ask the requester for input straight over the connection. (As a task, see
 * `task-work-context.ts`.)
 *
 * @module
 */
import { CreateMessageResultSchema, ElicitResultSchema, type CreateMessageResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestWorkContext } from '../wire/definitions.js';
import { unsupportedInput } from '../wire/input-delivery.js';
import { plainProgress, progressTokenOf } from '../wire/progress-notifications.js';
import type { ServerExtra, TaskHost } from './request-context.js';

/**
 * The context of work running as a plain (not task-augmented) request.
 *
 * @example
 * ```ts
 * return tool.run(args, plainWorkContext(host, extra));
 * ```
 */
export function plainWorkContext(host: TaskHost, extra: ServerExtra, peerSupports: (method: string) => boolean = () => true): RequestWorkContext {
  const ask = <T>(method: string, params: unknown, schema: Parameters<TaskHost['request']>[1]): Promise<T> =>
    peerSupports(method)
      ? (host.request({ method, params } as never, schema, { relatedRequestId: extra.requestId, signal: extra.signal }) as Promise<T>)
      : Promise.reject(unsupportedInput(method));
  return {
    taskId: null,
    signal: extra.signal,
    setStatusMessage: () => undefined,
    progress: plainProgress(progressTokenOf(extra._meta), (n) => host.notification(n, { relatedRequestId: extra.requestId })),
    elicit: (params) => ask<ElicitResult>('elicitation/create', params, ElicitResultSchema),
    sample: (params) => ask<CreateMessageResult>('sampling/createMessage', params, CreateMessageResultSchema),
  };
}
