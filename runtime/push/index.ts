/**
 * Push notifications for tasks (webhooks): a requester registers a URL and a secret, and the
 * server POSTs a signed JSON event on the status changes it asked for, at least once, with
 * retries and backoff, only to URLs the operator allows.
 *
 * @example
 * ```ts
 * import { MemoryPushQueue, PushAllowList, wantsPush } from './push/index.js';
 * const queue = new MemoryPushQueue({ allow: new PushAllowList(['https://hooks.example.com/']) });
 * if (wantsPush(target.events, 'completed')) await queue.enqueue({ target, event, until: null, attempt: 0 });
 * ```
 *
 * A receiver checks each request with `verifyPush(rawBody, req.headers, secret)`.
 *
 * @module
 */
export { PushEventFilter } from './push.types.js';
export type { PushTarget, PushEvent, PushJob, DeliveryAttempt, PushQueue } from './push.types.js';
export { PushHeader, signPush, verifyPush } from './push-signing.js';
export type { PushRequestHeaders, VerifyPushOptions } from './push-signing.js';
export { PushAllowList } from './push-allow.js';
export { resolvePushOptions, retryDelay } from './backoff.js';
export type { PushOptions, ResolvedPushOptions } from './backoff.js';
export { sendPush } from './push-sender.js';
export type { SendPushOptions, SendPushOutcome } from './push-sender.js';
export { attemptPush } from './push-attempt.js';
export type { AttemptContext, AttemptResult } from './push-attempt.js';
export { checkPushJob, wantsPush } from './push-job.js';
export { MemoryPushQueue } from './memory-push-queue.js';
export type { MemoryPushQueueOptions, SetTimer } from './memory-push-queue.js';
