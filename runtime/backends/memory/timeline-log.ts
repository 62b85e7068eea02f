/**
 * A task's timeline as the memory backend keeps it: one number per entry in a plain array (time,
 * event, previous and new status packed together), the status messages in a second array only
 * once the task has one, and the handler machine's positions in a third only once it has one. An
 * array of entry objects would cost ~250 bytes for a three-step task; this costs ~70.
 *
 * @module
 */
import type { HandlerPosition, TaskStatus } from '../../../machines/index.js';
import { MAX_TIMELINE_ENTRIES, TimelineEvent, type TimelineEntry } from '../../observer.types.js';
import { entryToDrop, inferTimelineEvent, type ChangeFields } from '../../observer-timeline.js';

/**
 * A task's timeline.
 *
 * @example
 * ```ts
 * const log: TimelineLog = { trail: trails.get(key)!, notes: notes.get(key) ?? null };
 * ```
 */
export interface TimelineLog {
  /** One packed number per entry, oldest first. */
  trail: number[];
  /** The status message after each entry; `null` until the task first has a message. */
  notes: (string | null)[] | null;
  /** Where the handler machine was, on each `task.handler` entry; `null` until the first. */
  positions?: (HandlerPosition | null)[] | null;
}

/**
 * What a timeline is started from: the task as it is now (a task's context).
 *
 * @example
 * ```ts
 * const start: TrailStart = entry.context;
 * ```
 */
export interface TrailStart extends ChangeFields {
  readonly createdAt: number;
  readonly updatedAt: number;
}

const EVENTS: readonly TimelineEvent[] = Object.values(TimelineEvent);
const STATUSES: readonly TaskStatus[] = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'];
const EVENT_INDEX = new Map(EVENTS.map((e, i) => [e, i]));
const STATUS_INDEX = new Map(STATUSES.map((s, i) => [s, i]));
/** Status slot meaning "none" (the previous status of a creation). */
const NO_STATUS = 7;
/** Room for the code below the time: 16 events × 8 previous × 8 statuses. */
const CODES = 1024;
/** Times are kept to the ms within ±2^43 (year 2248), so time × 1024 + code stays an exact double. */
const TIME_LIMIT = 2 ** 43;
const UNTOUCHED: ChangeFields = { pendingInputs: [], statusMessage: null };

function pack(at: number, event: TimelineEvent, previous: TaskStatus | null, status: TaskStatus): number {
  const ms = Math.max(-TIME_LIMIT, Math.min(TIME_LIMIT - 1, Math.round(at)));
  const code = EVENT_INDEX.get(event)! * 64 + (previous === null ? NO_STATUS : STATUS_INDEX.get(previous)!) * 8 + STATUS_INDEX.get(status)!;
  return ms * CODES + code;
}

/** The event of a packed entry. */
function eventOf(packed: number): TimelineEvent {
  return EVENTS[(packed - Math.floor(packed / CODES) * CODES) >> 6]!;
}

/** `values` without the one at `index`, in a new array of exactly the size needed. */
function without<T>(values: T[], index: number): T[] {
  return values.slice(0, index).concat(values.slice(index + 1));
}

/**
 * A task's first timeline: its creation and, for a task that moved before anyone recorded it,
 * one entry for where it is now (the steps between are not known and count as one).
 *
 * @param status - the task's status now
 * @param task - its context now
 * @example
 * ```ts
 * const log = startTrail('submitted', entry.context); // { trail: [created], notes: null }
 * ```
 */
export function startTrail(status: TaskStatus, task: TrailStart): TimelineLog {
  const log: TimelineLog = { trail: [pack(task.createdAt, TimelineEvent.created, null, 'submitted')], notes: null };
  const event = inferTimelineEvent('submitted', UNTOUCHED, status, task);
  if (event !== null) appendToTrail(log, task.updatedAt, event, 'submitted', status, task.statusMessage, event === TimelineEvent.handler ? (task.handler ?? null) : null);
  return log;
}

/**
 * Adds an entry; once {@link MAX_TIMELINE_ENTRIES} are held, one entry is given up by the rule of
 * every backend ({@link entryToDrop}: the oldest report, else the oldest after the creation, which
 * may be the new entry itself). The arrays are replaced, not grown: `concat` makes an array of exactly the needed size,
 * where `push` would reserve room for 16 more entries that most tasks never use.
 *
 * @param log - the task's timeline, changed in place
 * @param at - when, epoch ms (the task's `updatedAt` after the change)
 * @param event - what happened
 * @param previous - the status before
 * @param status - the status after
 * @param message - the status message after
 * @param handler - where the handler machine is, on a `task.handler` entry
 * @example
 * ```ts
 * appendToTrail(log, ctx.updatedAt, 'task.start', 'submitted', 'working', ctx.statusMessage);
 * ```
 */
export function appendToTrail(
  log: TimelineLog,
  at: number,
  event: TimelineEvent,
  previous: TaskStatus,
  status: TaskStatus,
  message: string | null,
  handler: HandlerPosition | null = null,
): void {
  let { trail, notes } = log;
  let positions = log.positions ?? null;
  if (trail.length >= MAX_TIMELINE_ENTRIES) {
    const held = trail;
    const drop = entryToDrop((i) => (i === held.length ? event : eventOf(held[i]!)), held.length + 1);
    // The new entry is the report given up: the timeline stays as it is.
    if (drop === held.length) return;
    trail = without(trail, drop);
    if (notes) notes = without(notes, drop);
    if (positions) positions = without(positions, drop);
  }
  if (notes === null && message !== null) notes = new Array<string | null>(trail.length).fill(null);
  if (positions === null && handler !== null) positions = new Array<HandlerPosition | null>(trail.length).fill(null);
  log.trail = trail.concat(pack(at, event, previous, status));
  if (notes) log.notes = notes.concat(message);
  if (positions) log.positions = positions.concat(handler);
}

/**
 * The timeline as entries, oldest first.
 *
 * @param log - the task's timeline
 * @param node - the node name every entry carries
 * @example
 * ```ts
 * const entries = readTrail(log, 'local');
 * ```
 */
export function readTrail(log: TimelineLog, node: string): TimelineEntry[] {
  return log.trail.map((packed, i) => {
    const at = Math.floor(packed / CODES);
    const code = packed - at * CODES;
    const previous = (code >> 3) & 7;
    const handler = log.positions?.[i] ?? null;
    const entry: TimelineEntry = {
      at,
      status: STATUSES[code & 7]!,
      previous: previous === NO_STATUS ? null : STATUSES[previous]!,
      event: eventOf(packed),
      node,
      message: log.notes?.[i] ?? null,
    };
    return handler === null ? entry : { ...entry, handler };
  });
}
