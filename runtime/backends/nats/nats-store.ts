/**
 * The NATS backend's store: task records in a KV bucket moved by compare-and-swap, results in
 * another, listings in an index stream, every change published on the task's subject, work queued
 * for worker nodes. Storage and transport only: every rule is the task core's.
 *
 * @module
 */
import { isTerminalStatus, taskEvents, type TaskEvent } from '../../../machines/index.js';
import type { AuditLog } from '../../audit/index.js';
import { disabledSecurityReport } from '../../audit/index.js';
import type { Moved, NewTask, TaskStore, TaskWatch } from '../../core/task-store.js';
import { viewOf } from '../../core/view.js';
import { DuplicateTaskIdError } from '../../errors.js';
import type { ResolvedTaskRuntimeOptions } from '../../options.js';
import type { InputAnswer, InputRequest, TaskChange, TaskView } from '../../task-runtime.types.js';
import type { TaskObserver } from '../../observer.types.js';
import { FreshTasks } from './fresh-tasks.js';
import { taskKey } from './keys.js';
import { NatsObserver } from './nats-observer.js';
import type { FeedEvent, Revisioned } from './record-store.js';
import type { RunningTasks } from './running-tasks.js';
import { KeptReadings } from './kept-readings.js';
import { OwnerBytes } from './owner-bytes.js';
import type { KeptNow } from '../../core/task-store.js';
import { newRecord, pendingInputsOf, type TaskRecord } from './task-record.js';
import { persistently } from './persistently.js';
import { isNatsTransient } from './transient.js';
import { applyToTask, removeTask, type TaskSpace } from './task-space.js';
import type { TaskWorker } from './task-worker.js';
import type { NatsReadiness } from './nats-readiness.js';
import type { UnservedTasks } from './unserved-tasks.js';

/** Changes a listener hears of besides status changes: a message, progress, a partial result, an input request asked or answered. */
const NEWS: ReadonlySet<string> = new Set(['task.message', 'task.progress', 'task.partial', 'task.input.request', 'task.input.response']);

/** The most ended tasks `stats().retained` keeps track of (the oldest are forgotten first). */
const MAX_RETAINED_COUNTED = 100_000;

/** How often a waiter re-reads the record in case an event was lost with a connection. */
const WAIT_REREAD_MS = 2_000;

/**
 * The NATS store of one node.
 *
 * @example
 * ```ts
 * const store = new NatsStore(space, opts, { running, worker, audit });
 * const runtime = createCoreRuntime(opts, store, { limiter, handlers: space.handlers, hasWork: (r) => r.work !== null });
 * ```
 */
export class NatsStore implements TaskStore<TaskRecord> {
  readonly rereadMs = WAIT_REREAD_MS;
  readonly handsOver = true;
  readonly watchesBySequence = true;
  /** Timeouts, a lost connection, JetStream not answering yet: the NATS backend's one list. */
  readonly isTransient = isNatsTransient;
  readonly maxPosition = Number.MAX_SAFE_INTEGER;
  readonly #space: TaskSpace;
  readonly #opts: ResolvedTaskRuntimeOptions;
  readonly #running: RunningTasks | null;
  readonly #worker: TaskWorker | null;
  readonly #audit: AuditLog | null;
  /** On a front node: tasks whose handler no live worker serves (see `unserved-tasks.ts`). */
  readonly #unserved: UnservedTasks | null;
  readonly #observers = new Set<NatsObserver>();
  /**
   * Terminal tasks this node has seen end (every node receives every task's events) and not yet
   * seen removed, with when their retention ends: `stats().retained`, without a read.
   */
  readonly #retained = new Map<string, number>();
  readonly #stopCounting: () => void;
  /** Tasks created here a moment ago, followed by the feed since their first record. */
  readonly #fresh: FreshTasks;
  /** What the task space keeps, for the retention limits (read at most once a second). */
  readonly #kept: KeptReadings;
  /** What each requester's ended tasks keep, for `maxRetainedBytesPerRequester` (heard, no read). */
  readonly #ownerBytes: OwnerBytes;
  #ownerBytesLoaded = false;
  /** The connection and the task space's streams, for `unready`. */
  readonly #readiness: NatsReadiness | null;
  /** Told when the node begins to drain (its heartbeat says so). */
  readonly #onDrain: () => void;

