/**
 * Types of the requester machine: what a requester knows about one task-augmented request it
 * sent, in either wire dialect. Everything here is plain JSON so snapshots persist as they are.
 *
 * @module
 */
import type { TaskStatus } from './task.types.js';

/**
 * The wire dialects a requester can speak, as a const object so it can be iterated.
 *
 * @example
 * ```ts
 * import { RequesterDialect } from 'mcp-task-actors/machines';
 * const input = { dialect: RequesterDialect.sep1686, taskId: crypto.randomUUID() };
 * ```
 */
export const RequesterDialect = {
  sep1686: 'sep-1686',
  spec20251125: '2025-11-25',
  /** The `io.modelcontextprotocol/tasks` extension on the 2026-07-28 wire (SEP-2663). @experimental a draft protocol. */
  tasksExtension: '2026-07-28',
} as const;
/** One of the requester's wire dialects. */
export type RequesterDialect = (typeof RequesterDialect)[keyof typeof RequesterDialect];

/**
 * An input request a 2026-07-28 task lists while `input_required` (`inputRequests[key]`): an
 * embedded `elicitation/create`, `sampling/createMessage` or `roots/list` request.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @example
 * ```ts
 * const asked: RequesterInputRequest = { method: 'elicitation/create', params: { message: 'Your name?' } };
 * ```
 */
export interface RequesterInputRequest {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/**
 * A task as the requester last saw it (from `tasks/get`, `tasks/cancel` or `CreateTaskResult`),
 * normalised across dialects: `pollFrequency` is SEP-1686's `pollFrequency`, 2025-11-25's
 * `pollInterval` or 2026-07-28's `pollIntervalMs`; `retention` its `keepAlive`, `ttl` or `ttlMs`.
 *
 * @example
 * ```ts
 * const task: RequesterTask = { taskId: 't1', status: 'working', statusMessage: 'step 3/10',
 *   pollFrequency: 1000, retention: 60000, error: null };
 * ```
 */
export interface RequesterTask {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage: string | null;
  /** Suggested ms between polls; `null` when the receiver gave none. */
  readonly pollFrequency: number | null;
  /** keepAlive / ttl in ms; `null` when unlimited or not given. */
  readonly retention: number | null;
  /** The error of a failed task: SEP-1686's `error`, or the message of 2026-07-28's JSON-RPC `error`. */
  readonly error: string | null;
  /** 2026-07-28: the input requests an `input_required` task lists, by key (absent elsewhere). */
  readonly inputRequests?: Readonly<Record<string, RequesterInputRequest>>;
}

/**
 * Why a requester ended without a result although the task did not report failure.
 *
 * @example
 * ```ts
 * if (output.error?.code === RequesterErrorCode.cancelUnconfirmed) console.warn('cancel not confirmed');
 * ```
 */
export const RequesterErrorCode = {
  /** The original request failed (JSON-RPC error or transport) before a task was known. */
  requestFailed: 'request_failed',
  /** A `tasks/get` failed. */
  pollFailed: 'poll_failed',
  /** `tasks/result` failed. */
  resultFailed: 'result_failed',
  /** The task never showed `cancelled` within the bound after a cancel (SEP-1686 §4.8.6). */
  cancelUnconfirmed: 'cancel_unconfirmed',
  /** 2026-07-28: a task's input requests could not be answered (no handler, it threw, or `tasks/update` failed). */
  inputFailed: 'input_failed',
} as const;
/** One of the requester's error codes. */
export type RequesterErrorCode = (typeof RequesterErrorCode)[keyof typeof RequesterErrorCode];

/**
 * An error the requester recorded, kept as data (not an `Error`) so that snapshots stay JSON.
 *
 * @example
 * ```ts
 * const error: RequesterError = { code: 'poll_failed', message: 'Task not found', rpcCode: -32602 };
 * ```
 */
export interface RequesterError {
  readonly code: RequesterErrorCode;
  readonly message: string;
  /** The JSON-RPC error code, when the failure was a JSON-RPC error. */
  readonly rpcCode: number | null;
}

/**
 * How a requester ended: `completed` with a result, the task's own terminal status, or `error`.
 *
 * @example
 * ```ts
 * if (output.outcome === 'completed') use(output.result);
 * ```
 */
export type RequesterOutcome = 'completed' | 'failed' | 'cancelled' | 'unknown' | 'error';

/**
 * Where the result came from: the original request's direct response, `tasks/result`, or (on
 * 2026-07-28, which inlines it) `tasks/get`.
 */
export type RequesterResultSource = 'response' | 'tasks/result' | 'tasks/get';

/**
 * Input of the requester machine.
 *
 * @example
 * ```ts
 * const input: RequesterInput = { dialect: 'sep-1686', taskId: crypto.randomUUID(), pollFrequency: 500 };
 * ```
 */
export interface RequesterInput {
  readonly dialect: RequesterDialect;
  /** Required for SEP-1686 (the requester makes it) and for resuming; made by the receiver in 2025-11-25. */
  readonly taskId?: string;
  /**
   * ms between polls until the receiver suggests its own.
   * @default 1000
   */
  readonly pollFrequency?: number;
  /**
   * How many polls after a cancel before giving up on seeing `cancelled`.
   * @default 10
   */
  readonly maxCancelPolls?: number;
  /**
   * Pick up an existing task by `taskId`: skip sending, start polling at once.
   * @default false
   */
  readonly resume?: boolean;
}

/** Context of the requester machine. */
export interface RequesterContext {
  readonly dialect: RequesterDialect;
  readonly taskId: string | null;
  readonly resume: boolean;
  readonly defaultPollFrequency: number;
  /** ms the next wait lasts: the latest task's suggestion, else the default. */
  readonly pollFrequency: number;
  readonly maxCancelPolls: number;
  /** Polls made since the cancel, counted against `maxCancelPolls`. */
  readonly cancelPolls: number;
  readonly cancelRequested: boolean;
  readonly task: RequesterTask | null;
  /** 2026-07-28: the input request keys already answered (a key is answered once, §input). */
  readonly answeredInputs: readonly string[];
  readonly result: Record<string, unknown> | null;
  readonly resultSource: RequesterResultSource | null;
  readonly outcome: RequesterOutcome | null;
  readonly error: RequesterError | null;
}

/**
 * What a finished requester actor outputs.
 *
 * @example
 * ```ts
 * const output = await toPromise(actor); // { outcome: 'completed', result: { content: [...] }, ... }
 * ```
 */
export interface RequesterOutput {
  readonly outcome: RequesterOutcome;
  readonly result: Record<string, unknown> | null;
  readonly resultSource: RequesterResultSource | null;
  readonly task: RequesterTask | null;
  readonly error: RequesterError | null;
}

/** Input of the `getTask`, `getResult` and `cancelTask` effect actors. */
export interface RequesterTaskRef {
  readonly taskId: string;
  readonly dialect: RequesterDialect;
}

/**
 * Input of the `answerInput` effect actor: the input requests not answered yet, by key.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @example
 * ```ts
 * const input: RequesterAnswerInput = { taskId: 't1', dialect: '2026-07-28', inputRequests: { k1: { method: 'elicitation/create' } } };
 * ```
 */
export interface RequesterAnswerInput extends RequesterTaskRef {
  readonly inputRequests: Readonly<Record<string, RequesterInputRequest>>;
}

/** Input of the `wait` effect actor. */
export interface RequesterWaitInput {
  readonly ms: number;
}
