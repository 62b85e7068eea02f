/**
 * Where the NATS backend keeps tasks: each task's record in a KV bucket (one read answers
 * `tasks/get` on any node), results in a second bucket (a poll does not carry the result), and a
 * per-owner listing index on a stream (`tasks/list` reads one page, not every task).
 *
 * Every change is a compare-and-swap on the revision the writer got back from its own last write
 * (re-read from the stream leader only when that fails), then the event is published on the
 * task's subject with message id `<key>:<seq>` so a retry is stored once.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { KV, KvWatchEntry } from '@nats-io/kv';
import { chunkBytesFor, getChunked, putChunked } from './chunked-kv.js';
import { PayloadStore } from './payload-store.js';
import { planRecord } from './record-payloads.js';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { isTerminalStatus, type TaskEvent, type TaskStatus } from '../../../machines/index.js';
import { DuplicateTaskIdError, InvalidArgumentError } from '../../errors.js';
import type { InputRequest, TaskView } from '../../task-runtime.types.js';
import { ExpiredMemory } from '../../core/expired-memory.js';
import { bucketStream, type BucketStream } from './erase.js';
import { ensureBucket, ensureStream } from './ensure-stream.js';
import { isWrongLastSequence } from './errors.js';
import { persistently } from './persistently.js';
import { EventStream } from './event-stream.js';
import { RecordRemoval } from './record-removal.js';
export type { RemovalBounds } from './record-removal.js';
import { readIndexPage, type IndexPage } from './index-page.js';
import { nameFromPrefix, ownerToken } from './keys.js';
import { viewOf } from '../../core/view.js';
import type { TaskRecord } from './task-record.js';

/** What is published on a task's subject after each change. */
export interface FeedEvent {
  /** The lifecycle event type, or `task.created` / `task.deleted`. */
  readonly kind: TaskEvent['type'] | 'task.created' | 'task.deleted';
  readonly view: TaskView;
  readonly previous: TaskStatus | null;
  /** The node that made the change. */
  readonly node: string;
  /** The new input request, for `task.input.request`. */
  readonly input?: InputRequest;
  /** The lifecycle event the record took, for the actor of the node running the task. */
  readonly event?: TaskEvent;
  /**
   * The record as written, on the change that ended the task (a waiter has its outcome without a
   * read) and on `task.created` (a worker on another node starts the task without a read).
   */
  readonly record?: TaskRecord;
  /** The KV revision of `record`, on `task.created`. */
  readonly revision?: number;
  /** Runs of the task started so far, once it has started (a new attempt: a resumed or re-run task). */
  readonly attempt?: number;
  /**
   * On `task.input.request` whose params were kept apart (large, see `record-payloads.ts`): where
   * they are (`input.params` is then `null`).
   */
  readonly inputApart?: { readonly order: number; readonly id: string };
}

/** Names and replication of the NATS structures. */
export interface StoreLayout {
  /** Subject prefix and name stem of every stream and bucket. */
  readonly prefix: string;
  readonly replicas: number;
  readonly storage: 'file' | 'memory';
}

/** A record and the revision its reader or writer saw. */
export interface Revisioned {
  readonly record: TaskRecord;
  readonly revision: number;
}

/** Outcome of a {@link RecordStore.read}: the record, a task that expired, or nothing. */
export type ReadResult = { readonly found: Revisioned } | { readonly expired: true } | null;

/**
 * The record, result and index store of one task space.
 *
 * @example
 * ```ts
 * const store = await RecordStore.open(nc, { prefix: 'tasks', replicas: 1, storage: 'file' }, 'node-a');
 * const { record } = await store.mutate(key, (r) => applyEvent(r, taskEvents.cancel(null, Date.now())));
 * ```
 */
