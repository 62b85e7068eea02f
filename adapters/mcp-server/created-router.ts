/**
 * SEP-1686's `notifications/tasks/created`, routed to whoever waits for that task, one handler
 * per SDK peer (a `Client` calling tools as tasks, or a `Server` asking its client for input as
 * tasks). The SDK keeps one handler per method, so every waiter on a peer must share it.
 *
 * @module
 */
import { z } from 'zod';
import { RELATED_TASK_META_KEY } from '../dialects/sep-1686/index.js';
import type { TaskHost } from './request-context.js';
import { assertSdkInternals } from './sdk-internals-check.js';
import { notificationHandler } from './sdk-internals.js';

const CREATED = 'notifications/tasks/created';

const CreatedNotificationSchema = z.object({
  method: z.literal(CREATED),
  params: z.looseObject({ _meta: z.looseObject({ [RELATED_TASK_META_KEY]: z.looseObject({ taskId: z.string() }) }) }),
});

/**
 * Per peer: task id → what to do when its `notifications/tasks/created` arrives.
 *
 * @example
 * ```ts
 * const stop = CreatedRouter.for(client).route(taskId, () => console.log('created'));
 * ```
 */
export class CreatedRouter {
  static readonly #routers = new WeakMap<object, CreatedRouter>();
  readonly #routes = new Map<string, () => void>();

  /**
   * The router of `peer`, installing its handler on first use. A handler someone else installed
   * before is kept and still called for every notification: the SDK has no getter for it, hence
   * the read of its private map.
   *
   * @throws SdkInternalsError when the SDK's internals are not the expected ones
   */
  static for(peer: object): CreatedRouter {
    const known = CreatedRouter.#routers.get(peer);
    if (known !== undefined) return known;
    assertSdkInternals();
    const host = peer as TaskHost;
    const previous = notificationHandler(peer, CREATED);
    const router = new CreatedRouter();
    host.setNotificationHandler(CreatedNotificationSchema, async (notification) => {
      router.#routes.get(notification.params._meta[RELATED_TASK_META_KEY].taskId)?.();
      await previous?.(notification);
    });
    CreatedRouter.#routers.set(peer, router);
    return router;
  }

  /** Routes `taskId`'s notification to `onCreated` until the returned function is called. */
  route(taskId: string, onCreated: () => void): () => void {
    this.#routes.set(taskId, onCreated);
    return () => {
      if (this.#routes.get(taskId) === onCreated) this.#routes.delete(taskId);
    };
  }
}
