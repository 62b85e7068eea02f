/**
 * One delivery attempt and what follows it, decided the same way by every queue: give up when the
 * attempts are used up or the task has expired, otherwise send, then either stop (delivered,
 * refused, last attempt, or the next one would come after the task expires) or retry after the
 * backoff delay. The queues only differ in how they wait and where they keep the job.
 *
 * @module
 */
import { retryDelay, type ResolvedPushOptions } from './backoff.js';
import type { PushAllowList } from './push-allow.js';
import { sendPush } from './push-sender.js';
import type { DeliveryAttempt, PushJob } from './push.types.js';
import type { TaskMetrics } from '../telemetry/metrics.js';

/**
 * What an attempt needs besides the job.
 *
 * @example
 * ```ts
 * const context: AttemptContext = { allow, options: resolvePushOptions(), now: Date.now, signal: stop.signal };
 * ```
 */
export interface AttemptContext {
  readonly allow: PushAllowList;
  readonly options: ResolvedPushOptions;
  /** Clock, epoch ms. */
  readonly now: () => number;
  /** The queue is stopping: the request is cancelled and the attempt not counted. */
  readonly signal?: AbortSignal;
  /** Jitter source, in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** The node's task metrics: every attempt made is counted by its outcome. @default null */
  readonly metrics?: TaskMetrics | null | undefined;
}

/**
 * An attempt's record, and when to try again (`null`: never, the record is final).
 *
 * @example
 * ```ts
 * const { record, retryInMs } = (await attemptPush(job, 1, context))!;
 * ```
 */
export interface AttemptResult {
  readonly record: DeliveryAttempt;
  readonly retryInMs: number | null;
}

/**
 * Runs attempt number `attempt` of `job` (no request when it is past `maxAttempts` or the job's
 * `until`: then the record just says it gave up).
 *
 * @param job - the job
 * @param attempt - 1-based number of this attempt
 * @param context - allow-list, options, clock, stop signal
 * @returns the record and the retry delay, or `null` when `context.signal` stopped it midway
 *   (nothing to record: the job is left for a later attempt)
 * @example
 * ```ts
 * const result = await attemptPush(job, 1, { allow, options: resolvePushOptions(), now: Date.now });
 * if (result?.retryInMs != null) setTimeout(retry, result.retryInMs);
 * ```
 */
export async function attemptPush(job: PushJob, attempt: number, context: AttemptContext): Promise<AttemptResult | null> {
  const result = await attemptOnce(job, attempt, context);
  // Every record counts, a give-up without a request too: each is an attempt the requester sees.
  if (result !== null) context.metrics?.pushAttempted(result.record);
  return result;
}

async function attemptOnce(job: PushJob, attempt: number, context: AttemptContext): Promise<AttemptResult | null> {
  const { options, now } = context;
  const base = { eventId: job.event.id, taskId: job.event.taskId, url: job.target.url, attempt };
  const giveUp = (error: string): AttemptResult => ({
    record: { ...base, at: now(), status: null, error, delivered: false, final: true },
    retryInMs: null,
  });
  // Past the limit only when an earlier attempt was cut short (a node died mid-request).
  if (attempt > options.maxAttempts) return giveUp(`gave up: no attempts left (${options.maxAttempts} allowed)`);
  if (job.until !== null && now() >= job.until) return giveUp('gave up: the task expired');
  const signal = context.signal;
  const outcome = await sendPush(job.target, job.event, { allow: context.allow, timeoutMs: options.timeoutMs, now, ...(signal && { signal }) });
  if (signal?.aborted === true) return null;
  let retryInMs: number | null = null;
  if (!outcome.delivered && !outcome.refused && attempt < options.maxAttempts) {
    const delay = retryDelay(attempt, options, context.random);
    // A retry due after the task expired would only record that it gave up: give up now.
    if (job.until === null || now() + delay < job.until) retryInMs = delay;
  }
  const record: DeliveryAttempt = { ...base, at: now(), status: outcome.status, error: outcome.error, delivered: outcome.delivered, final: retryInMs === null };
  return { record, retryInMs };
}