export class RecordStore {
  readonly events: EventStream<FeedEvent>;
  readonly #records: KV;
  readonly #results: KV;
  /** The large parts of records, kept apart (in the results bucket). */
  readonly payloads: PayloadStore;
  /** Removing tasks, every part of them (see `record-removal.ts`). */
  readonly removal: RecordRemoval;
  readonly #chunkBytes: number;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #indexStream: string;
  readonly #indexSubject: string;
  readonly #nodeId: string;
  readonly #recordBucket: BucketStream;
  readonly #resultBucket: BucketStream;
  /** Where removals are announced to every node (core NATS: nothing of it is stored). */
  readonly #removedSubject: string;
  readonly #expired: ExpiredMemory;
  /** The revision this node got back from its last write of each key it writes often. */
  readonly #known = new Map<string, Revisioned>();
  /** Creates under way on this node (see {@link RecordStore.creating}). */
  readonly #creating = new Map<string, Promise<unknown>>();
  /**
   * Called after every write this node made: a creation (`previous` null) or a change
   * (`previous` undefined when a retried write is recognised and the status before is unknown).
   * Each change is written by exactly one node, so what is reported here (the audit's status
   * lines) is reported once in the cluster, unlike what every node sees on the event feed.
   */
  onWrite: ((task: TaskView, previous: TaskStatus | null | undefined) => void) | null = null;

  private constructor(o: { nc: NatsConnection; records: KV; results: KV; events: EventStream<FeedEvent>; js: JetStreamClient; jsm: JetStreamManager; prefix: string; nodeId: string; expiredMemory: number }) {
    const base = nameFromPrefix(o.prefix);
    this.#recordBucket = bucketStream(`${base}_snapshots`);
    this.#resultBucket = bucketStream(`${base}_results`);
    this.#removedSubject = `${o.prefix}.removed`;
    this.#expired = new ExpiredMemory(o.expiredMemory);
    this.#records = o.records;
    this.#results = o.results;
    const maxPayload = o.nc.info?.max_payload;
    this.payloads = new PayloadStore(o.results, o.jsm, this.#resultBucket, maxPayload);
    this.#chunkBytes = chunkBytesFor(maxPayload);
    this.events = o.events;
    this.#js = o.js;
    this.#jsm = o.jsm;
    this.#indexStream = `${nameFromPrefix(o.prefix)}_index`;
    this.#indexSubject = `${o.prefix}.index`;
    this.#nodeId = o.nodeId;
    this.removal = new RecordRemoval({
      nc: o.nc,
      js: o.js,
      jsm: o.jsm,
      recordBucket: this.#recordBucket,
      resultBucket: this.#resultBucket,
      events: o.events,
      payloads: this.payloads,
      indexStream: this.#indexStream,
      removedSubject: this.#removedSubject,
      expired: this.#expired,
      forget: (key) => this.#known.delete(key),
    });
  }

  /**
   * Creates the buckets and streams when missing and binds to them.
   *
   * @param nc - a connection from `connectNats`
   * @param layout - prefix, replicas, storage
   * @param nodeId - this node's id, written into every published event
   * @param expiredMemory - how many expired task ids this node remembers (`TaskRuntimeOptions.expiredMemory`)
   * @example
   * ```ts
   * const store = await RecordStore.open(nc, { prefix: 'tasks', replicas: 3, storage: 'file' }, nodeId);
   * ```
   */
  static async open(nc: NatsConnection, layout: StoreLayout, nodeId: string, expiredMemory = 10_000): Promise<RecordStore> {
    const base = nameFromPrefix(layout.prefix);
    // Reads go through the stream leader (allow_direct off): a replica may lag behind a CAS.
    const bucket = { history: 1, replicas: layout.replicas, storage: layout.storage, allow_direct: false } as const;
    const records = await ensureBucket(nc, `${base}_snapshots`, bucket);
    const results = await ensureBucket(nc, `${base}_results`, bucket);
    const events = await EventStream.open<FeedEvent>(nc, { prefix: layout.prefix, replicas: layout.replicas, storage: layout.storage });
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, { name: `${base}_index`, subjects: [`${layout.prefix}.index.*`], storage: layout.storage, num_replicas: layout.replicas });
    return new RecordStore({ nc, records, results, events, js: jetstream(nc), jsm, prefix: layout.prefix, nodeId, expiredMemory });
  }

