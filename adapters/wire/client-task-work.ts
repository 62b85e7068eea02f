/**
 * The work of client-hosted tasks, whichever SDK the client is built on: a server's
 * `elicitation/create` or `sampling/createMessage` sent task-augmented runs as a task whose work
 * is the client's own answer. SDK-free, so that the SDK v1 and v2 client hosts share it.
 *
 * @module
 */
import type { TaskRuntime } from '../../runtime/index.js';
import { TASK_META_KEY } from '../dialects/sep-1686/index.js';
import type { RequestWorkContext } from './definitions.js';
import { taskWorkContext } from './task-work-context.js';
import { keepingWireErrors } from './wire-errors.js';

/** The methods a client hosts tasks for. */
export type ClientTaskMethod = 'elicitation/create' | 'sampling/createMessage';

/** The client's own answer to one method. */
export type ClientAnswer = (params: never, ctx: RequestWorkContext) => Promise<unknown>;

/**
 * The request's params as the work sees them: without the task request itself.
 *
 * @example
 * ```ts
 * workParams({ message: 'Name?', task: { ttl: 1000 } }); // { message: 'Name?' }
 * ```
 */
export function workParams(requestParams: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...requestParams };
  delete rest['task'];
  const meta = rest['_meta'];
  if (typeof meta !== 'object' || meta === null) return rest;
  const kept = { ...(meta as Record<string, unknown>) };
  delete kept[TASK_META_KEY];
  if (Object.keys(kept).length > 0) rest['_meta'] = kept;
  else delete rest['_meta'];
  return rest;
}

/**
 * Registers the client's answers as the runtime's work for its tasks, and says which methods it
 * hosts (for the client's `tasks.requests` capability).
 *
 * @example
 * ```ts
 * const hosted = registerClientWork(runtime, { elicitation: askTheUser });
 * ```
 */
export function registerClientWork(
  runtime: TaskRuntime,
  answers: { readonly elicitation?: ClientAnswer | undefined; readonly sampling?: ClientAnswer | undefined },
): { readonly methods: readonly [ClientTaskMethod, ClientAnswer][]; readonly requests: Record<string, Record<string, object>> } {
  const methods: [ClientTaskMethod, ClientAnswer][] = [];
  const requests: Record<string, Record<string, object>> = {};
  if (answers.elicitation) {
    methods.push(['elicitation/create', answers.elicitation]);
    requests['elicitation'] = { create: {} };
  }
  if (answers.sampling) {
    methods.push(['sampling/createMessage', answers.sampling]);
    requests['sampling'] = { createMessage: {} };
  }
  for (const [method, answer] of methods) runtime.registerHandler(method, keepingWireErrors((params, ctx) => answer(params as never, taskWorkContext(ctx))));
  return { methods, requests };
}
