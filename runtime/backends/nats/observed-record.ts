/**
 * How the NATS backend's stored shapes read in the operator's view: a record or a published
 * event's view as an {@link ObservedTask}, a task's stored events as its timeline, its stored
 * result on demand.
 *
 * @module
 */
import { observedFamily, sameFamily, type ObservedFamily } from '../../observer-family.js';
import { boundTimeline, inferTimelineEvent, sameHandler } from '../../observer-timeline.js';
import type { ObservedResult, ObservedTask, TimelineEntry, TimelineEvent } from '../../observer.types.js';
import type { TaskStatus } from '../../../machines/index.js';
import type { TaskView } from '../../task-runtime.types.js';
import type { TaskEventRecord } from './event-stream.js';
import { isTaskKey } from './keys.js';
import type { FeedEvent, RecordStore } from './record-store.js';
import type { TaskRecord } from './task-record.js';

/**
 * A task as the operator sees it, from what a view says and the few things only a record says.
 *
 * @param key - the task key (already unique across owners and URL-safe)
 * @param view - the task's view (from a record or a published event)
 * @param node - the worker running it, else the node that last wrote it
 * @param hasResult - whether a result is stored
 * @param runs - the attempt and checkpoint, which only a record holds
 * @param shown - what was shown of the task before: the family fields an event's view lacks
 * @example
 * ```ts
 * const task = observedOfView(key, event.view, event.node, event.view.status === 'completed');
 * ```
 */
export function observedOfView(
  key: string,
  view: TaskView,
  node: string | null,
  hasResult: boolean,
  runs: Pick<ObservedTask, 'attempt' | 'checkpoint'> = {},
  shown: ObservedFamily | null = null,
): ObservedTask {
  return {
    ...runs,
    key,
    taskId: view.taskId,
    status: view.status,
    method: view.method,
    label: view.label,
    dialect: view.dialect,
    owner: { session: view.owner.session, principal: view.owner.principal },
    node,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    statusMessage: view.statusMessage,
    progress: view.progress ?? null,
    handler: view.handler ?? null,
    error: view.error,
    pendingInputs: view.pendingInputs,
    expiresAt: view.expiresAt,
    hasResult,
    ...observedFamily(view, shown),
  };
}

/**
 * A stored record as the operator sees it: the node is its worker's, else its last writer's.
 *
 * @param key - the task key
 * @param record - the record from the bucket
 * @example
 * ```ts
 * const task = observedOfRecord(entry.key, entry.json<TaskRecord>());
 * ```
 */
export function observedOfRecord(key: string, record: TaskRecord): ObservedTask {
  const c = record.checkpoint;
  return observedOfView(key, { ...record.context, status: record.status, expiresAt: record.expiresAt }, record.node ?? record.writer ?? null, record.hasResult, {
    attempt: record.attempts,
    checkpoint: c ? { seq: c.seq, label: c.label, at: c.at } : null,
  });
}

/**
 * True when two observed versions of a task show the same thing.
 *
 * @example
 * ```ts
 * if (!sameObserved(shown, observedOfRecord(key, record))) emit(record);
 * ```
 */
export function sameObserved(a: ObservedTask, b: ObservedTask): boolean {
  return (
    a.status === b.status &&
    a.updatedAt === b.updatedAt &&
    a.statusMessage === b.statusMessage &&
    a.progress?.progress === b.progress?.progress &&
    sameHandler(a.handler, b.handler) &&
    a.error === b.error &&
    a.node === b.node &&
    a.expiresAt === b.expiresAt &&
    a.hasResult === b.hasResult &&
    a.pendingInputs.join('\u0000') === b.pendingInputs.join('\u0000') &&
    sameFamily(a, b)
  );
}

/**
 * The timeline entry of a published event; `null` for `task.deleted` (a removal, not a change).
 *
 * @param event - the event as published on the task's subject
 * @example
 * ```ts
 * const entry = entryOfEvent(event);
 * ```
 */
