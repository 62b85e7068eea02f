/**
 * The task client's wire: the requests it sends through the SDK `Client`, the shapes it accepts
 * back (normalised to `RequesterTask`).
 *
 * @module
 */
import type { CallToolResult } from './mcp-shapes.js';
import { z } from 'zod';
import { TaskStatus, type RequesterDialect, type RequesterInputRequest, type RequesterTask } from '../../machines/index.js';
import { TASK_META_KEY, relatedMeta } from '../dialects/sep-1686/index.js';
import { TaskClientError, TaskClientErrorCode } from './task-client.errors.js';
import { RequestMetaKey } from './stateless/wire.js';
import type { BeginCallOptions, CallToolParams, InputRequestHandler } from './task-client.types.js';

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
 * The bounds of a poll interval a server suggests, ms: below 25 ms a requester would poll as fast
 * as its event loop turns (a suggested `1e-9`), above 60 s not at all in a human's patience (and
 * past 2^31 ms Node's timers fire at once: a suggested `1e12` polled ~650 times a second).
 *
 * @example
 * ```ts
 * clampSuggestedPoll(1e-9); // 25
 * ```
 */
export const SUGGESTED_POLL_BOUNDS = { minMs: 25, maxMs: 60_000 } as const;

/**
 * A server's suggested poll interval within {@link SUGGESTED_POLL_BOUNDS}; `null` (no usable
 * suggestion: the requester keeps its own) for anything that is not a finite number.
 *
 * @example
 * ```ts
 * clampSuggestedPoll(1e12); // 60000
 * clampSuggestedPoll(500);  // 500
 * ```
 */
export function clampSuggestedPoll(raw: unknown): number | null {
  const ms = numberOrNull(raw);
  return ms === null ? null : Math.min(SUGGESTED_POLL_BOUNDS.maxMs, Math.max(SUGGESTED_POLL_BOUNDS.minMs, ms));
}

// A task answered for another id than the one asked (a confused or hostile server) is refused:
// following it would show (and act on) someone else's task as this one.
function sameTask(asked: string, task: RequesterTask, method: string): RequesterTask {
  if (task.taskId === asked) return task;
  throw new TaskClientError(TaskClientErrorCode.pollFailed, `${method} for task ${JSON.stringify(asked)} was answered with another task, ${JSON.stringify(task.taskId).slice(0, 200)}: refused`);
}

// A failed task's error: SEP-1686's string, or the message of 2026-07-28's JSON-RPC error object.
function errorText(error: unknown): string | null {
  if (typeof error === 'string') return error;
  return isRecord(error) && typeof error['message'] === 'string' ? error['message'] : null;
}

// 2026-07-28's `inputRequests`: every entry an embedded request with a method.
function inputRequestsOf(raw: unknown): Record<string, RequesterInputRequest> | undefined {
  if (!isRecord(raw)) return undefined;
  const out: Record<string, RequesterInputRequest> = {};
  for (const [key, entry] of Object.entries(raw)) {
    if (!isRecord(entry) || typeof entry['method'] !== 'string') {
      throw new TaskClientError(TaskClientErrorCode.pollFailed, `Input request '${key}' is not a request with a method: ${JSON.stringify(entry)?.slice(0, 200)}`);
    }
    out[key] = isRecord(entry['params']) ? { method: entry['method'], params: entry['params'] } : { method: entry['method'] };
  }
  return out;
}

/**
 * Normalises a task of any dialect (`tasks/get`, `tasks/cancel`, `CreateTaskResult.task`, the
 * 2026-07-28 flat `CreateTaskResult` and `DetailedTask`).
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
  const inputRequests = raw['status'] === 'input_required' ? inputRequestsOf(raw['inputRequests']) : undefined;
  return {
    taskId: raw['taskId'],
    status: raw['status'] as TaskStatus,
    statusMessage: typeof raw['statusMessage'] === 'string' ? raw['statusMessage'] : null,
    pollFrequency: clampSuggestedPoll(raw['pollFrequency'] ?? raw['pollInterval'] ?? raw['pollIntervalMs']),
    retention: numberOrNull(raw['keepAlive'] ?? raw['ttl'] ?? raw['ttlMs']),
    error: errorText(raw['error']),
    ...(inputRequests !== undefined && { inputRequests }),
  };
}

// A 2026-07-28 result carries its discriminator; the requester hands out the result without it.
function withoutResultType(result: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...result };
  delete rest['resultType'];
  return rest;
}

/** What the original 2025-11-25 request answered: a task, or (a receiver without tasks) the result. */
export type CreateOutcome = { readonly task: RequesterTask } | { readonly result: Record<string, unknown> };

