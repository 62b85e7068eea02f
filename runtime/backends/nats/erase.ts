/**
 * Removing a KV key so that nothing of it stays in the bucket's stream.
 *
 * A KV delete or purge writes a marker message, and with `history: 1` that marker is the one
 * message the key keeps, forever: a task space that ran a million tasks held three million
 * markers after they had all expired. nats-server 2.9 has no marker TTL, so the key's subject is
 * purged from the stream instead, which leaves nothing. A guarded removal still writes its marker
 * first (compare-and-swap on the revision the remover read, and the signal every watcher of the
 * bucket acts on), then purges the subject up to and including that marker: a write that lands
 * after it (the id used again) is kept.
 *
 * @module
 */
import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers, Empty } from '@nats-io/transport-node';

/** A KV bucket as a stream: its stream name and the subject of a key. */
export interface BucketStream {
  readonly stream: string;
  subject(key: string): string;
}

/**
 * The stream behind KV bucket `bucket`.
 *
 * @example
 * ```ts
 * bucketStream('tasks_leases').subject(key); // '$KV.tasks_leases.<key>'
 * ```
 */
export function bucketStream(bucket: string): BucketStream {
  return { stream: `KV_${bucket}`, subject: (key) => `$KV.${bucket}.${key}` };
}

/**
 * Purges every message of `subject` from `stream` (up to, not including, `before` when given).
 *
 * @example
 * ```ts
 * await eraseSubject(jsm, 'KV_tasks_results', '$KV.tasks_results.<key>.>');
 * ```
 */
export async function eraseSubject(jsm: JetStreamManager, stream: string, subject: string, before?: number): Promise<void> {
  await jsm.streams.purge(stream, before === undefined ? { filter: subject } : { filter: subject, seq: before });
}

/**
 * Removes a key the way KV `delete` (`DEL`) or `purge` (`PURGE`) would, watchers included, then
 * purges the key's subject through its marker, so the stream keeps nothing of it.
 *
 * @param revision - when given, the removal happens only if the key is still at this revision
 * @param lingerMs - when above 0, the marker is purged this long after it was written (in the
 *   background), so that watchers behind by less than that still see the key go
 * @throws the server's "wrong last sequence" error when the key moved past `revision`
 * @example
 * ```ts
 * await removeKey(js, jsm, bucketStream('tasks_snapshots'), key, 'DEL', revision);
 * ```
 */
export async function removeKey(js: JetStreamClient, jsm: JetStreamManager, bucket: BucketStream, key: string, op: 'DEL' | 'PURGE', revision?: number, lingerMs = 0): Promise<void> {
  const h = headers();
  h.set('KV-Operation', op);
  if (op === 'PURGE') h.set('Nats-Rollup', 'sub');
  const subject = bucket.subject(key);
  const ack = await js.publish(subject, Empty, revision === undefined ? { headers: h } : { headers: h, expect: { lastSubjectSequence: revision } });
  if (lingerMs <= 0) return eraseSubject(jsm, bucket.stream, subject, ack.seq + 1);
  // A watcher reads the marker from the stream: purged before its consumer got to it, the watcher
  // never sees the key go. Left for a moment, every watcher that keeps up sees it. A node that
  // dies meanwhile leaves one marker behind (what a plain KV delete leaves anyway).
  setTimeout(() => void eraseSubject(jsm, bucket.stream, subject, ack.seq + 1).catch(() => undefined), lingerMs).unref();
}

/**
 * The next sequence of `stream`: what is published from now on has this sequence or a later one.
 * Taken before a removal decides, it bounds the removal's purges to what was there already, so a
 * task created again under the same key meanwhile keeps its messages.
 *
 * @example
 * ```ts
 * const before = await nextSequence(jsm, 'KV_tasks_leases');
 * await eraseSubject(jsm, 'KV_tasks_leases', subject, before);
 * ```
 */
export async function nextSequence(jsm: JetStreamManager, stream: string): Promise<number> {
  return (await jsm.streams.info(stream)).state.last_seq + 1;
}

/**
 * Whether the last message of `subject` in `stream` is a KV delete or purge marker, and its
 * sequence: `null` when the subject holds nothing, `'live'` when it holds a value.
 *
 * @example
 * ```ts
 * const last = await lastMarker(jsm, bucket.stream, bucket.subject(key));
 * ```
 */
export async function lastMarker(jsm: JetStreamManager, stream: string, subject: string): Promise<number | 'live' | null> {
  try {
    const m = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (m === null) return null;
    const op = m.header?.get('KV-Operation');
    return op === 'DEL' || op === 'PURGE' ? m.seq : 'live';
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === JetStreamApiCodes.NoMessageFound) return null;
    throw e;
  }
}