export function entryOfEvent(event: FeedEvent): TimelineEntry | null {
  if (event.kind === 'task.deleted') return null;
  const { view } = event;
  const entry: TimelineEntry = { at: view.updatedAt, status: view.status, previous: event.kind === 'task.created' ? null : event.previous, event: event.kind, node: event.node, message: view.statusMessage };
  // The run that made the change, and on a handler machine's move where it went.
  const handler = event.kind === 'task.handler' ? view.handler : undefined;
  if (event.attempt === undefined && handler === undefined) return entry;
  return { ...entry, ...(event.attempt !== undefined && { attempt: event.attempt }), ...(handler !== undefined && { handler }) };
}

/**
 * The timeline entry of a change known only from the record it wrote (its event was never
 * published, or not yet seen): the record's status, message, writer, run, and handler position.
 *
 * @param record - the record after the change
 * @param event - the change, as told from the records (see `inferTimelineEvent`)
 * @param previous - the status before it; `null` for a creation
 * @example
 * ```ts
 * const entry = entryOfRecord(record, 'task.handler', 'working');
 * ```
 */
export function entryOfRecord(record: TaskRecord, event: TimelineEvent, previous: TaskStatus | null): TimelineEntry {
  const handler = event === 'task.handler' ? record.context.handler : undefined;
  return {
    at: record.context.updatedAt,
    status: record.status,
    previous,
    event,
    node: record.writer ?? null,
    message: record.context.statusMessage,
    ...(record.attempts > 0 && { attempt: record.attempts }),
    ...(handler !== undefined && { handler }),
  };
}

/**
 * A task's timeline from its stored events: each sequence number once (a publish repeated after
 * the dedup window is stored twice), in sequence order; the last sequence seen, and the task as
 * its last stored event left it (`null` when none is stored).
 *
 * @param events - the task's events as read from the stream
 * @example
 * ```ts
 * const timeline = timelineOfEvents(await store.events.read(key, 1));
 * ```
 */
export function timelineOfEvents(events: readonly TaskEventRecord<FeedEvent>[]): { entries: TimelineEntry[]; lastSeq: number; lastView: TaskView | null } {
  const bySeq = new Map<number, FeedEvent>();
  for (const e of events) if (!bySeq.has(e.seq)) bySeq.set(e.seq, e.event);
  const seqs = [...bySeq.keys()].sort((a, b) => a - b);
  const entries: TimelineEntry[] = [];
  for (const seq of seqs) {
    const entry = entryOfEvent(bySeq.get(seq)!);
    if (entry) entries.push(entry);
  }
  const last = seqs.at(-1);
  return { entries, lastSeq: last ?? 0, lastView: last === undefined ? null : bySeq.get(last)!.view };
}

/**
 * A task's timeline, read from its stored events (so it is whole whenever the observer began),
 * cut to the creation and the latest entries. Changes whose events were never published (their
 * writer died first) show as one step told from the record.
 *
 * @param store - the task space's store
 * @param key - the task key; anything else has no timeline
 * @example
 * ```ts
 * const timeline = await readTimeline(space.store, key);
 * ```
 */
export async function readTimeline(store: RecordStore, key: string): Promise<TimelineEntry[]> {
  if (!isTaskKey(key)) return [];
  const { entries, lastSeq, lastView } = timelineOfEvents(await store.events.read(key, 1));
  const read = await store.read(key);
  const record = read !== null && 'found' in read ? read.found.record : null;
  if (record !== null && record.seq > lastSeq) {
    // Compared with the task as its last stored event left it, every field alike: a task whose
    // handler machine reported reads as moved by anything newer if "before" lacked its position.
    const event = lastView ? inferTimelineEvent(lastView.status, lastView, record.status, record.context) : 'task.created';
    if (event !== null) entries.push(entryOfRecord(record, event, lastView?.status ?? null));
  }
  return boundTimeline(entries);
}

/**
 * What a task produced, read on demand.
 *
 * @param store - the task space's store
 * @param key - the task key
 * @example
 * ```ts
 * const { hasResult, result } = await readResult(space.store, key);
 * ```
 */
export async function readResult(store: RecordStore, key: string): Promise<ObservedResult> {
  if (!isTaskKey(key)) return { hasResult: false };
  const read = await store.read(key);
  if (read === null || !('found' in read)) return { hasResult: false };
  const { record } = read.found;
  const stored = record.hasResult ? await store.getResult(key, record) : null;
  return stored ? { hasResult: true, result: stored.result, error: record.context.error } : { hasResult: false, error: record.context.error };
}