  constructor(
    space: TaskSpace,
    opts: ResolvedTaskRuntimeOptions,
    parts: { running: RunningTasks | null; worker: TaskWorker | null; audit: AuditLog | null; unserved?: UnservedTasks | null; readiness?: NatsReadiness | null; onDrain?: () => void },
  ) {
    this.#readiness = parts.readiness ?? null;
    this.#onDrain = parts.onDrain ?? (() => undefined);
    this.#space = space;
    this.#opts = opts;
    this.#running = parts.running;
    this.#worker = parts.worker;
    this.#audit = parts.audit;
    this.#unserved = parts.unserved ?? null;
    this.#fresh = new FreshTasks(space.feed, Date.now);
    this.#kept = new KeptReadings(space.store, Date.now);
    this.#ownerBytes = new OwnerBytes(space.feed, opts.now);
    // What ended before this node started: read once, only where the share is judged.
    if (opts.limits.maxRetainedBytesPerRequester !== null) this.#ownerBytes.load(space.store);
    this.#stopCounting = space.feed.watchAll((key, event) => {
      if (event.kind === 'task.deleted' || event.kind === 'task.created') this.#retained.delete(key);
      else if (isTerminalStatus(event.view.status)) {
        this.#retained.delete(key);
        this.#retained.set(key, event.view.expiresAt ?? Infinity);
        this.#pruneRetained();
      }
    });
  }

  keyOf(ownerKey: string, taskId: string): string {
    return taskKey({ ownerKey, taskId });
  }

  async read(key: string, o: { readonly watched?: boolean } = {}): Promise<TaskRecord | 'expired' | null> {
    // A poll that raced its own create waits for it.
    await this.#space.store.creating(key)?.catch(() => undefined);
    // A waiter's first look at a task created here a moment ago: the record as this node wrote it
    // is current as far as the feed, which has followed the task since, knows (nothing after it).
    if (o.watched && this.#fresh.isFollowed(key)) {
      const mine = this.#space.store.known(key);
      if (mine && this.#space.feed.position(key) === mine.record.seq) return mine.record;
    }
    const read = await this.#space.store.read(key);
    if (read === null) return null;
    if (!('found' in read)) return 'expired';
    const record = read.found.record;
    // A failure's detail kept apart (large) is read back: the core hands it to the outcome.
    return record.payloads?.['failure'] === undefined ? record : this.#space.store.payloads.read(key, record, (slot) => slot === 'failure');
  }

  async create(task: NewTask): Promise<TaskView> {
    // Followed from before its record is written: a wait right after needs no read (see `read`).
    const follow = this.#fresh.follow(task.key);
    const created = this.#create(task);
    this.#space.store.creatingWhile(task.key, created);
    created.then((record) => follow.created(record.seq), () => follow.failed());
    return viewOf(await created);
  }

  async #create(task: NewTask): Promise<TaskRecord> {
    const { key, ownerKey, input } = task;
    const space = this.#space;
    const { now } = this.#opts;
    const running = this.#running;
    // The claim goes out alongside the index entry, and is settled before the run is queued: a
    // refused task is never queued nor stored (its index entry, which names no record, is dropped).
    const claimed = running?.claim(ownerKey, key, this.#opts.limits.maxConcurrentTasks!);
    claimed?.catch(() => undefined);
    const work = task.work
      ? { handler: task.work.name, params: task.work.params, retry: task.work.options.retry ?? 'never', maxAttempts: task.work.options.maxAttempts ?? space.maxAttempts, ...(task.work.trace && { trace: task.work.trace }), ...(task.work.requesterCapabilities && { requesterCapabilities: task.work.requesterCapabilities }) }
      : null;
    // The run is queued before the record exists (a worker waits a moment for a record it cannot
    // find yet), so a front node that dies in between leaves no task that nothing will run.
    const queueRun = async (order: number): Promise<void> => {
      await claimed;
      if (work) await persistently(() => space.runs.enqueue({ id: `run:${key}:${order}:1`, key, attempt: 1, order, handler: work.handler }).then(() => undefined), { giveUpMs: 15_000 });
    };
    let created;
    try {
      created = await space.store.create(key, ownerKey, newRecord(input, work), queueRun);
    } catch (error) {
      // Not created: its running-task slot is free again (a duplicate id's slot is its live task's).
      if (running && !(error instanceof DuplicateTaskIdError)) void running.release(ownerKey, key).catch(() => undefined);
      // The id's previous task is past its retention but its timer has not run yet: it is gone
      // for every reader already, so remove it now and take the id.
      if (!(error instanceof DuplicateTaskIdError)) throw error;
      created = await this.#createOverExpired(key, ownerKey, input, work, queueRun, error);
    }
    this.#kept.created(ownerKey);
    this.#unserved?.created(key, created.record);
    space.store.post(key, created.record, { kind: 'task.created', view: viewOf(created.record), previous: null, node: space.nodeId, ...(work && { record: created.record, revision: created.revision }) });
    // Driven from outside (as through the SDK's TaskStore): it is working from the start.
    if (!work) return (await applyToTask(space, key, taskEvents.start(now())))?.record ?? created.record;
    return created.record;
  }

  /**
   * Takes an id whose previous task is past its retention: removed now, then created again. Its
   * retention timer may be removing it at the same moment (the key's sequence then moves between
   * the read and the create): read and try again, a few times, while what holds the id is that
   * expired task or nothing.
   */
  async #createOverExpired(key: string, ownerKey: string, input: Parameters<typeof newRecord>[0], work: Parameters<typeof newRecord>[1], queueRun: (order: number) => Promise<void>, duplicate: DuplicateTaskIdError): Promise<Revisioned> {
    const space = this.#space;
    for (let attempt = 0; ; attempt++) {
      const read = await space.store.read(key);
      const found = read && 'found' in read ? read.found : null;
      if (found && (found.record.expiresAt === null || found.record.expiresAt > space.now())) throw duplicate;
      if (found) await removeTask(space, key, found.record, { expired: true, revision: found.revision }).catch(() => undefined);
      try {
        return await space.store.create(key, ownerKey, newRecord(input, work), queueRun);
      } catch (error) {
        if (!(error instanceof DuplicateTaskIdError) || attempt >= 3) throw error;
      }
    }
  }

  async apply(key: string, event: TaskEvent, options: { readonly withResult?: boolean } = {}): Promise<Moved<TaskRecord> | null> {
    const out = await applyToTask(this.#space, key, event, options.withResult ? { extra: () => ({ hasResult: true }) } : {});
    return out && { state: out.record, changed: out.changed };
  }

  async putResult(key: string, value: unknown): Promise<void> {
    await this.#space.store.putResult(key, value);
  }

  async result(key: string, record: TaskRecord): Promise<{ value: unknown } | null> {
    const stored = await this.#space.store.getResult(key, record);
    return stored && { value: stored.result };
  }

  async page(ownerKey: string, after: number, limit: number): Promise<{ states: TaskRecord[]; more: boolean; last: number }> {
    const page = await this.#space.store.page(ownerKey, after, limit);
    return { states: page.records, more: page.more, last: page.lastOrder };
  }

  async remove(key: string, last: TaskRecord): Promise<void> {
    const space = this.#space;
    await space.store.publish(key, { order: last.order, seq: last.seq + 1 }, { kind: 'task.deleted', view: viewOf(last), previous: last.status, node: space.nodeId });
    // Removing also purges the task's events, so an id used again starts a clean history.
    await removeTask(space, key, last, { expired: false });
  }

  async answer(key: string, inputId: string, answer: InputAnswer): Promise<Moved<TaskRecord> | null> {
    const stored = 'error' in answer ? { error: answer.error.message } : { result: answer.result };
    let pending = false;
    const out = await applyToTask(this.#space, key, taskEvents.inputResponse(inputId, this.#opts.now()), {
      extra: (r) => {
        pending = r.context.pendingInputs.includes(inputId) && r.inputs.some((i) => i.inputId === inputId && i.answer === undefined);
        return { inputs: r.inputs.map((i) => (i.inputId === inputId ? { ...i, answer: stored } : i)) };
      },
    });
    return out && { state: out.record, changed: out.changed && pending };
  }

  async pending(key: string, record: TaskRecord): Promise<InputRequest[]> {
    const open = new Set(pendingInputsOf(record).map((i) => `input:${i.inputId}:params`));
    // Only the questions still open are read back when kept apart.
    return pendingInputsOf(await this.#space.store.payloads.read(key, record, (slot) => open.has(slot)));
  }

  watch(key: string, wake: (ended: TaskView | null, state?: TaskRecord) => void): TaskWatch<TaskRecord> {
    // The incarnation the waiter read: an event's record is its outcome only if it is of the same
    // one (a late event of a task deleted and created again under the id is not).
    let order: number | null = null;
    const watch = this.#space.feed.watch(key, (event) => {
      // Its record, when it is all there (a failure's detail kept apart is read by the waiter).
      const whole = event.record !== undefined && event.record.order === order && event.record.payloads?.['failure'] === undefined;
      if (isTerminalStatus(event.view.status)) wake(event.view, whole ? event.record : undefined);
      else if (event.kind === 'task.deleted') wake(null);
    });
    // Only the first `from` places the cursor: events after the record the waiter read first.
    return { seen: (record) => ((order ??= record.order), watch.from(record.seq)), stop: () => watch.stop() };
  }

  subscribe(listener: (change: TaskChange) => void, key?: string): () => void {
    const emit = (event: FeedEvent): void => {
      if (event.kind === 'task.deleted') return;
      if (event.kind === 'task.created' || event.previous !== event.view.status || NEWS.has(event.kind)) {
        listener({ task: event.view, previous: event.kind === 'task.created' ? null : event.previous });
      }
    };
    if (key !== undefined) return this.#follow(key, emit);
    return this.#space.feed.watchAll((_key, event) => emit(event));
  }

  onInputRequest(listener: (request: InputRequest) => void, key?: string): () => void {
    const deliver = (at: string, event: FeedEvent): void => {
      if (event.kind !== 'task.input.request' || !event.input) return;
      if (event.inputApart === undefined) return listener(event.input);
      // Its params were kept apart from the record (large): read back first.
      const { order, id } = event.inputApart;
      const input = event.input;
      this.#space.store.payloads.part(at, order, id).then(
        (params) => listener({ ...input, params }),
        (error: unknown) => this.#space.log('warn', 'could not read an input request kept apart', { key: at, inputId: input.inputId, error: String(error) }),
      );
    };
    if (key !== undefined) return this.#follow(key, (event) => deliver(key, event));
    return this.#space.feed.watchAll(deliver);
  }

  kept(ownerKey: string, what: { readonly tasks: boolean; readonly bytes: boolean }): KeptNow | Promise<KeptNow> {
    const read = !what.tasks && !what.bytes ? { tasks: 0, bytes: 0 } : this.#kept.kept(ownerKey, what);
    const withOwner = (kept: { tasks: number; bytes: number }): KeptNow => ({ ...kept, ownerBytes: this.#ownerBytes.of(ownerKey) });
    // A node just started counts the tasks kept before it first (a wait of its first creates only).
    const loading = this.#ownerBytes.ready();
    if (loading && !this.#ownerBytesLoaded) return Promise.all([read, loading.then(() => (this.#ownerBytesLoaded = true))]).then(([kept]) => withOwner(kept));
    return read instanceof Promise ? read.then(withOwner) : withOwner(read);
  }

  stats(): { live: number; retained: number } {
    this.#pruneRetained();
    return { live: this.#worker?.live ?? 0, retained: this.#retained.size };
  }

  security(): ReturnType<AuditLog['report']> {
    return this.#audit?.report() ?? disabledSecurityReport(this.#space.nodeId);
  }

  observe(): TaskObserver {
    const observer = new NatsObserver(this.#space.store, this.#space.feed, this.#space.graphs);
    this.#observers.add(observer);
    observer.onClose = () => this.#observers.delete(observer);
    return observer;
  }

  async stopTaking(): Promise<void> {
    this.#onDrain();
    await this.#worker?.stopTaking();
  }

  async endRuns(): Promise<void> {
    await this.#worker?.handOver();
  }

  unready(): readonly string[] | Promise<readonly string[]> {
    return this.#readiness?.reasons() ?? [];
  }

  async dispose(): Promise<void> {
    this.#readiness?.close();
    this.#stopCounting();
    this.#ownerBytes.close();
    this.#fresh.close();
    // Observers hold a watch on the records: stopped here, or it would outlive a shared connection.
    await Promise.all([...this.#observers].map((o) => o.close()));
  }

  /**
   * Expiry removes a task without an event: past its retention, it is gone. Tasks end roughly in
   * the order of their retention's end, so the oldest entries go first; the count is capped.
   */
  #pruneRetained(): void {
    const now = this.#opts.now();
    for (const [key, until] of this.#retained) {
      if (until > now && this.#retained.size <= MAX_RETAINED_COUNTED) break;
      this.#retained.delete(key);
    }
  }

  /** Watches one task from its current sequence (read after the watch started, so nothing slips between). */
  #follow(key: string, onEvent: (event: FeedEvent) => void): () => void {
    const watch = this.#space.feed.watch(key, onEvent);
    void this.#space.store.read(key).then(
      (read) => watch.from(read && 'found' in read ? read.found.record.seq : 0),
      () => watch.from(0),
    );
    return () => watch.stop();
  }
}