  /**
   * Reads a task's record from the stream leader.
   *
   * @param key - the task key
   * @returns the record and revision; `{ expired: true }` when the retention timer removed it
   *   and this node still remembers it (see {@link RecordStore.listen}; a requester's delete leaves
   *   no trace); `null` when there is none
   * @example
   * ```ts
   * const r = await store.read(key);
   * if (r && 'found' in r) console.log(r.found.record.status);
   * ```
   */
  async read(key: string): Promise<ReadResult> {
    const entry = await this.#records.get(key);
    if (entry === null || entry.operation !== 'PUT') return this.#expired.has(key) ? { expired: true } : null;
    return { found: { record: entry.json<TaskRecord>(), revision: entry.revision } };
  }

  /**
   * The record of a task as this node last wrote it, with its revision, while it is live (a
   * terminal or removed task is not kept): what this node knows without a read.
   *
   * @example
   * ```ts
   * const mine = store.known(key);
   * ```
   */
  known(key: string): Revisioned | undefined {
    return this.#known.get(key);
  }

  /**
   * Marks a create of `key` under way on this node until `done` settles (see
   * {@link RecordStore.creating}).
   *
   * @example
   * ```ts
   * store.creatingWhile(key, created);
   * ```
   */
  creatingWhile(key: string, done: Promise<unknown>): void {
    this.#creating.set(key, done);
    const clear = (): void => {
      if (this.#creating.get(key) === done) this.#creating.delete(key);
    };
    done.then(clear, clear);
  }

  /**
   * The create of a task under way on this node, if any: a read of the same key (a poll that
   * raced its own create, a worker handed the run before the create's reply came back) waits for
   * it rather than read a record it is about to know. Settles when the create does.
   *
   * @example
   * ```ts
   * await store.creating(key)?.catch(() => undefined);
   * ```
   */
  creating(key: string): Promise<unknown> | undefined {
    return this.#creating.get(key);
  }

  /**
   * Stores a new task: its listing index entry first, then what must exist before it (its queued
   * run), then its record (create-only).
   *
   * @param key - the task key
   * @param ownerKey - the owner's key (index subject)
   * @param record - the first record
   * @param beforeRecord - runs once the task's `order` (unique per creation) is known, before the
   *   record is stored
   * @throws DuplicateTaskIdError when the owner already has a task with this id
   * @example
   * ```ts
   * const created = await store.create(key, ownerKey, newRecord(context, work));
   * ```
   */
  async create(key: string, ownerKey: string, record: TaskRecord, beforeRecord?: (order: number) => Promise<void>): Promise<Revisioned> {
    // Index first: an index entry whose record never came (or is another task's) is skipped by
    // list because the record's `order` does not name it.
    const ack = await this.#js.publish(`${this.#indexSubject}.${ownerToken(ownerKey)}`, JSON.stringify({ key }));
    const order = ack.seq;
    let kept = false;
    try {
      // What must exist before the task does (its queued run): a task is never stranded, even
      // when this node dies while the queue does not answer (a record queued alongside would be).
      await beforeRecord?.(order);
      // Large params go apart from the record, stored first.
      const plan = planRecord({ ...record, order, writer: this.#nodeId });
      kept = plan.store.size > 0;
      await this.payloads.store(key, plan);
      const revision = await this.#createRecord(key, plan.json);
      const created = { record: plan.record, revision };
      this.#known.set(key, created);
      this.#expired.forget(key);
      this.onWrite?.(viewOf(plan.record), null);
      return created;
    } catch (e) {
      // Kept trying in the background while NATS is away (a create that failed in an outage), or
      // the entry of a task that never was would stay in the index for good.
      void persistently(() => this.removal.dropIndexEntry(order), { giveUpMs: 120_000 }).catch(() => undefined);
      // And what it stored apart, unless its record was written after all (a reply lost).
      if (kept) void persistently(() => this.#dropCreated(key, order), { giveUpMs: 120_000 }).catch(() => undefined);
      if (isWrongLastSequence(e)) throw new DuplicateTaskIdError(record.context.taskId, { cause: e });
      throw e;
    }
  }

  /** Purges what a create that failed stored apart, unless its record is there after all. */
  async #dropCreated(key: string, order: number): Promise<void> {
    const read = await this.read(key);
    if (read !== null && 'found' in read && read.found.record.order === order) return;
    await this.payloads.purge(key, order);
  }

  /**
   * KV create, again when it lost to a removal's purge: a create that finds a removal's marker
   * writes over it by its revision, and the removal purging that marker just then makes the write
   * fail as if the id were taken. It is taken only when a live record is there.
   */
  async #createRecord(key: string, json: string): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#records.create(key, json);
      } catch (e) {
        if (!isWrongLastSequence(e) || attempt >= 5 || (await this.removal.recordEnd(key)) === 'live') throw e;
      }
    }
  }

