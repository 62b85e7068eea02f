/**
 * Shapes of push notifications (webhooks): where a requester wants its task's events, one event,
 * one queued delivery job, the record of each delivery attempt, and the queue both backends
 * implement.
 *
 * @module
 */

/**
 * Which status changes a webhook is told about.
 *
 * - `terminal`: `input_required` and every terminal status (what a requester must act on).
 * - `all`: every status change.
 *
 * @example
 * ```ts
 * const events: PushEventFilter = PushEventFilter.terminal;
 * ```
 */
export const PushEventFilter = {
  terminal: 'terminal',
  all: 'all',
} as const;
/** One {@link PushEventFilter} value (see there for an example). */
export type PushEventFilter = (typeof PushEventFilter)[keyof typeof PushEventFilter];

/**
 * A webhook registered by a requester for its task.
 *
 * @example
 * ```ts
 * const target: PushTarget = { url: 'https://hooks.example.com/tasks', secret: 's3cret', events: 'terminal' };
 * ```
 */
export interface PushTarget {
  /** Where to POST; called only when the operator's allow-list has it (see `PushAllowList`). */
  readonly url: string;
  /** Shared secret of the HMAC signature (see `signPush`). */
  readonly secret: string;
  readonly events: PushEventFilter;
}

/**
 * One status change of a task, as it is posted.
 *
 * @example
 * ```ts
 * const event: PushEvent = {
 *   id: 'task-1:3', taskId: 'task-1', status: 'completed', statusMessage: null, at: Date.now(),
 *   body: { taskId: 'task-1', status: 'completed' },
 * };
 * ```
 */
export interface PushEvent {
  /**
   * Unique per (task, change): every node that sees the change builds the same id, so the queue
   * delivers it once, and the receiver gets it as its idempotency key (`x-mcp-task-actors-event-id`).
   */
  readonly id: string;
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage: string | null;
  /** When the change happened, in epoch milliseconds. */
  readonly at: number;
  /** The JSON posted as the request body. */
  readonly body: Record<string, unknown>;
}

/**
 * A delivery to make: one event to one target.
 *
 * @example
 * ```ts
 * await queue.enqueue({ target, event, until: task.expiresAt, attempt: 0 });
 * ```
 */
export interface PushJob {
  readonly target: PushTarget;
  readonly event: PushEvent;
  /** Epoch ms after which no attempt is made (the task's expiry); `null` for no limit. */
  readonly until: number | null;
  /** Attempts already made before this job was queued: 0 for a new one. */
  readonly attempt: number;
}

/**
 * What happened on one delivery attempt (what the inspector shows).
 *
 * @example
 * ```ts
 * queue.onAttempt((a) => { if (a.final && !a.delivered) log.warn(a, 'webhook gave up'); });
 * ```
 */
export interface DeliveryAttempt {
  readonly eventId: string;
  readonly taskId: string;
  readonly url: string;
  /** 1 on the first attempt. */
  readonly attempt: number;
  /** When the attempt ended, in epoch ms. */
  readonly at: number;
  /** HTTP status of the answer; `null` when there was none (network error, timeout, refused). */
  readonly status: number | null;
  /** Why it failed; `null` when delivered. */
  readonly error: string | null;
  /** True when the receiver answered 2xx. */
  readonly delivered: boolean;
  /** True when no attempt follows: delivered, or given up. */
  readonly final: boolean;
}

/**
 * Delivers push jobs at least once, with retries and backoff. One implementation per backend:
 * in-process for memory, a JetStream work queue shared by every node for NATS.
 *
 * @example
 * ```ts
 * const off = queue.onAttempt((a) => console.log(a.eventId, a.attempt, a.status));
 * await queue.enqueue({ target, event, until: null, attempt: 0 });
 * off();
 * await queue.dispose();
 * ```
 */
export interface PushQueue {
  /**
   * Queues a job; resolves once it is accepted (not delivered). A job whose `event.id` was
   * queued before (within the dedup window) is dropped.
   */
  enqueue(job: PushJob): Promise<void>;
  /** Every attempt still remembered, oldest first; only one task's when `taskId` is given. */
  attempts(taskId?: string): Promise<DeliveryAttempt[]>;
  /** Calls `listener` on every attempt from now on; returns the unsubscribe function. */
  onAttempt(listener: (attempt: DeliveryAttempt) => void): () => void;
  /** Stops sending and every timer; a delivery not finished is left to retry (or to other nodes). */
  dispose(): Promise<void>;
}
