/**
 * What the inspector hides when nobody proved to be an operator (no token is required: a loopback
 * inspector started without one). Any local process can read such a page, so it must show no value
 * that works as a credential: without `--auth-token` a session id is the only thing that makes a
 * requester itself (whoever presents it reads that session's results), an anonymous 2026-07-28 task
 * id is a bearer handle (whoever knows it reads the task), and a webhook URL may carry its
 * receiver's secret in its path. Each is shown shortened: enough for an operator to tell them
 * apart and match them with the audit log's full values, not enough to use them.
 *
 * @module
 */
import type { ObservedTask } from '../../runtime/index.js';
import { bearerOwner, shortened as shortenedSecret } from '../../runtime/secrets.js';
import { ANONYMOUS_OWNER } from '../../runtime/task-identity.js';
import type { PushDeliveryView } from './inspector.types.js';

/**
 * A credential-equivalent value, shortened (the rule of `runtime/secrets.ts`, which spans and logs
 * share): its first characters and an ellipsis.
 *
 * @example
 * ```ts
 * shortened('6f1c2a9b-0d4e-4c1f-9a7b-3e2d1c0b9a88'); // '6f1c2a9b…'
 * ```
 */
export const shortened = shortenedSecret;

/**
 * Whether a task's id is a bearer handle: the task belongs to no requester but whoever knows the
 * id. Such an id is shown shortened to a page that does not reveal.
 *
 * @example
 * ```ts
 * const idShown = reveal || !bearerTask(task);
 * ```
 */
export function bearerTask(task: Pick<ObservedTask, 'owner'>): boolean {
  return bearerOwner(task.owner);
}

/**
 * A task as a page without an operator token may see it: its session and, for a task reachable
 * by its id alone, its id and its family's ids shortened. `key` (the page's own opaque name for
 * the task) is kept: it opens nothing outside the inspector.
 *
 * @example
 * ```ts
 * const shown = reveal ? task : withoutCredentials(task);
 * ```
 */
export function withoutCredentials<T extends Pick<ObservedTask, 'owner' | 'taskId' | 'parentId' | 'children'>>(task: T): T {
  const { session, principal } = task.owner;
  const owner = { session: session === null || session === ANONYMOUS_OWNER.session ? session : shortened(session), principal };
  if (!bearerTask(task)) return { ...task, owner };
  return {
    ...task,
    owner,
    taskId: shortened(task.taskId),
    parentId: task.parentId === null ? null : shortened(task.parentId),
    children: task.children.map((c) => ({ ...c, taskId: shortened(c.taskId) })),
  };
}

/**
 * Push deliveries as a page without an operator token may see them: each URL as its origin and a
 * shortened path, the task id shortened when it is a bearer handle.
 *
 * @example
 * ```ts
 * deliveriesWithoutCredentials(task, attempts);
 * ```
 */
export function deliveriesWithoutCredentials(task: Pick<ObservedTask, 'owner'>, deliveries: readonly PushDeliveryView[]): PushDeliveryView[] {
  const bearer = bearerTask(task);
  return deliveries.map((d) => ({ ...d, url: originOnly(d.url), ...(bearer && { taskId: shortened(d.taskId) }) }));
}

function originOnly(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname === '/' && parsed.search === '' ? parsed.origin : `${parsed.origin}/…`;
  } catch {
    return shortened(url);
  }
}
