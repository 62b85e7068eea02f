/**
 * The core's rules about a task's family and webhooks: the depth a subtask gets, the cancel that
 * cascades through a subtree, the port through which a run starts and follows its subtasks, and
 * the checks a webhook registration passes. Part of the core (`core-runtime.ts`), kept apart so
 * that each file reads as one concept.
 *
 * @module
 */
import { isTerminalStatus, taskEvents, type TaskOwner } from '../../machines/index.js';
import { DuplicateTaskIdError, InvalidArgumentError, TaskLimitError, TaskTerminalError } from '../errors.js';
import type { ResolvedTaskRuntimeOptions } from '../options.js';
import { checkPushRequest } from '../push/push-request.js';
import type { PushRegistry } from '../push/push-registry.js';
import type { PushQueue } from '../push/push.types.js';
import { isSharedOwner } from '../task-identity.js';
import type { CreateTaskOptions, TaskOutcome, TaskRuntime, WaitOptions } from '../task-runtime.types.js';
import type { SubtaskPort } from './subtasks.js';
import type { TaskState, TaskStore } from './task-store.js';

/** How long a subtask's creation waits out the requester's creation rate at most. */
const SUBTASK_RATE_WAIT_MS = 30_000;

/** What the rules need of the core. */
export interface CoreFamilyParts<S extends TaskState> {
  readonly opts: ResolvedTaskRuntimeOptions;
  readonly store: TaskStore<S>;
  readonly find: (taskId: string, owner: TaskOwner) => Promise<{ key: string; state: S }>;
  readonly keyOf: (taskId: string, owner: TaskOwner) => string;
  readonly now: () => number;
  readonly waitForOutcome: (taskId: string, owner: TaskOwner, o?: WaitOptions) => Promise<TaskOutcome>;
  readonly push: { readonly registry: PushRegistry; readonly queue: PushQueue } | undefined;
  /** The runtime these rules belong to (made after them). */
  readonly runtime: () => TaskRuntime;
}

/**
 * The family and webhook rules of one core runtime.
 *
 * @example
 * ```ts
 * const { depthUnder, cancelChildren, registerPush, subtaskPort } = coreFamilyRules({ opts, store, find, keyOf, now, waitForOutcome, push, runtime: () => runtime });
 * ```
 */
export function coreFamilyRules<S extends TaskState>(parts: CoreFamilyParts<S>) {
  const { opts, store, find, keyOf, now, waitForOutcome } = parts;
  const runtime = (): TaskRuntime => parts.runtime();

  /** The depth a subtask of `parentId` gets. @throws when the parent is not a live task of `owner`, or too deep */
  async function depthUnder(parentId: string, owner: TaskOwner): Promise<number> {
    const { state } = await find(parentId, owner);
    if (isTerminalStatus(state.status)) throw new TaskTerminalError(parentId, state.status);
    const depth = (state.context.depth ?? 0) + 1;
    if (depth > opts.maxTaskDepth) throw new InvalidArgumentError(`Subtasks nest at most ${opts.maxTaskDepth} deep: task ${parentId} is at depth ${depth - 1} already`);
    return depth;
  }

  /**
   * Cancels the live subtasks a cancelled task recorded, each with its own subtree (the cancel
   * recurses). Done here, not only by the parent's run: a parent whose worker is gone still
   * takes its subtree with it.
   */
  async function cancelChildren(before: S, after: S, owner: TaskOwner): Promise<void> {
    // The cancel recorded its live children cancelled: which were live is what the task said before.
    const ended = new Set((before.context.children ?? []).filter((c) => isTerminalStatus(c.status)).map((c) => c.taskId));
    const live = (after.context.children ?? []).filter((c) => !ended.has(c.taskId));
    await Promise.all(live.map((c) => runtime().cancel(c.taskId, owner, 'Its parent task was cancelled').catch(() => undefined)));
  }

  /** Keeps a requester's webhook, once the operator's allow-list has its URL. */
  async function registerPush(key: string, ownerKey: string, o: CreateTaskOptions): Promise<void> {
    const { target, scope } = checkPushRequest(o.push!, parts.push === undefined ? null : (opts.push?.allow ?? null));
    // A requester-wide webhook hears of every task of its owner: never of an owner that many
    // requesters share (anonymous, sessionless: the stateless wire without authentication).
    if (scope === 'requester' && isSharedOwner(o.owner)) {
      throw new InvalidArgumentError('Invalid push registration: scope "requester" needs a session or an authenticated requester (anonymous requesters here share one owner); register per task instead');
    }
    // An id taken already (a SEP-1686 requester's choice): refused before the live task's webhook is touched.
    const existing = await store.read(key);
    if (existing !== null && existing !== 'expired') throw new DuplicateTaskIdError(o.taskId);
    await parts.push!.registry.register(ownerKey, scope === 'task' ? o.taskId : null, target);
  }

  /** What every registered handler's runs get from this runtime. */
  const subtaskPort: SubtaskPort = {
    create: async (o) => {
      // A fan-out goes at the creation rate the requester is allowed, rather than fail on it;
      // the running-task cap (no retry time) still refuses.
      const giveUp = Date.now() + SUBTASK_RATE_WAIT_MS;
      for (;;) {
        try {
          return await runtime().create(o);
        } catch (error) {
          if (!(error instanceof TaskLimitError) || error.retryAfterMs === null || Date.now() + error.retryAfterMs > giveUp) throw error;
          await new Promise((resolve) => setTimeout(resolve, error.retryAfterMs!));
        }
      }
    },
    waitForOutcome: (taskId, owner) => waitForOutcome(taskId, owner, { countsAsPoll: false }),
    cancel: async (taskId, owner, reason) => {
      await runtime().cancel(taskId, owner, reason).catch(() => undefined);
    },
    report: async (parentId, owner, childId, status) => {
      await store.apply(keyOf(parentId, owner), taskEvents.child(childId, status, now()));
    },
    pending: (taskId, owner) => runtime().pendingInputRequests(taskId, owner),
    read: (taskId, owner) => runtime().get(taskId, owner, { countsAsPoll: false }),
    onInputRequest: (listener, only) => runtime().onInputRequest(listener, only),
    subscribe: (listener, only) => runtime().subscribe(listener, only),
    answer: async (taskId, owner, inputId, answer) => {
      try {
        await runtime().answerInput(taskId, owner, inputId, answer);
        return true;
      } catch {
        return false;
      }
    },
  };

  return { depthUnder, cancelChildren, registerPush, subtaskPort };
}
