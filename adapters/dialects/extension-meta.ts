/**
 * This project's own `_meta` keys: nested tasks, intermediate results and push notifications
 * (SEP-1686's "Future Work"). Every one is opt-in and namespaced, so a peer that knows nothing of
 * them reads every task as before (a `_meta` key it does not know is ignored, as MCP requires).
 *
 * | key | where | value |
 * |---|---|---|
 * | `io.github.mcp-task-actors/parentTask` | a subtask's Task | `{ taskId }` of its parent |
 * | `io.github.mcp-task-actors/subtasks` | a parent's Task | `{ taskIds, tasks: [{ taskId, status }], counts, total }` |
 * | `io.github.mcp-task-actors/partial` | `tasks/get` params | `{ cursor? }`: asks for intermediate results after `cursor` |
 * | `io.github.mcp-task-actors/partial` | `tasks/get` result, status notification | `{ items, nextCursor, total }` |
 * | `io.github.mcp-task-actors/push` | the creating request's params | `{ url, secret, events?, scope? }` |
 *
 * @module
 */
import { InvalidArgumentError } from '../../runtime/errors.js';
import type { TaskView } from '../../runtime/task-runtime.types.js';
import type { PushRequest } from '../../runtime/push/push-request.js';

/** The prefix of every key of ours. */
export const META_PREFIX = 'io.github.mcp-task-actors/';

/** On a subtask: `{ taskId }` of the task whose work started it. */
export const PARENT_META = `${META_PREFIX}parentTask`;

/** On a task that started subtasks: their ids (in the order started), each with its status as the parent last saw it, a count per status, and the total. */
export const SUBTASKS_META = `${META_PREFIX}subtasks`;

/** Intermediate results: asked for on `tasks/get` with `{ cursor? }`, answered with `{ items, nextCursor, total }`. */
export const PARTIAL_META = `${META_PREFIX}partial`;

/** A webhook for the task (or, with `scope: 'requester'`, for every later task of the requester). */
export const PUSH_META = `${META_PREFIX}push`;

/** Counts of a parent's children by status, with their ids in the order started. */
function subtasksOf(children: NonNullable<TaskView['children']>): Record<string, unknown> {
  const counts: Record<string, number> = {};
  for (const child of children) counts[child.status] = (counts[child.status] ?? 0) + 1;
  return { taskIds: children.map((c) => c.taskId), tasks: children.map((c) => ({ taskId: c.taskId, status: c.status })), counts, total: children.length };
}

/**
 * Adds the nesting keys of a task (its parent, its children) to a rendered task's `_meta`,
 * keeping whatever `_meta` it has; a task that is neither gets nothing (the same bytes as before).
 *
 * @example
 * ```ts
 * return withNestingMeta(renderTask2025(task, now), task);
 * ```
 */
export function withNestingMeta(rendered: Record<string, unknown>, task: TaskView): Record<string, unknown> {
  if (task.parentId == null && task.children === undefined) return rendered;
  const meta: Record<string, unknown> = { ...(rendered['_meta'] as Record<string, unknown> | undefined) };
  if (task.parentId != null) meta[PARENT_META] = { taskId: task.parentId };
  if (task.children !== undefined) meta[SUBTASKS_META] = subtasksOf(task.children);
  rendered['_meta'] = meta;
  return rendered;
}

/**
 * Where a `tasks/get` asks to read the task's intermediate results from: the sequence after
 * which to answer (`0` from the first), or `null` when it does not ask.
 *
 * @throws InvalidArgumentError when the key is there but its cursor is not one this server gave
 * @example
 * ```ts
 * const after = partialCursor(params); // {_meta: {'io.github.mcp-task-actors/partial': {cursor: '3'}}} → 3
 * ```
 */
export function partialCursor(params: unknown): number | null {
  const meta = isRecord(params) && isRecord(params['_meta']) ? params['_meta'] : null;
  if (meta === null || !(PARTIAL_META in meta)) return null;
  const asked = meta[PARTIAL_META];
  if (!isRecord(asked)) throw new InvalidArgumentError(`_meta["${PARTIAL_META}"] must be an object ({ cursor? })`);
  const cursor = asked['cursor'];
  if (cursor === undefined || cursor === null) return 0;
  if (typeof cursor !== 'string' || !/^\d{1,9}$/.test(cursor)) throw new InvalidArgumentError(`Invalid partial-result cursor ${JSON.stringify(cursor)}: pass back a nextCursor this server gave`);
  return Number(cursor);
}

/**
 * Adds the task's intermediate results after sequence `after` to an answer's `_meta`:
 * `{ items, nextCursor, total }`, `nextCursor` to pass back for what comes next (the same cursor
 * when nothing new came).
 *
 * @throws InvalidArgumentError when `after` is past the task's last partial result
 * @example
 * ```ts
 * withPartials(answer, task, 0); // _meta['io.github.mcp-task-actors/partial'] = { items: [{ seq: 1, at, content }], nextCursor: '1', total: 1 }
 * ```
 */
export function withPartials(answer: Record<string, unknown>, task: TaskView, after: number): Record<string, unknown> {
  const partials = task.partials ?? [];
  const last = partials.at(-1)?.seq ?? 0;
  // A cursor past the last result was never given: taken, it would hide every result to come.
  if (after > last) throw new InvalidArgumentError(`Invalid partial-result cursor "${after}": this task has ${last} partial results; pass back a nextCursor this server gave`);
  const items = partials.filter((p) => p.seq > after);
  const meta = { ...(answer['_meta'] as Record<string, unknown> | undefined) };
  meta[PARTIAL_META] = { items, nextCursor: String(Math.max(after, last)), total: partials.length };
  answer['_meta'] = meta;
  return answer;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The webhook a task-creating request registers (`_meta["io.github.mcp-task-actors/push"]`), as
 * `create` options: `{ push }`, or nothing when the request has none. Its content is checked by
 * the runtime (allow-list, secret), which refuses the whole request when it is wrong.
 *
 * @throws InvalidArgumentError when the key is there but is not an object
 * @example
 * ```ts
 * await runtime.create({ taskId, owner, …, ...pushOption(request.params) });
 * ```
 */
export function pushOption(params: unknown): { push: PushRequest } | Record<string, never> {
  const meta = isRecord(params) && isRecord(params['_meta']) ? params['_meta'] : null;
  if (meta === null || !(PUSH_META in meta)) return {};
  const asked = meta[PUSH_META];
  if (!isRecord(asked)) throw new InvalidArgumentError(`_meta["${PUSH_META}"] must be an object ({ url, secret, events?, scope? })`);
  return { push: asked as unknown as PushRequest };
}
