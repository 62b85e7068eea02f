/**
 * What every backend's observer decides the same way: which lifecycle event a change was, when
 * only the task before and after is known, and which entries a long timeline keeps.
 *
 * @module
 */
import type { HandlerPosition, TaskProgress, TaskStatus } from '../machines/index.js';
import { MAX_TIMELINE_ENTRIES, TimelineEvent } from './observer.types.js';

/**
 * The parts of a task, besides its status, a change is told from (a task's context has them).
 *
 * @example
 * ```ts
 * const fields: ChangeFields = record.context;
 * ```
 */
export interface ChangeFields {
  readonly pendingInputs: readonly string[];
  readonly statusMessage: string | null;
  /** Absent or `null` before the first report (a context leaves it out, an observed task says `null`). */
  readonly progress?: TaskProgress | null | undefined;
  /** Where the handler machine is; absent or `null` before its first report (as `progress`). */
  readonly handler?: HandlerPosition | null | undefined;
}

/**
 * Whether two reports of a handler machine's position say the same (a record read from JSON is a
 * new object each time: compared by content).
 *
 * @example
 * ```ts
 * if (!sameHandler(before.handler, after.handler)) console.log('the handler machine moved');
 * ```
 */
export function sameHandler(a: HandlerPosition | null | undefined, b: HandlerPosition | null | undefined): boolean {
  if (a === b || (a == null && b == null)) return true;
  if (a == null || b == null) return false;
  return a.step === b.step && a.status === b.status && a.checkpoint === b.checkpoint && a.graph === b.graph && a.states.join('\u0000') === b.states.join('\u0000');
}

/**
 * The lifecycle event that moved a task from `previous` to `status`, told from the machine's
 * edges: each target status has one event leading to it (leaving `input_required` for `working`
 * is the last answer), and within a status the pending inputs, the handler machine's position, the progress or the message say what happened.
 * The memory backend's actor reports snapshots, not events, and a NATS record read without its
 * event is the same situation: both name the change this way, so both backends use one vocabulary.
 *
 * @param previous - the status before the change
 * @param before - the task's context before it
 * @param status - the status after it
 * @param after - the task's context after it
 * @returns the event, or `null` when nothing an operator would see changed
 * @example
 * ```ts
 * inferTimelineEvent('submitted', record.context, 'working', next.context); // 'task.start'
 * ```
 */
export function inferTimelineEvent(previous: TaskStatus, before: ChangeFields, status: TaskStatus, after: ChangeFields): TimelineEvent | null {
  if (previous !== status) {
    switch (status) {
      case 'working':
        return previous === 'input_required' ? TimelineEvent.inputResponse : TimelineEvent.start;
      case 'input_required':
        return TimelineEvent.inputRequest;
      case 'completed':
        return TimelineEvent.complete;
      case 'failed':
        return TimelineEvent.fail;
      case 'cancelled':
        return TimelineEvent.cancel;
      case 'unknown':
        return TimelineEvent.lose;
      case 'submitted':
        return TimelineEvent.created;
    }
  }
  if (after.pendingInputs.length > before.pendingInputs.length) return TimelineEvent.inputRequest;
  if (after.pendingInputs.length < before.pendingInputs.length) return TimelineEvent.inputResponse;
  // Set by its own event only, which changes nothing else.
  if (!sameHandler(before.handler, after.handler)) return TimelineEvent.handler;
  // A report only ever increases the value: a different one is a new report (its message, if any, with it).
  if (after.progress?.progress !== before.progress?.progress) return TimelineEvent.progress;
  if (after.statusMessage !== before.statusMessage) return TimelineEvent.message;
  return null;
}

/**
 * Reports: each is superseded by the next one of its kind, so a full timeline gives them up before
 * any step the task took.
 */
const REPORTS: ReadonlySet<TimelineEvent> = new Set([TimelineEvent.progress, TimelineEvent.message, TimelineEvent.handler, TimelineEvent.partial, TimelineEvent.child]);

/**
 * Which entry a timeline one entry over its bound gives up: never the creation (index 0); the
 * oldest report (progress, a message, a handler state, a partial result, a subtask's move), else
 * the oldest entry after the creation. So the steps a task took (its start, its questions and
 * answers, its end) stay in the history an operator steps through, however many reports a long
 * run makes. The one rule of both backends: the memory backend applies it at each entry it adds,
 * {@link boundTimeline} to a timeline read whole.
 *
 * @param eventAt - the event of the entry at an index (the newest last)
 * @param length - how many entries there are, the one too many included
 * @example
 * ```ts
 * entryToDrop((i) => entries[i]!.event, entries.length); // 1 + the index of the oldest report
 * ```
 */
export function entryToDrop(eventAt: (index: number) => TimelineEvent, length: number): number {
  for (let i = 1; i < length; i++) if (REPORTS.has(eventAt(i))) return i;
  return 1;
}

/**
 * Cuts a timeline to {@link MAX_TIMELINE_ENTRIES}, as if its entries had been added one by one to
 * a timeline that gives up {@link entryToDrop}'s entry whenever it is one over: the creation, every
 * step the task took that fits, and the latest reports.
 *
 * @param entries - a timeline, oldest first (not changed)
 * @param max - most entries kept (at least 2)
 * @example
 * ```ts
 * boundTimeline(entries).length <= MAX_TIMELINE_ENTRIES; // true
 * ```
 */
export function boundTimeline<T extends { readonly event: TimelineEvent }>(entries: readonly T[], max = MAX_TIMELINE_ENTRIES): T[] {
  const kept: T[] = [];
  for (const entry of entries) {
    kept.push(entry);
    if (kept.length > max) kept.splice(entryToDrop((i) => kept[i]!.event, kept.length), 1);
  }
  return kept;
}
