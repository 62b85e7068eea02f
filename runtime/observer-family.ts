/**
 * What every backend's observer reads the same way of a task's nesting and intermediate results:
 * its parent and depth, the subtasks its work started, the partial results it published, and
 * which lifecycle event a change of those was. One implementation, so that a task shows the same
 * family on the memory backend and on NATS.
 *
 * @module
 */
import type { ChildTask, PartialResult } from '../machines/index.js';
import type { ObservedTask } from './observer.types.js';
import { TimelineEvent } from './observer.types.js';

/**
 * The fields of a task's context (or of a view of it) the family is read from; each is optional,
 * as a context holds them only once they apply.
 *
 * @example
 * ```ts
 * const fields: FamilyFields = record.context;
 * ```
 */
export interface FamilyFields {
  readonly parentId?: string | null;
  readonly depth?: number;
  readonly children?: readonly ChildTask[];
  readonly partials?: readonly PartialResult[];
}

/**
 * The family fields of an {@link ObservedTask}.
 *
 * @example
 * ```ts
 * const family: ObservedFamily = observedFamily(entry.context);
 * ```
 */
export type ObservedFamily = Pick<ObservedTask, 'parentId' | 'depth' | 'children' | 'partials'>;

/** Shared by every task with none: the observer never mutates them. */
const NONE: readonly never[] = Object.freeze([]);

/**
 * A task's family as the operator sees it: a top-level task has `parentId: null`, depth 0, and no
 * children nor partials. Each field absent from `fields` is taken from `fallback` (when given):
 * a NATS event's view may not carry them, and what an earlier version showed is then still true,
 * since a parent never changes and children and partials are only ever added.
 *
 * @param fields - a task's context, or a view of it
 * @param fallback - what was shown of the task before, if anything
 * @example
 * ```ts
 * observedFamily({ parentId: 'p1', depth: 1 }); // { parentId: 'p1', depth: 1, children: [], partials: [] }
 * ```
 */
export function observedFamily(fields: FamilyFields, fallback?: ObservedFamily | null): ObservedFamily {
  return {
    parentId: fields.parentId ?? fallback?.parentId ?? null,
    depth: fields.depth ?? fallback?.depth ?? 0,
    children: fields.children ?? fallback?.children ?? NONE,
    partials: fields.partials ?? fallback?.partials ?? NONE,
  };
}

/**
 * The lifecycle event of a change that touched only the family: a new partial result
 * (`task.partial`), else a subtask started or moved (`task.child`); `null` when neither changed.
 * Backends ask it after `inferTimelineEvent` found nothing, so a status change wins.
 *
 * @param before - the task before the change
 * @param after - the task after it
 * @example
 * ```ts
 * const event = inferTimelineEvent(prev, before, status, after) ?? familyEvent(before, after);
 * ```
 */
export function familyEvent(before: FamilyFields, after: FamilyFields): TimelineEvent | null {
  if (lastSeq(after.partials) !== lastSeq(before.partials)) return TimelineEvent.partial;
  return sameChildren(before.children, after.children) ? null : TimelineEvent.child;
}

/**
 * True when two versions of a task show the same family (parents and depths never change, so the
 * children and the last partial result are what to compare).
 *
 * @example
 * ```ts
 * if (!sameFamily(shown, next)) emit(next);
 * ```
 */
export function sameFamily(a: FamilyFields, b: FamilyFields): boolean {
  return lastSeq(a.partials) === lastSeq(b.partials) && sameChildren(a.children, b.children);
}

function lastSeq(partials: readonly PartialResult[] | undefined): number {
  return partials?.at(-1)?.seq ?? 0;
}

function sameChildren(a: readonly ChildTask[] = NONE, b: readonly ChildTask[] = NONE): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((c, i) => c.taskId === b[i]!.taskId && c.status === b[i]!.status);
}
