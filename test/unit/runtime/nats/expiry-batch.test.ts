import { describe, expect, it, vi } from 'vitest';
import { ExpiryBatch, type ExpiryTask } from '../../../../runtime/backends/nats/expiry-batch.js';

interface Sent {
  readonly id: string;
  readonly due: number;
  readonly tasks: readonly ExpiryTask[];
}

function recording(): { batch: ExpiryBatch; sent: Sent[] } {
  const sent: Sent[] = [];
  const batch = new ExpiryBatch(async (id, due, tasks) => void sent.push({ id, due, tasks: [...tasks] }));
  return { batch, sent };
}

describe('ExpiryBatch', () => {
  it('sends the timers of tasks due within the same tenth of a second as one message, due at its end', async () => {
    const { batch, sent } = recording();
    batch.add({ key: 'a', order: 1 }, 10_001);
    batch.add({ key: 'b', order: 2 }, 10_099);
    batch.add({ key: 'c', order: 3 }, 10_100);
    batch.add({ key: 'd', order: 4 }, 10_101);
    await batch.queued();
    expect(sent.map((s) => [s.due, s.tasks.map((t) => t.key)])).toEqual([
      [10_100, ['a', 'b', 'c']],
      [10_200, ['d']],
    ]);
    // Each batch its own message id (a repeat of the same id would be dropped as a duplicate).
    expect(new Set(sent.map((s) => s.id)).size).toBe(2);
  });

  it('sends a full batch at once, and nothing twice', async () => {
    const { batch, sent } = recording();
    for (let i = 0; i < 450; i++) batch.add({ key: `k${i}`, order: i }, 5_000);
    // Two full batches went out without waiting; the rest waits for its collection time.
    expect(sent.map((s) => s.tasks.length)).toEqual([200, 200]);
    await batch.queued();
    expect(sent.map((s) => s.tasks.length)).toEqual([200, 200, 50]);
    expect(new Set(sent.flatMap((s) => s.tasks.map((t) => t.key))).size).toBe(450);
    await batch.queued();
    expect(sent).toHaveLength(3);
  });

  it('resolves queued() only once what was added before it has been sent', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sent: string[] = [];
    let sending = false;
    const batch = new ExpiryBatch(async (_id, _due, tasks) => {
      sending = true;
      await gate;
      sent.push(...tasks.map((t) => t.key));
    });
    batch.add({ key: 'x', order: 1 }, 1_000);
    let done = false;
    const queued = batch.queued().then(() => (done = true));
    // The batch is out, its send not finished: queued() is still waiting for it.
    await vi.waitFor(() => expect(sending).toBe(true), { timeout: 1_000, interval: 5 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    release();
    await queued;
    expect(sent).toEqual(['x']);
  });
});
