/**
 * A NATS task's timeline when its record is ahead of its stored events (the event of the last
 * change was never published, or not yet stored): the change is told from the task as its last
 * stored event left it, every field alike. A task whose handler machine reported shows a later
 * progress report or status message as what it was, not as another handler move.
 */
import { describe, expect, it } from 'vitest';
import { taskEvents, type HandlerPosition, type TaskEvent } from '../../../../machines/index.js';
import type { TaskEventRecord } from '../../../../runtime/backends/nats/event-stream.js';
import { taskKey } from '../../../../runtime/backends/nats/keys.js';
import { readTimeline } from '../../../../runtime/backends/nats/observed-record.js';
import type { FeedEvent, RecordStore } from '../../../../runtime/backends/nats/record-store.js';
import { applyEvent, newRecord, type TaskRecord } from '../../../../runtime/backends/nats/task-record.js';
import { viewOf } from '../../../../runtime/core/view.js';
import { INPUT } from '../../machines/task.reference-model.js';

const key = taskKey({ ownerKey: 'session-1', taskId: INPUT.taskId });
const position: HandlerPosition = { machine: 'job', graph: 'g', states: ['job.working'], status: 'active', step: 3, checkpoint: false };

/** The record after `events`, and the feed events of all but the last `unpublished` of them. */
function history(events: TaskEvent[], unpublished: number): { record: TaskRecord; stored: TaskEventRecord<FeedEvent>[] } {
  let record = newRecord(INPUT, null);
  const stored: TaskEventRecord<FeedEvent>[] = [{ seq: 1, streamSeq: 1, event: { kind: 'task.created', view: viewOf(record), previous: null, node: 'w1' } }];
  events.forEach((event, i) => {
    const previous = record.status;
    record = { ...applyEvent(record, event)!, writer: 'w1', attempts: 1 };
    if (i < events.length - unpublished) stored.push({ seq: record.seq, streamSeq: record.seq, event: { kind: event.type, view: viewOf(record), previous, node: 'w1', attempt: 1 } });
  });
  return { record, stored };
}

/** A store holding `record` and the events `stored`: what `readTimeline` reads. */
const storeOf = (record: TaskRecord, stored: TaskEventRecord<FeedEvent>[]): RecordStore =>
  ({
    events: { read: () => Promise.resolve(stored) },
    read: () => Promise.resolve({ found: { record, revision: record.seq } }),
  }) as unknown as RecordStore;

describe('readTimeline of a NATS task whose record is ahead of its events', () => {
  const cases: [string, TaskEvent, string][] = [
    ['a progress report', taskEvents.progress({ progress: 2, total: 4 }, 2_003), 'task.progress'],
    ['a status message', taskEvents.message('half way', 2_003), 'task.message'],
  ];
  for (const [what, change, label] of cases) {
    it(`should label ${what} after a handler move ${label}, without a second handler entry`, async () => {
      const { record, stored } = history([taskEvents.start(2_001), taskEvents.handler(position, 2_002), change], 1);
      expect(stored.map((e) => e.event.kind)).toEqual(['task.created', 'task.start', 'task.handler']);
      const timeline = await readTimeline(storeOf(record, stored), key);
      expect(timeline.map((e) => e.event)).toEqual(['task.created', 'task.start', 'task.handler', label]);
      expect(timeline.at(-1)).not.toHaveProperty('handler');
      expect(timeline.at(-1)).toMatchObject({ status: 'working', previous: 'working', attempt: 1 });
    });
  }

  it('should label a handler move read from the record alone task.handler, with its position', async () => {
    const { record, stored } = history([taskEvents.start(2_001), taskEvents.progress({ progress: 1 }, 2_002), taskEvents.handler(position, 2_003)], 1);
    const timeline = await readTimeline(storeOf(record, stored), key);
    expect(timeline.map((e) => e.event)).toEqual(['task.created', 'task.start', 'task.progress', 'task.handler']);
    expect(timeline.at(-1)?.handler).toEqual(position);
  });
});
