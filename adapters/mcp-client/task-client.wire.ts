/**
 * The task client's wire: the requests it sends through the SDK `Client`, the shapes it accepts
 * back (normalised to `RequesterTask`).
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TaskStatus, type RequesterDialect, type RequesterTask } from '../../machines/index.js';
import { TASK_META_KEY, relatedMeta } from '../dialects/sep-1686/index.js';
import { TaskClientError, TaskClientErrorCode } from './task-client.errors.js';
import type { BeginCallOptions, CallToolParams } from './task-client.types.js';

/**
 * Requests that wait for a task's end get the largest timeout a Node timer takes: the SDK's
 * default (60 s) would otherwise time them out and send `notifications/cancelled`, which a
 * SEP-1686 receiver takes as cancelling the task itself.
 */
export const NO_TIMEOUT = 2_147_483_647;

const STATUSES: ReadonlySet<string> = new Set(Object.values(TaskStatus));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Normalises a task of either dialect (`tasks/get`, `tasks/cancel`, `CreateTaskResult.task`).
 *
 * @throws TaskClientError (`poll_failed`) when `raw` is not a task
 * @example
 * ```ts
 * toRequesterTask({ taskId: 't1', status: 'working', pollInterval: 500, ttl: 60000 });
 * ```
 */
export function toRequesterTask(raw: unknown): RequesterTask {
  if (!isRecord(raw) || typeof raw['taskId'] !== 'string' || typeof raw['status'] !== 'string' || !STATUSES.has(raw['status'])) {
    throw new TaskClientError(TaskClientErrorCode.pollFailed, `Not a task: ${JSON.stringify(raw)?.slice(0, 200)}`);
  }
  return {
    taskId: raw['taskId'],
    status: raw['status'] as TaskStatus,
    statusMessage: typeof raw['statusMessage'] === 'string' ? raw['statusMessage'] : null,
    pollFrequency: numberOrNull(raw['pollFrequency'] ?? raw['pollInterval']),
    retention: numberOrNull(raw['keepAlive'] ?? raw['ttl']),
    error: typeof raw['error'] === 'string' ? raw['error'] : null,
  };
}

/** What the original 2025-11-25 request answered: a task, or (a receiver without tasks) the result. */
export type CreateOutcome = { readonly task: RequesterTask } | { readonly result: Record<string, unknown> };

/**
 * What the requester needs of an SDK client (v1's `Client` and v2's both are one): a request whose
 * result is checked with a schema.
 */
export interface RequesterPeer {
  request(request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType, options?: { signal?: AbortSignal; timeout?: number }): Promise<unknown>;
}

/** A tool result, as far as the requester reads it; the rest is kept as it came. */
const ToolResultSchema = z.looseObject({ content: z.array(z.looseObject({ type: z.string() })).default([]) });
const AnyResultSchema = z.looseObject({});

/** The SDK calls of one dialect, bound to one client. */
export class TaskWire {
  constructor(
    private readonly client: RequesterPeer,
    private readonly dialect: RequesterDialect,
  ) {}

  /** SEP-1686: the task-augmented call; resolves with the direct response. */
  callSep(params: CallToolParams, taskId: string, options: BeginCallOptions, signal: AbortSignal): Promise<CallToolResult> {
    const task = options.keepAlive === undefined ? { taskId } : { taskId, keepAlive: options.keepAlive };
    return this.client.request({ method: 'tools/call', params: { ...params, _meta: { [TASK_META_KEY]: task } } }, ToolResultSchema, {
      signal,
      timeout: NO_TIMEOUT,
    }) as Promise<CallToolResult>;
  }

  /** 2025-11-25: the task-augmented call; resolves with the created task (or a plain result). */
  async call2025(params: CallToolParams, options: BeginCallOptions, signal: AbortSignal): Promise<CreateOutcome> {
    const task = options.ttl === undefined ? {} : { ttl: options.ttl };
    const answer = (await this.client.request({ method: 'tools/call', params: { ...params, task } }, AnyResultSchema, { signal })) as Record<string, unknown>;
    return isRecord(answer['task']) ? { task: toRequesterTask(answer['task']) } : { result: answer };
  }

  async getTask(taskId: string): Promise<RequesterTask> {
    return toRequesterTask(await this.client.request({ method: 'tasks/get', params: this.params(taskId) }, AnyResultSchema));
  }

  /** `tasks/result`; blocks on a 2025-11-25 receiver until the task ends, hence no timeout. */
  async getResult(taskId: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    return this.client.request({ method: 'tasks/result', params: this.params(taskId) }, ToolResultSchema, {
      signal,
      timeout: NO_TIMEOUT,
    }) as Promise<Record<string, unknown>>;
  }

  async cancelTask(taskId: string): Promise<RequesterTask> {
    return toRequesterTask(await this.client.request({ method: 'tasks/cancel', params: { taskId } }, AnyResultSchema));
  }

  // SEP-1686 §4.7 wants the related-task key on every task message; 2025-11-25 says not to add
  // it where the task id is already in the params.
  private params(taskId: string): Record<string, unknown> {
    return this.dialect === 'sep-1686' ? { taskId, _meta: relatedMeta(taskId) } : { taskId };
  }
}
