/**
 * Checks on push jobs before they are queued, and which status changes a target asked for. A job
 * is JSON that may travel between nodes, so it is checked where it enters rather than trusted
 * where it is sent.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';
import { PushEventFilter, type PushJob } from './push.types.js';

/** Statuses a `terminal` target hears about: what the requester must act on, and every end. */
const ACTIONABLE = new Set(['input_required', 'completed', 'failed', 'cancelled', 'unknown']);

/**
 * True when a target registered with `events` wants to hear about a change to `status`.
 *
 * @param events - the target's filter
 * @param status - the task's new status
 * @example
 * ```ts
 * wantsPush('terminal', 'working'); // false
 * wantsPush('terminal', 'input_required'); // true
 * wantsPush('all', 'working'); // true
 * ```
 */
export function wantsPush(events: PushEventFilter, status: string): boolean {
  return events === PushEventFilter.all || ACTIONABLE.has(status);
}

/**
 * What a queue tells deliveries apart by: one event to one URL. Two webhooks of the same task
 * (its own and its requester's) each get the event; the same event queued twice to one URL (by
 * two nodes) is delivered once.
 *
 * @example
 * ```ts
 * if (seen.has(deliveryKey(job))) return;
 * ```
 */
export function deliveryKey(job: Pick<PushJob, 'target' | 'event'>): string {
  return `${job.target.url}\u0000${job.event.id}`;
}

/**
 * Throws when `job` is not a well-formed push job.
 *
 * @param job - the job to queue
 * @throws {@link InvalidArgumentError} naming the first field that is wrong
 * @example
 * ```ts
 * checkPushJob(job); // before publishing it
 * ```
 */
export function checkPushJob(job: PushJob): void {
  const fail = (what: string): never => {
    throw new InvalidArgumentError(`push job: ${what}`);
  };
  if (typeof job !== 'object' || job === null) fail('must be an object');
  const { target, event, until, attempt } = job;
  if (typeof target?.url !== 'string' || target.url === '') fail('target.url must be a non-empty string');
  if (typeof target.secret !== 'string' || target.secret === '') fail('target.secret must be a non-empty string');
  if (target.events !== PushEventFilter.terminal && target.events !== PushEventFilter.all) fail("target.events must be 'terminal' or 'all'");
  if (typeof event?.id !== 'string' || event.id === '') fail('event.id must be a non-empty string');
  if (typeof event.taskId !== 'string') fail('event.taskId must be a string');
  if (typeof event.body !== 'object' || event.body === null) fail('event.body must be an object');
  if (until !== null && !Number.isFinite(until)) fail('until must be epoch ms or null');
  if (!Number.isSafeInteger(attempt) || attempt < 0) fail('attempt must be a non-negative integer');
}
