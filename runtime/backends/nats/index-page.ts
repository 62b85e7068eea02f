/**
 * One page of an owner's tasks from the listing index: an ephemeral consumer over that owner's
 * index entries after the cursor, and a read of each entry's record. Cost O(page), not O(all).
 *
 * @module
 */
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { TaskRecord } from './task-record.js';

/** What a page read needs of the record store. */
export interface IndexSource {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** The index stream. */
  readonly stream: string;
  /** The owner's index subject. */
  readonly subject: string;
  /** Reads a record from the leader (as `RecordStore.read`). */
  read(key: string): Promise<{ readonly found: { readonly record: TaskRecord } } | { readonly expired: true } | null>;
}

/** One page: its records, the index sequence it ended at (the next cursor), and whether more follow. */
export interface IndexPage {
  readonly records: TaskRecord[];
  readonly lastOrder: number;
  readonly more: boolean;
}

/**
 * Reads one page of the owner's tasks after `afterOrder`, oldest first.
 *
 * @param o - the index stream, the owner's subject, and the record reader
 * @param afterOrder - index sequence after which to start (0 for the first page)
 * @param limit - tasks per page
 * @example
 * ```ts
 * const page = await readIndexPage({ js, jsm, stream, subject, read: (k) => store.read(k) }, 0, 20);
 * ```
 */
export async function readIndexPage(o: IndexSource, afterOrder: number, limit: number): Promise<IndexPage> {
  // An ephemeral consumer over this owner's entries after the cursor: the server says at once
  // how many there are (num_pending), so a read never waits for entries that do not exist.
  const created = await o.jsm.consumers.add(o.stream, {
    filter_subject: o.subject,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: afterOrder + 1,
    ack_policy: AckPolicy.None,
    inactive_threshold: nanos(30_000),
    mem_storage: true,
  });
  const records: TaskRecord[] = [];
  let lastOrder = afterOrder;
  let remaining = created.num_pending;
  try {
    const consumer = await o.js.consumers.get(o.stream, created.name);
    let emptyPulls = 0;
    while (remaining > 0 && records.length < limit) {
      const want = Math.min(remaining, limit - records.length);
      const batch: { key: string; seq: number }[] = [];
      for await (const m of await consumer.fetch({ max_messages: want, expires: 1_000 })) {
        batch.push({ key: m.json<{ key: string }>().key, seq: m.seq });
        if (batch.length >= want) break;
      }
      if (batch.length < want) {
        // Fewer than asked: entries deleted since they were counted (tasks removed meanwhile),
        // or a pull cut short on a loaded server. The consumer says how many are still to come:
        // the listing neither waits for deleted ones nor ends before live ones.
        remaining = (await consumer.info()).num_pending;
        if (batch.length === 0 && (remaining === 0 || ++emptyPulls >= 5)) break;
      } else {
        remaining -= batch.length;
      }
      const read = await Promise.all(batch.map((b) => o.read(b.key)));
      for (let i = 0; i < batch.length; i++) {
        const r = read[i];
        lastOrder = batch[i]!.seq;
        // Skip deleted tasks and entries that are not the record's own (a refused duplicate).
        if (r && 'found' in r && r.found.record.order === batch[i]!.seq) records.push(r.found.record);
      }
    }
  } finally {
    await o.jsm.consumers.delete(o.stream, created.name).catch(() => undefined);
  }
  // Entries after the page may all be deleted ones: then the next page is empty.
  const more = remaining > 0;
  return { records, lastOrder, more };
}
