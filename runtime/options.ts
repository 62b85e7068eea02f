/**
 * Options of `createTaskRuntime` and their resolution into the internal, fully-defaulted form.
 *
 * @module
 */
import { InvalidArgumentError } from './errors.js';
import { resolveLimits, type RequesterLimits } from './limits.js';
import type { AuditOptions } from './audit/audit.types.js';
import type { Logger } from './logger.js';
import { PushAllowList } from './push/push-allow.js';
import { resolvePushOptions, type PushOptions, type ResolvedPushOptions } from './push/backoff.js';

/**
 * Push notifications (webhooks): the URL prefixes the operator allows requesters to register, and
 * how deliveries are retried.
 *
 * @example
 * ```ts
 * const push: PushSettings = { allow: ['https://hooks.example.com/'], maxAttempts: 8 };
 * ```
 */
export interface PushSettings extends PushOptions {
  /** URL prefixes a webhook may have (scheme, host, port, path); none: nothing is ever called. */
  readonly allow: readonly string[];
  /** NATS: how long a node may hold a delivery before another takes it over, ms. @default 30_000 */
  readonly ackWaitMs?: number;
}

/**
 * Options of {@link createTaskRuntime}. Every field is optional.
 *
 * @example
 * ```ts
 * const runtime = createTaskRuntime({ defaultKeepAlive: 60_000, maxKeepAlive: 600_000 });
 * ```
 */
export interface TaskRuntimeOptions {
  /**
   * Retention after a task reaches a terminal state when the requester asks for none, in ms.
   * @default 300_000 (5 minutes)
   */
  defaultKeepAlive?: number;
  /**
   * The receiver's maximum keepAlive, in ms (SEP-1686 §4.5.1, §8.2): a larger request is lowered to
   * it, and the actual value is what `get` reports. `null` allows unlimited retention.
   * @default 3_600_000 (1 hour)
   */
  maxKeepAlive?: number | null;
  /**
   * The polling interval a task suggests to its requester once it is older than this, or
   * terminal, in ms. A younger task suggests its age (at least 25 ms), so short work is seen
   * ending soon; polls that keep to the suggestion are not charged against `pollsPerSecond`.
   * @default 1000
   */
  pollFrequency?: number;
  /**
   * Largest `list` page.
   * @default 20
   */
  pageSize?: number;
  /**
   * How many expired task ids are remembered so that a late `get` says "expired", not "not found".
   * @default 10_000
   */
  expiredMemory?: number;
  /**
   * Per-requester limits (running tasks, creation/poll/list rates). Absent: no limits (an
   * embedding program trusts itself); given: these over `DEFAULT_LIMITS`, `null` turning one off.
   * `mcp-tasks serve` always sets them.
   */
  limits?: Partial<RequesterLimits>;
  /**
   * Where the runtime logs (task runs and ends, expiries, lost workers, deliveries it could not
   * queue): a pino logger or anything with pino's `debug`/`info`/`warn`/`error(fields, message)`.
   * Absent: the runtime writes no line anywhere. `mcp-tasks serve` passes its JSON-lines log.
   * @default none (silent)
   * @example
   * ```ts
   * import { pino } from 'pino';
   * const runtime = createTaskRuntime({ logger: pino() });
   * ```
   */
  logger?: Logger;
  /**
   * Audit lines (task creation, status changes, result retrievals, cancels, deletes, refused
   * look-ups), through `logger` unless `audit.logger` names another, and counters of suspicious
   * requesters read with `runtime.security()`. Absent: no audit, at no cost. `mcp-tasks serve`
   * turns it on.
   */
  audit?: AuditOptions;
  /**
   * How deep subtasks may nest (`ctx.spawnTask`): a top-level task is at depth 0, its subtasks at
   * 1; a spawn that would go deeper is refused.
   * @default 4
   */
  maxTaskDepth?: number;
  /**
   * Intermediate results one task may keep (`ctx.partial`): at most this many, and at most
   * `maxPartialBytes` bytes of JSON in all. A partial over either bound is refused (the call
   * resolves `false`); the task goes on.
   * @default 100
   */
  maxPartials?: number;
  /** See `maxPartials`. At most 262_144 on NATS (they travel in every event of their task). @default 65_536 (64 KiB) */
  maxPartialBytes?: number;
  /**
   * Heartbeat of status streams, ms: a task running longer than this is told again (a
   * `notifications/tasks/status`) every this often on a connection that carries them, even when
   * nothing changed, so that a client with a short idle timeout keeps its stream. `null`: never.
   * @default 30_000
   */
  heartbeatMs?: number | null;
  /**
   * Push notifications: requesters may register webhooks (`CreateTaskOptions.push`) under URLs
   * the operator allows here. Absent: a registration is refused (nothing is ever called).
   */
  push?: PushSettings;
  /**
   * Clock, epoch ms. Tests may pass a fake one.
   * @default Date.now
   */
  now?: () => number;
}

/** {@link TaskRuntimeOptions} with every default applied and checked. */
export interface ResolvedTaskRuntimeOptions {
  readonly defaultKeepAlive: number;
  readonly maxKeepAlive: number | null;
  readonly pollFrequency: number;
  readonly pageSize: number;
  readonly expiredMemory: number;
  readonly maxTaskDepth: number;
  readonly maxPartials: number;
  readonly maxPartialBytes: number;
  readonly heartbeatMs: number | null;
  /** Push notifications, `null` when off. */
  readonly push: { readonly allow: PushAllowList; readonly options: ResolvedPushOptions; readonly ackWaitMs: number } | null;
  readonly limits: RequesterLimits;
  readonly now: () => number;
}

/**
 * Applies defaults and checks ranges.
 *
 * @param options - user options
 * @throws InvalidArgumentError when a duration or size is negative or not a number
 * @example
 * ```ts
 * resolveTaskRuntimeOptions({}).pageSize; // 20
 * ```
 */
export function resolveTaskRuntimeOptions(options: TaskRuntimeOptions = {}): ResolvedTaskRuntimeOptions {
  const maxKeepAlive = options.maxKeepAlive === undefined ? 3_600_000 : options.maxKeepAlive;
  const resolved = {
    defaultKeepAlive: options.defaultKeepAlive ?? 300_000,
    maxKeepAlive,
    pollFrequency: options.pollFrequency ?? 1000,
    pageSize: options.pageSize ?? 20,
    expiredMemory: options.expiredMemory ?? 10_000,
    maxTaskDepth: options.maxTaskDepth ?? 4,
    maxPartials: options.maxPartials ?? 100,
    maxPartialBytes: options.maxPartialBytes ?? 65_536,
    heartbeatMs: options.heartbeatMs === undefined ? 30_000 : options.heartbeatMs,
    now: options.now ?? Date.now,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (typeof value === 'function' || value === null) continue;
    if (!Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`${name} must be a non-negative number, got ${String(value)}`);
  }
  if (resolved.pageSize < 1) throw new InvalidArgumentError('pageSize must be at least 1');
  if (resolved.heartbeatMs !== null && resolved.heartbeatMs < 10) throw new InvalidArgumentError('heartbeatMs must be at least 10 (or null for none)');
  const push = options.push === undefined ? null : { allow: new PushAllowList(options.push.allow), options: resolvePushOptions(options.push), ackWaitMs: options.push.ackWaitMs ?? 30_000 };
  return { ...resolved, push, limits: resolveLimits(options.limits) };
}