  /**
   * Changes a record by compare-and-swap: `change` gets the latest record and returns the next
   * one, or `null` for no change. Retried on a lost race with the re-read record.
   *
   * @param key - the task key
   * @param change - pure function from the current record to the next (or `null`)
   * @param describe - what to publish for the change (omit to publish nothing)
   * @param writeId - names this write; pass the same one when retrying after an unclear failure,
   *   so a write that did go through is recognised (and published) instead of made twice
   * @param base - the record as the caller just read it from the leader, with its revision: the
   *   first compare-and-swap is made on it (default: this node's own last write, else a read)
   * @returns the record as it is now and whether this call changed it; `null` when the task is gone
   * @example
   * ```ts
   * const out = await store.mutate(key, (r) => applyEvent(r, event), (before, after) => ({ kind: event.type }));
   * ```
   */
  async mutate(
    key: string,
    change: (record: TaskRecord) => TaskRecord | null,
    describe?: (before: TaskRecord, after: TaskRecord) => Omit<FeedEvent, 'view' | 'previous' | 'node'>,
    writeId: string = randomUUID(),
    base?: Revisioned,
  ): Promise<{ readonly record: TaskRecord; readonly changed: boolean } | null> {
    let current: Revisioned | null = base ?? this.#known.get(key) ?? null;
    // Parts this call stored apart for a write that then lost its race: erased unless the record
    // ends up naming them (the task removed meanwhile, or no longer wanting the change).
    const stored = new Map<string, number>();
    for (let attempt = 0; attempt < 50; attempt++) {
      // A base the caller just read from the leader counts as a fresh read.
      let fresh = attempt === 0 && base !== undefined;
      if (current === null) {
        const read = await this.read(key);
        if (read === null || !('found' in read)) {
          await this.#dropUnwritten(key, stored, null);
          return null;
        }
        current = read.found;
        fresh = true;
      }
      // This very write went through on an earlier try whose reply was lost: finish its work.
      if (fresh && current.record.writeId === writeId) return this.#written(key, current.record, current.record, describe);
      const changed = change(current.record);
      if (changed === null) {
        // A "no change" decided on this node's own last write may be stale: decide again on a fresh read.
        if (fresh) {
          await this.#dropUnwritten(key, stored, current.record);
          return { record: current.record, changed: false };
        }
        current = null;
        continue;
      }
      const plan = planRecord({ ...changed, writeId, writer: this.#nodeId });
      let revision: number;
      try {
        if (plan.store.size > 0 && current.record.payloads === undefined) {
          // The first part of this task to go apart: the record says so before anything is
          // stored, so its removal purges it even if this write then loses its race.
          const flagged = { ...current.record, payloads: {} };
          current = { record: flagged, revision: await this.#records.update(key, JSON.stringify(flagged), current.revision) };
          this.#remember(key, current);
          continue;
        }
        await this.payloads.store(key, plan);
        for (const id of plan.store.keys()) stored.set(id, plan.record.order);
        revision = await this.#records.update(key, plan.json, current.revision);
      } catch (e) {
        this.#known.delete(key);
        // Someone else wrote it (or it is gone): read it from the leader and decide again. Any
        // other failure (a timeout while a leader is elected) may still have written it: the
        // caller retries with the same write id, and the check above tells.
        if (!isWrongLastSequence(e)) throw e;
        current = null;
        continue;
      }
      const next = plan.record;
      this.#remember(key, { record: next, revision });
      // A replaced checkpoint's part: nothing names it now (the task's removal would purge it anyway).
      if (plan.dropped.length > 0) void this.payloads.erase(key, next.order, plan.dropped).catch(() => undefined);
      return this.#written(key, current.record, next, describe);
    }
    throw new InvalidArgumentError(`Task record ${key} kept changing under 50 attempts to update it`);
  }

  /**
   * For a mutate that wrote nothing (the task gone, or the change no longer wanted): erases what
   * it stored apart that `record` (the task as it is now, `null` when gone) does not name, since
   * nothing else ever will.
   */
  async #dropUnwritten(key: string, stored: ReadonlyMap<string, number>, record: TaskRecord | null): Promise<void> {
    const named = new Set(record?.payloads === undefined ? [] : Object.values(record.payloads));
    for (const [id, order] of stored) {
      if (record?.order !== order || !named.has(id)) await this.payloads.erase(key, order, [id]).catch(() => undefined);
    }
  }

  async #written(
    key: string,
    before: TaskRecord,
    after: TaskRecord,
    describe: ((before: TaskRecord, after: TaskRecord) => Omit<FeedEvent, 'view' | 'previous' | 'node'>) | undefined,
  ): Promise<{ readonly record: TaskRecord; readonly changed: true }> {
    this.onWrite?.(viewOf(after), before === after ? undefined : before.status);
    // Not acknowledged: the record is the truth and a lost event is a gap readers fill; one
    // connection sends in order, so a task's events still reach the server in sequence.
    if (describe) {
      const view = viewOf(after);
      const ended = isTerminalStatus(after.status) ? { record: after } : null;
      this.post(key, after, { ...describe(before, after), view, previous: before === after ? null : before.status, node: this.#nodeId, ...ended });
    }
    return { record: after, changed: true };
  }

  /** Keeps the last written revision only for tasks still running (they are written again). */
  #remember(key: string, r: Revisioned): void {
    if (r.record.expiresAt !== null || r.record.status === 'completed' || r.record.status === 'failed' || r.record.status === 'cancelled' || r.record.status === 'unknown') this.#known.delete(key);
    else this.#known.set(key, r);
  }

  /**
   * Publishes event `seq` of a task on its subject (stored once, whatever the retries). A failed
   * publish is not an error of the change: the record is the truth, and readers that see a gap
   * in the sequence read the record instead.
   *
   * @example
   * ```ts
   * await store.publish(key, record, { kind: 'task.cancel', view, previous, node });
   * ```
   */
  async publish(key: string, at: { readonly order: number; readonly seq: number }, event: FeedEvent): Promise<void> {
    await this.events.append(key, at.seq, event, at.order).catch(() => undefined);
  }

  /**
   * {@link RecordStore.publish} without the server's acknowledgement, for a caller that would not
   * wait for it (see `EventStream.post`).
   *
   * @example
   * ```ts
   * store.post(key, record, { kind: 'task.created', view, previous: null, node });
   * ```
   */
  post(key: string, at: { readonly order: number; readonly seq: number }, event: FeedEvent): void {
    try {
      this.events.post(key, at.seq, event, at.order);
    } catch {
      // Connection closed or draining: a gap readers fill from the record.
    }
  }

  /**
   * Stores a task's result (before the record says `completed`, so a reader that sees the
   * status always finds the result).
   *
   * Any size: a large result is stored in chunks (the only cap is the runtime's `maxResultBytes`).
   * @example
   * ```ts
   * await store.putResult(key, { content: [] });
   * ```
   */
  async putResult(key: string, result: unknown): Promise<void> {
    await putChunked(this.#results, key, JSON.stringify(result ?? null), this.#chunkBytes);
  }

  /**
   * How many tasks an owner has stored (its entries in the listing index: one per task, from its
   * create until its removal), read from the stream now.
   *
   * @example
   * ```ts
   * const count = await store.countOf(ownerKey);
   * ```
   */
  async countOf(ownerKey: string): Promise<number> {
    const subject = `${this.#indexSubject}.${ownerToken(ownerKey)}`;
    const info = await this.#jsm.streams.info(this.#indexStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  /**
   * The bytes the task space keeps of its tasks: its records and results buckets (results, parts of
   * records kept apart, records with their messages) and its event stream, read from the streams now.
   *
   * @example
   * ```ts
   * const bytes = await store.storedBytes();
   * ```
   */
  async storedBytes(): Promise<number> {
    // The events too: a task's events stay until it is removed, and they are most of what a small
    // task keeps (about 3.5 KB of events beside a 0.9 KB record: two of them carry the record).
    const streams = [this.#recordBucket.stream, this.#resultBucket.stream, this.events.stream];
    const infos = await Promise.all(streams.map((stream) => this.#jsm.streams.info(stream)));
    return infos.reduce((sum, info) => sum + info.state.bytes, 0);
  }

  /**
   * Reads a task's result: from its record when the record carries it, else from the results bucket.
   *
   * @returns `{ result }`, or `null` when none is stored
   * @example
   * ```ts
   * const r = await store.getResult(key);
   * ```
   */
  async getResult(key: string, record?: TaskRecord): Promise<{ readonly result: unknown } | null> {
    if (record?.inline) return { result: record.inline.value };
    const json = await getChunked(this.#results, key);
    return json === null ? null : { result: JSON.parse(json) as unknown };
  }

  /**
   * How many tasks this node keeps its last written revision of (tasks it may write again; for
   * tests and `status`): bounded by the tasks not removed yet.
   *
   * @example
   * ```ts
   * store.revisionsKept; // 0 once every task this node wrote is gone
   * ```
   */
  get revisionsKept(): number {
    return this.#known.size;
  }

  /**
   * One page of an owner's tasks, oldest first, reading only the index entries of that owner
   * after the cursor and the records of the page.
   *
   * @param ownerKey - the owner's key
   * @param afterOrder - index sequence after which to start (0 for the first page)
   * @param limit - tasks per page
   * @example
   * ```ts
   * const page = await store.page(ownerKey, 0, 20);
   * ```
   */
  async page(ownerKey: string, afterOrder: number, limit: number): Promise<IndexPage> {
    return readIndexPage({ js: this.#js, jsm: this.#jsm, stream: this.#indexStream, subject: `${this.#indexSubject}.${ownerToken(ownerKey)}`, read: (key) => this.read(key) }, afterOrder, limit);
  }

  /**
   * Watches every task record (for the operator's view): first the latest version of each key,
   * removed ones as `DEL` (expired) or `PURGE` (deleted) markers, then every write as it lands.
   *
   * @returns the watch and how many entries the bucket held when it began (0: nothing to load)
   * @example
   * ```ts
   * const { updates } = await store.watchRecords();
   * for await (const e of updates) if (e.operation === 'PUT') console.log(e.key, e.json<TaskRecord>().status);
   * ```
   */
  async watchRecords(): Promise<{ readonly updates: AsyncIterable<KvWatchEntry> & { stop(): void }; readonly initial: number }> {
    const initial = (await this.#records.status()).values;
    return { updates: await this.#records.watch(), initial };
  }

  /**
   * Every key of the record bucket (for `status` and tests; cost grows with the task count).
   *
   * @example
   * ```ts
   * for (const key of await store.keys()) console.log(key);
   * ```
   */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    for await (const k of await this.#records.keys()) out.push(k);
    return out;
  }
}
