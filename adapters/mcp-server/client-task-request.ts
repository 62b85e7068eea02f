/**
 * The server side of client-hosted tasks: send a `sampling/createMessage` or `elicitation/create`
 * to a client as a task and poll it to its result. SEP-1686 races the direct response against
 * `notifications/tasks/created` (a client without task support simply answers: the direct
 * response wins); 2025-11-25 creates the task and polls `tasks/get` at `pollInterval`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TERMINAL_STATUSES, type TaskStatus } from '../../machines/index.js';
import { TASK_META_KEY } from '../dialects/sep-1686/index.js';
import { CreatedRouter } from './created-router.js';
import { INPUT_REQUEST_TIMEOUT_MS } from '../wire/input-delivery.js';

/** Methods a server may send to a client as a task. */
export type ClientTaskMethod = 'sampling/createMessage' | 'elicitation/create';

/** Options of {@link requestClientTask}. */
export interface ClientTaskRequestOptions {
  /**
   * `auto` uses 2025-11-25 when the client declares task support for the method, else SEP-1686
   * (which falls back to the direct response when the client ignores the task metadata).
   * @default 'auto'
   */
  readonly dialect?: 'auto' | 'sep-1686' | '2025-11-25';
  /** Requested retention, ms (SEP-1686 `keepAlive`, 2025-11-25 `ttl`). */
  readonly keepAlive?: number;
  /** Polling interval when the client suggests none, ms. @default 500 */
  readonly pollFrequency?: number;
  /** Called with each task status seen while polling, as the client rendered it. */
  readonly onStatus?: (task: Record<string, unknown>) => void;
  /** Gives up (and stops polling) when aborted. */
  readonly signal?: AbortSignal;
  /** Longest wait for the whole exchange, ms. @default 24 hours */
  readonly timeout?: number;
}

/**
 * A task the client hosted ended without a result.
 *
 * @example
 * ```ts
 * if (e instanceof ClientTaskError) console.log(e.status);
 * ```
 */
export class ClientTaskError extends Error {
  readonly taskId: string;
  readonly status: string;
  constructor(taskId: string, status: string, detail: string) {
    super(`Client task ${taskId} ended '${status}': ${detail}`);
    this.name = 'ClientTaskError';
    this.taskId = taskId;
    this.status = status;
  }
}

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  pollInterval: z.number().optional(),
  pollFrequency: z.number().optional(),
  statusMessage: z.string().optional(),
  error: z.string().optional(),
});
type PolledTask = z.infer<typeof TaskSchema>;

const isTerminal = (status: string): boolean => TERMINAL_STATUSES.includes(status as TaskStatus);

/**
 * Sends a request to the client as a task and resolves with the client's result.
 *
 * @param server - a connected SDK server whose client answers sampling/elicitation
 * @param request - the method and its params
 * @param resultSchema - checks the result (e.g. the SDK's `ElicitResultSchema`)
 * @throws ClientTaskError when the client's task failed or was cancelled; the client's JSON-RPC error as it sent it
 * @example
 * ```ts
 * const answer = await requestClientTask(server, { method: 'elicitation/create', params }, ElicitResultSchema);
 * ```
 */
export async function requestClientTask<T>(
  server: Server,
  request: { method: ClientTaskMethod; params: Record<string, unknown> },
  resultSchema: z.ZodType<T>,
  options: ClientTaskRequestOptions = {},
): Promise<T> {
  const caps = server.getClientCapabilities()?.tasks?.requests;
  const supports2025 = request.method === 'elicitation/create' ? !!caps?.elicitation?.create : !!caps?.sampling?.createMessage;
  const dialect = options.dialect ?? 'auto';
  if (dialect === '2025-11-25' || (dialect === 'auto' && supports2025)) {
    if (supports2025) return viaTask2025(server, request, resultSchema, options);
    return server.request(request, resultSchema, requestOptions(options));
  }
  return viaSep1686(server, request, resultSchema, options);
}

function requestOptions(o: ClientTaskRequestOptions) {
  return { timeout: o.timeout ?? INPUT_REQUEST_TIMEOUT_MS, ...(o.signal && { signal: o.signal }) };
}

async function poll(server: Server, taskId: string, o: ClientTaskRequestOptions): Promise<PolledTask> {
  const task = await server.request({ method: 'tasks/get', params: { taskId } }, TaskSchema, requestOptions(o));
  o.onStatus?.(task);
  return task;
}

async function viaTask2025<T>(
  server: Server,
  request: { method: ClientTaskMethod; params: Record<string, unknown> },
  resultSchema: z.ZodType<T>,
  o: ClientTaskRequestOptions,
): Promise<T> {
  const params = { ...request.params, task: o.keepAlive === undefined ? {} : { ttl: o.keepAlive } };
  const { task } = await server.request({ method: request.method, params }, CreateTaskResultSchema, requestOptions(o));
  const fetchResult = () => server.request({ method: 'tasks/result', params: { taskId: task.taskId } }, resultSchema, requestOptions(o));
  for (;;) {
    const now = await poll(server, task.taskId, o);
    // tasks/result returns the result or the client's own JSON-RPC error; input_required also goes through it.
    if (now.status === 'completed' || now.status === 'failed' || now.status === 'input_required') return fetchResult();
    if (isTerminal(now.status)) throw new ClientTaskError(task.taskId, now.status, now.statusMessage ?? 'no detail');
    await delay(now.pollInterval ?? o.pollFrequency ?? 500, undefined, o.signal ? { signal: o.signal } : {});
  }
}

async function viaSep1686<T>(
  server: Server,
  request: { method: ClientTaskMethod; params: Record<string, unknown> },
  resultSchema: z.ZodType<T>,
  o: ClientTaskRequestOptions,
): Promise<T> {
  const taskId = randomUUID();
  let created!: () => void;
  const announced = new Promise<'created'>((resolve) => (created = () => resolve('created')));
  const stopListening = CreatedRouter.for(server).route(taskId, created);
  const meta = { ...((request.params['_meta'] as object | undefined) ?? {}), [TASK_META_KEY]: { taskId, ...(o.keepAlive !== undefined && { keepAlive: o.keepAlive }) } };
  const direct = server.request({ method: request.method, params: { ...request.params, _meta: meta } }, resultSchema, requestOptions(o));
  const settled = direct.then(() => 'direct' as const, () => 'direct' as const);
  try {
    // The race of SEP-1686 §3.4: no notification (a client without tasks) means the direct response wins.
    if ((await Promise.race([settled, announced])) === 'direct') return await direct;
    for (;;) {
      const now = await Promise.race([poll(server, taskId, o), settled]);
      if (now === 'direct') return await direct;
      if (now.status === 'completed') return await direct;
      if (isTerminal(now.status)) throw new ClientTaskError(taskId, now.status, now.error ?? now.statusMessage ?? 'no detail');
      const wait = delay(now.pollFrequency ?? o.pollFrequency ?? 500, undefined, o.signal ? { signal: o.signal } : {});
      if ((await Promise.race([wait, settled])) === 'direct') return await direct;
    }
  } finally {
    stopListening();
  }
}
