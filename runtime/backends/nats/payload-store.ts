/**
 * Where the large parts of task records are kept (see `record-payloads.ts` for which, and when):
 * the results bucket, under each task's key, so a task's removal (expiry or delete) purges them
 * with its result. Storage only; the record store decides.
 *
 * @module
 */
import type { KV } from '@nats-io/kv';
import type { JetStreamManager } from '@nats-io/jetstream';
import { chunkBytesFor, eraseChunked, getChunked, putChunked } from './chunked-kv.js';
import { eraseSubject, type BucketStream } from './erase.js';
import { RecordTooLargeError } from './errors.js';
import { payloadKey, payloadTree, withPayloads, type PlannedRecord } from './record-payloads.js';
import type { TaskRecord } from './task-record.js';

/** Room left in a message besides the record (headers, and what a server adds). */
const HEADROOM_BYTES = 16 * 1024;

/**
 * The parts of task records kept apart, in the results bucket.
 *
 * @example
 * ```ts
 * const payloads = new PayloadStore(results, jsm, bucketStream('tasks_results'), nc.info?.max_payload);
 * const full = await payloads.read(key, record);
 * ```
 */
export class PayloadStore {
  readonly #kv: KV;
  readonly #jsm: JetStreamManager;
  readonly #bucket: BucketStream;
  readonly #chunkBytes: number;
  /** The largest record JSON a message carries. */
  readonly maxRecordBytes: number;

  /**
   * @param maxPayload - the server's `max_payload` (the connection's server info), if known
   */
  constructor(kv: KV, jsm: JetStreamManager, bucket: BucketStream, maxPayload: number | undefined) {
    this.#kv = kv;
    this.#jsm = jsm;
    this.#bucket = bucket;
    this.#chunkBytes = chunkBytesFor(maxPayload);
    this.maxRecordBytes = (maxPayload ?? 1024 * 1024) - HEADROOM_BYTES;
  }

  /**
   * Stores what a planned record keeps apart, before the record is written (a reader that finds
   * a part named finds it stored).
   *
   * @throws RecordTooLargeError when the record is too large even so (what stays in it: a status
   *   message, an error, partial results)
   * @example
   * ```ts
   * await payloads.store(key, plan);
   * ```
   */
  async store(key: string, plan: PlannedRecord): Promise<void> {
    const bytes = plan.json.length * 3 <= this.maxRecordBytes ? plan.json.length : Buffer.byteLength(plan.json);
    if (bytes > this.maxRecordBytes) throw new RecordTooLargeError(plan.record.context.taskId, bytes, this.maxRecordBytes);
    for (const [id, json] of plan.store) await putChunked(this.#kv, payloadKey(key, plan.record.order, id), json, this.#chunkBytes);
  }

  /**
   * `record` with its parts kept apart read back (those `which` selects; default: all).
   *
   * @throws Error naming a part that is no longer stored
   * @example
   * ```ts
   * const full = await payloads.read(key, record, (slot) => slot === 'params');
   * ```
   */
  read(key: string, record: TaskRecord, which?: (slot: string) => boolean): Promise<TaskRecord> {
    return withPayloads(record, (id) => getChunked(this.#kv, payloadKey(key, record.order, id)), which);
  }

  /**
   * One part kept apart, by the incarnation's `order` and the part's id.
   *
   * @throws Error when it is no longer stored
   * @example
   * ```ts
   * const params = await payloads.part(key, apart.order, apart.id);
   * ```
   */
  async part(key: string, order: number, id: string): Promise<unknown> {
    const json = await getChunked(this.#kv, payloadKey(key, order, id));
    if (json === null) throw new Error(`A part of task record ${key} kept apart is no longer stored`);
    return JSON.parse(json) as unknown;
  }

  /**
   * Erases parts a record no longer names (a replaced checkpoint's). Nothing else names them.
   *
   * @example
   * ```ts
   * await payloads.erase(key, order, plan.dropped);
   * ```
   */
  async erase(key: string, order: number, ids: readonly string[]): Promise<void> {
    await Promise.all(ids.map((id) => eraseChunked(this.#jsm, this.#bucket, payloadKey(key, order, id))));
  }

  /**
   * Purges every part kept apart for incarnation `order` of a task (up to, not including,
   * sequence `before` when given): a removed task's, or a failed create's.
   *
   * @example
   * ```ts
   * await payloads.purge(key, record.order, bounds.results);
   * ```
   */
  async purge(key: string, order: number, before?: number): Promise<void> {
    await eraseSubject(this.#jsm, this.#bucket.stream, this.#bucket.subject(payloadTree(key, order)), before);
  }
}
