import { describe, expect, it, vi } from 'vitest';
import type { EventFeed } from '../../../../runtime/backends/nats/event-feed.js';
import { HEARD_MS, HeardCreates } from '../../../../runtime/backends/nats/heard-creates.js';
import type { FeedEvent } from '../../../../runtime/backends/nats/record-store.js';
import type { TaskRecord } from '../../../../runtime/backends/nats/task-record.js';

type Listener = (key: string, event: FeedEvent, seq: number) => void;

/** A feed that delivers what the test says it heard (the real one is a NATS subscription). */
function feed(): { feed: EventFeed; hear: (key: string, event: Partial<FeedEvent>) => void; listeners: Set<Listener> } {
  const listeners = new Set<Listener>();
  const fake = { watchAll: (l: Listener) => (listeners.add(l), () => listeners.delete(l)) } as unknown as EventFeed;
  return { feed: fake, listeners, hear: (key, event) => listeners.forEach((l) => l(key, event as FeedEvent, 1)) };
}

function created(order: number, node = 'front', revision = 7): Partial<FeedEvent> {
  return { kind: 'task.created', node, record: { order, status: 'submitted', attempts: 0 } as unknown as TaskRecord, revision };
}

describe('HeardCreates', () => {
  it('should hand a heard create to the run of the same creation, once', () => {
    const f = feed();
    const heard = new HeardCreates(f.feed, 'worker');
    f.hear('k', created(3));
    // Another creation under the key (a task created again) is not this run's.
    expect(heard.take('k', 4, 0)).toBeUndefined();
    expect(heard.take('k', 3, 0)).toEqual({ record: expect.objectContaining({ order: 3 }), revision: 7 });
    expect(heard.take('k', 3, 0)).toBeUndefined();
  });

  it('should answer a run that came first when its create is heard, and nothing after the wait', async () => {
    vi.useFakeTimers();
    try {
      const f = feed();
      const heard = new HeardCreates(f.feed, 'worker');
      const early = heard.take('k', 3, 200);
      f.hear('k', created(3));
      await expect(early).resolves.toEqual({ record: expect.objectContaining({ order: 3 }), revision: 7 });
      // Taken by the waiter: nothing kept for a second run.
      expect(heard.size).toBe(0);
      const late = heard.take('other', 1, 200);
      vi.advanceTimersByTime(200);
      await expect(late).resolves.toBeUndefined();
      // A create heard after the wait gave up is kept for the next look.
      f.hear('other', created(1));
      expect(heard.size).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('should ignore its own node, events without a record, and other kinds, and forget after a while', () => {
    let now = 1_000;
    const f = feed();
    const heard = new HeardCreates(f.feed, 'worker', () => now);
    f.hear('mine', created(1, 'worker'));
    f.hear('bare', { kind: 'task.created', node: 'front' });
    f.hear('start', { ...created(2), kind: 'task.start' });
    expect(heard.size).toBe(0);
    f.hear('k', created(5));
    now += HEARD_MS;
    expect(heard.take('k', 5, 0)).toBeUndefined();
    expect(heard.size).toBe(0);
  });

  it('should stop listening and release waiters on close', async () => {
    const f = feed();
    const heard = new HeardCreates(f.feed, 'worker');
    const waiting = heard.take('k', 1, 60_000);
    heard.close();
    await expect(waiting).resolves.toBeUndefined();
    expect(f.listeners.size).toBe(0);
  });
});