/**
 * What the requester needs of an SDK client (v1's `Client` and v2's both are one): a request whose
 * result is checked with a schema.
 */
export interface RequesterPeer {
  request(request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType, options?: RequesterRequestOptions): Promise<unknown>;
}

/** The request options the requester uses (both SDK lines take them). */
export interface RequesterRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  /** The call's MCP progress notifications (the SDK adds a progress token when given). */
  onprogress?: (progress: ProgressOfCall) => void;
}

/** One `notifications/progress` of a call. */
export interface ProgressOfCall {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Rounds of input a 2026-07-28 call may ask before it answers or becomes a task (SEP-2322). */
const MAX_INPUT_ROUNDS = 8;

/** A tool result, as far as the requester reads it; the rest is kept as it came. */
const ToolResultSchema = z.looseObject({ content: z.array(z.looseObject({ type: z.string() })).default([]) });
const AnyResultSchema = z.looseObject({});

/** The calls of one dialect for one task, bound to one client. */
export class TaskWire {
  /** 2026-07-28: the result the last `tasks/get` inlined, for `getResult`. */
  #inlineResult: Record<string, unknown> | undefined;

  constructor(
    private readonly client: RequesterPeer,
    private readonly dialect: RequesterDialect,
    private readonly onInputRequest?: InputRequestHandler,
    private readonly onProgress?: (progress: ProgressOfCall) => void,
  ) {}

  // The original call's options: progress is asked for only when someone listens.
  #callOptions(signal: AbortSignal, timeout?: number): RequesterRequestOptions {
    return { signal, ...(timeout !== undefined && { timeout }), ...(this.onProgress !== undefined && { onprogress: this.onProgress }) };
  }

