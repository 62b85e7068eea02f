/**
 * What the work of a tool, prompt or resource can do while it runs, as a task or as a plain call:
 * report progress, and ask the requester for input (elicitation, sampling). As a task, input goes
 * through the runtime (the task is `input_required` while it waits); as a plain call, straight
 * over the connection.
 *
 * @module
 */
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import type { RequestWorkContext } from './definitions.js';
import { unsupportedInput } from './input-delivery.js';
import type { ServerExtra, TaskHost } from './request-context.js';

/** An answer the requester sent, checked against the schema of the method's result. */
function checked<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: Error } }, method: string, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`The requester's answer to ${method} is malformed: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * The context of work running as a task.
 *
 * @example
 * ```ts
 * runtime.registerHandler('tools/call:ask', (args, ctx) => tool.run(args, taskWorkContext(ctx)));
 * ```
 */
export function taskWorkContext(ctx: TaskHandlerContext): RequestWorkContext {
  return {
    taskId: ctx.taskId,
    owner: ctx.owner,
    // Read through: the runtime makes a task's AbortController only for work that asks for it.
    get signal() {
      return ctx.signal;
    },
    setStatusMessage: (m) => ctx.setStatusMessage(m),
    elicit: async (params: ElicitRequestParams): Promise<ElicitResult> =>
      checked(ElicitResultSchema, 'elicitation/create', await ctx.requestInput('elicitation/create', params)),
    sample: async (params: CreateMessageRequestParams): Promise<CreateMessageResult> =>
      checked(CreateMessageResultSchema, 'sampling/createMessage', await ctx.requestInput('sampling/createMessage', params)),
    attempt: ctx.attempt,
    resumeFrom: ctx.resumeFrom,
    // Only where it is kept: work skips building checkpoints that would go nowhere (memory).
    ...(ctx.durable && { checkpoint: (state: unknown, label?: string) => ctx.checkpoint(state, label) }),
    stepKey: (step?: number) => ctx.stepKey(step),
  };
}

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
    elicit: (params) => ask<ElicitResult>('elicitation/create', params, ElicitResultSchema),
    sample: (params) => ask<CreateMessageResult>('sampling/createMessage', params, CreateMessageResultSchema),
  };
}