  /** SEP-1686: the task-augmented call; resolves with the direct response. */
  callSep(params: CallToolParams, taskId: string, options: BeginCallOptions, signal: AbortSignal): Promise<CallToolResult> {
    const task = options.keepAlive === undefined ? { taskId } : { taskId, keepAlive: options.keepAlive };
    return this.client.request({ method: 'tools/call', params: { ...params, _meta: { [TASK_META_KEY]: task } } }, ToolResultSchema, this.#callOptions(signal, NO_TIMEOUT)) as Promise<CallToolResult>;
  }

  /** 2025-11-25: the task-augmented call; resolves with the created task (or a plain result). */
  async call2025(params: CallToolParams, options: BeginCallOptions, signal: AbortSignal): Promise<CreateOutcome> {
    const task = options.ttl === undefined ? {} : { ttl: options.ttl };
    const answer = (await this.client.request({ method: 'tools/call', params: { ...params, task } }, AnyResultSchema, this.#callOptions(signal))) as Record<string, unknown>;
    return isRecord(answer['task']) ? { task: toRequesterTask(answer['task']) } : { result: answer };
  }

  /**
   * 2026-07-28: the call; the server decides whether it becomes a task (`resultType: "task"`, the
   * task flat in the result) or answers at once.
   */
  async callExt(params: CallToolParams, signal: AbortSignal, asking: AbortSignal): Promise<CreateOutcome> {
    let retry: Record<string, unknown> = {};
    const stopped = (): TaskClientError => new TaskClientError(TaskClientErrorCode.aborted, 'Stopped answering what the server asked before it created a task');
    // A call that can answer questions says so on the request that creates its task (the server
    // asks a task's requester only what that request declared).
    const declared = this.onInputRequest === undefined ? params : { ...params, _meta: { [RequestMetaKey.clientCapabilities]: { elicitation: {}, sampling: {} } } };
    for (let round = 0; ; round++) {
      const answer = (await this.client.request({ method: 'tools/call', params: { ...declared, ...retry } }, AnyResultSchema, this.#callOptions(signal))) as Record<string, unknown>;
      if (answer['resultType'] === 'task') return { task: toRequesterTask(answer) };
      if (answer['resultType'] !== 'input_required') return { result: withoutResultType(answer) };
      // SEP-2322: the server asks before it decides (no task yet); answer and send the call again,
      // unless the requester stopped asking (a cancel, a dispose) meanwhile.
      if (asking.aborted) throw stopped();
      if (round + 1 >= MAX_INPUT_ROUNDS) throw new TaskClientError(TaskClientErrorCode.requestFailed, `tools/call still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
      const requests = inputRequestsOf(answer['inputRequests']) ?? {};
      // A handler that does not heed its signal is not waited for once the requester stopped asking.
      const halted = new Promise<never>((_resolve, reject) => asking.addEventListener('abort', () => reject(stopped()), { once: true }));
      halted.catch(() => undefined);
      const inputResponses = await Promise.race([this.#answer(null, requests, AbortSignal.any([signal, asking])), halted]);
      if (asking.aborted) throw stopped();
      retry = { inputResponses, ...(typeof answer['requestState'] === 'string' && { requestState: answer['requestState'] }) };
    }
  }

  async getTask(taskId: string): Promise<RequesterTask> {
    const answer = (await this.client.request({ method: 'tasks/get', params: this.params(taskId) }, AnyResultSchema)) as Record<string, unknown>;
    const task = sameTask(taskId, toRequesterTask(answer), 'tasks/get');
    if (task.status === 'completed' && isRecord(answer['result'])) this.#inlineResult = withoutResultType(answer['result']);
    return task;
  }

  /**
   * The result: `tasks/result` (it blocks on a 2025-11-25 receiver until the task ends, hence no
   * timeout), or on 2026-07-28 what the last `tasks/get` inlined.
   */
  async getResult(taskId: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (this.dialect === '2026-07-28') {
      if (this.#inlineResult === undefined) await this.getTask(taskId);
      if (this.#inlineResult !== undefined) return this.#inlineResult;
      throw new TaskClientError(TaskClientErrorCode.resultFailed, `Task ${taskId} is not completed with a result`);
    }
    return this.client.request({ method: 'tasks/result', params: this.params(taskId) }, ToolResultSchema, {
      signal,
      timeout: NO_TIMEOUT,
    }) as Promise<Record<string, unknown>>;
  }

  /** `tasks/cancel`; on 2026-07-28 it is only acknowledged, so the task is read after it. */
  async cancelTask(taskId: string): Promise<RequesterTask> {
    const answer = await this.client.request({ method: 'tasks/cancel', params: { taskId } }, AnyResultSchema);
    return this.dialect === '2026-07-28' ? this.getTask(taskId) : sameTask(taskId, toRequesterTask(answer), 'tasks/cancel');
  }

  /**
   * 2026-07-28: answers a task's input requests through `onInputRequest` and sends the answers
   * in one `tasks/update`; resolves with the keys answered.
   */
  async answerInput(taskId: string, requests: Readonly<Record<string, RequesterInputRequest>>, signal: AbortSignal): Promise<readonly string[]> {
    const inputResponses = await this.#answer(taskId, requests, signal);
    await this.client.request({ method: 'tasks/update', params: { taskId, inputResponses } }, AnyResultSchema, { signal });
    return Object.keys(inputResponses);
  }

  // Each request through `onInputRequest`, keyed as asked; `taskId` is null before a task exists.
  async #answer(taskId: string | null, requests: Readonly<Record<string, RequesterInputRequest>>, signal: AbortSignal): Promise<Record<string, Record<string, unknown>>> {
    const handler = this.onInputRequest;
    const keys = Object.keys(requests);
    if (handler === undefined) {
      const methods = [...new Set(keys.map((key) => requests[key]?.method))].join(', ');
      const who = taskId === null ? 'The call' : `Task ${taskId}`;
      throw new TaskClientError(TaskClientErrorCode.inputFailed, `${who} asks for input (${methods}) and this task client has no onInputRequest to answer it`);
    }
    const responses: Record<string, Record<string, unknown>> = {};
    for (const key of keys) {
      const request = requests[key] as RequesterInputRequest;
      try {
        responses[key] = await handler(request, { taskId, key, signal });
      } catch (error) {
        throw new TaskClientError(TaskClientErrorCode.inputFailed, `onInputRequest failed on '${key}' (${request.method}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
    return responses;
  }

  // SEP-1686 §4.7 wants the related-task key on every task message; 2025-11-25 says not to add
  // it where the task id is already in the params.
  private params(taskId: string): Record<string, unknown> {
    return this.dialect === 'sep-1686' ? { taskId, _meta: relatedMeta(taskId) } : { taskId };
  }
}
