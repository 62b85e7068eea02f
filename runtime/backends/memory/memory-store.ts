/**
 * The memory backend's store: tasks in a map of one process, each live one running here as a
 * {@link TaskRun} whose actor snapshot is the task's record, terminal ones kept as compact
 * records until their retention ends. Storage and local execution only: every rule is the core's.
 *
 * @module
 */
import type { SnapshotFrom } from 'xstate';
import { isTerminalStatus, taskEvents, type taskMachine, type TaskContext, type TaskEvent, type TaskStatus } from '../../../machines/index.js';
import type { AuditLog } from '../../audit/index.js';
import { disabledSecurityReport } from '../../audit/index.js';
import { endingOf, type Settled } from '../../core/outcome.js';
import type { TaskRun} from '../../core/task-run.js';
import type { RunPort } from '../../core/task-run.types.js';
import type { Moved, NewTask, TaskStore, TaskWatch } from '../../core/task-store.js';
import { ExpiredMemory } from '../../core/expired-memory.js';
import { shutDownMessage } from '../../core/lost-run.js';
import { viewOf } from '../../core/view.js';
import { DuplicateTaskIdError } from '../../errors.js';
import type { RequesterLimiter } from '../../limits.js';
import { Listeners } from '../../listeners.js';
import { shownTaskId } from '../../secrets.js';
import type { ResolvedTaskRuntimeOptions } from '../../options.js';
import { DeadlineScheduler } from '../../scheduler.js';
import type { InputAnswer, InputRequest, TaskChange, TaskView } from '../../task-runtime.types.js';
import { MemoryObservation } from './memory-observer.js';
import { OwnerIndex } from './owner-index.js';
import { expiresAtOf, mayKeepResult } from '../../core/retention.js';
import { KeptBytes, keptBytesOf } from '../../core/kept-bytes.js';
import { RunHost } from '../../core/run-host.js';
import type { TaskMetrics } from '../../telemetry/metrics.js';
import type { MachineGraph } from '../../handlers/machine-graph.types.js';
import type { NodeLog } from '../../logger.js';

const NO_WATCH: TaskWatch<Entry> = { seen: () => undefined, stop: () => undefined };

/**
 * What an ended task costs here besides the values counted with it (its entry, context, ids and
 * owner, index slot and retention timer): about 1.1 KB of heap per ended task with a small result,
 * measured over 20,000 tasks (Node 20). Counted against `maxRetainedBytes`, so that many small
 * tasks (of many requesters: each session is one) fill the budget as large ones do; on NATS the
 * records are in the streams the budget reads.
 */
const RECORD_BYTES = 1_024;

/** What an entry's run tells its store (one object per store, so no task carries closures of its own). */
interface EntrySink {
  snapshot(entry: Entry, snapshot: SnapshotFrom<typeof taskMachine>): void;
  shareMachine(key: string, graph: MachineGraph): void;
  inputRequested(entry: Entry, request: InputRequest): void;
  ended(entry: Entry): void;
  now(): number;
}

/**
 * A task of the memory backend: the core's {@link TaskState}, plus what only this backend holds.
 * It is also its run's {@link RunPort}: the record is the actor's own snapshot, so a move of the
 * work goes straight to the actor.
 */
export class Entry implements RunPort {
  readonly key: string;
  readonly seq: number;
  readonly ownerKey: string;
  status: TaskStatus = 'submitted';
  context: TaskContext = null as unknown as TaskContext;
  /** The live task (its actor and work); `null` once it settled. */
  run: TaskRun | null = null;
  /** Whether a handler does the work (else the task is driven from outside through `update`). */
  readonly hasWork: boolean;
  result: unknown = undefined;
  hasResult = false;
  failure: unknown = undefined;
  /** Characters of the JSON of its result and failure detail, as the outcome's check counted them. */
  outcomeBytes = 0;
  expiresAt: number | null = null;
  /** Wakes of waiters and watchers of this task. */
  watchers: Set<(ended: TaskView | null) => void> | null = null;
  readonly #sink: EntrySink;

  constructor(key: string, seq: number, ownerKey: string, hasWork: boolean, sink: EntrySink) {
    this.key = key;
    this.seq = seq;
    this.ownerKey = ownerKey;
    this.hasWork = hasWork;
    this.#sink = sink;
  }

  move(event: TaskEvent): void {
    this.run?.send(event);
  }

  requestInput(request: InputRequest): boolean {
    const run = this.run;
    if (!run) return false;
    run.send(taskEvents.inputRequest(request.inputId, this.#sink.now()));
    this.#sink.inputRequested(this, request);
    return true;
  }

  end(outcome: Settled, at: number): void {
    const run = this.run;
    if (!run) return;
    this.outcomeBytes = outcome.bytes;
    const { kept, event } = endingOf(outcome, this.key, at);
    if (outcome.status === 'failed') this.failure = outcome.failure ?? undefined;
    if (kept) {
      this.result = kept.value;
      this.hasResult = true;
    }
    run.send(event);
  }

  // Not before the entry holds its run: the first snapshot is taken by `create` itself.
  observe(snapshot: SnapshotFrom<typeof taskMachine>): void {
    if (this.run) this.#sink.snapshot(this, snapshot);
  }

  ended(): void {
    this.#sink.ended(this);
  }

  shareMachine(key: string, graph: MachineGraph): void {
    this.#sink.shareMachine(key, graph);
  }
}

/**
 * The memory store.
 *
 * @example
 * ```ts
 * const store = new MemoryStore(opts, limiter, audit, 'local', openTaskMetrics(), nodeLog(logger, 'local'));
 * const runtime = createCoreRuntime(opts, store, { limiter, handlers, hasWork: (e) => e.hasWork });
 * ```
 */
export class MemoryStore implements TaskStore<Entry> {
  readonly rereadMs = null;
  readonly handsOver = false;
  readonly watchesBySequence = false;
  /** Nothing passes by itself in the process: every failure is an answer or a fault. */
  readonly isTransient = (): boolean => false;
  readonly #opts: ResolvedTaskRuntimeOptions;
  readonly #limiter: RequesterLimiter;
  readonly #audit: AuditLog | null;
  readonly #node: string;
  readonly #metrics: TaskMetrics | null;
  readonly #log: NodeLog; // the lines a NATS worker writes on the same occasions
  readonly #entries = new Map<string, Entry>();
  readonly #expired: ExpiredMemory;
  readonly #index = new OwnerIndex();
  readonly #listeners = new Listeners<TaskChange>();
  readonly #inputListeners = new Listeners<InputRequest>();
  readonly #observation: MemoryObservation;
  readonly #scheduler: DeadlineScheduler;
  /** The live runs: one per task not ended yet (see `run-host.ts`). */
  readonly #host: RunHost;
  #seq = 0;
  #disposed = false;
  /** Bytes of the ended tasks' results and messages held now, per requester and in all (see `kept`). */
  readonly #keptBytes = new KeptBytes();

  constructor(opts: ResolvedTaskRuntimeOptions, limiter: RequesterLimiter, audit: AuditLog | null, node: string, metrics: TaskMetrics | null = null, log: NodeLog = () => undefined) {
    this.#opts = opts;
    this.#log = log;
    this.#limiter = limiter;
    this.#audit = audit;
    this.#node = node;
    this.#metrics = metrics;
    this.#expired = new ExpiredMemory(opts.expiredMemory);
    this.#host = new RunHost({ now: opts.now, maxResultBytes: opts.limits.maxResultBytes, metrics });
    this.#observation = new MemoryObservation(node, this.#entries);
    this.#scheduler = new DeadlineScheduler((key) => {
      const entry = this.#entries.get(key);
      // A running task is never evicted, whatever an old deadline says.
      if (!entry || !isTerminalStatus(entry.status)) return;
      this.#remove(entry);
      this.#expired.remember(key);
      this.#log('info', 'task expired', { taskId: shownTaskId(entry.context.taskId, entry.context.owner) });
    }, opts.now);
  }

  get maxPosition(): number {
    return this.#seq;
  }

  keyOf(ownerKey: string, taskId: string): string {
    return `${ownerKey}\u0000${taskId}`;
  }

  read(key: string): Entry | 'expired' | null {
    return this.#entries.get(key) ?? (this.#expired.has(key) ? 'expired' : null);
  }

  create(task: NewTask): TaskView {
    const { key, ownerKey, input, work } = task;
    if (this.#entries.has(key)) throw new DuplicateTaskIdError(input.taskId);
    // Counted from here until the task settles (see #settle).
    this.#limiter.startTask(ownerKey);
    this.#expired.forget(key);
    const { now } = this.#opts;
    const entry = new Entry(key, ++this.#seq, ownerKey, work !== null, this.#sink);
    const run = this.#host.start(key, { input }, { handler: work?.handler ?? null, params: work?.params, runOptions: work?.runOptions, trace: work?.trace, requesterCapabilities: work?.requesterCapabilities }, entry);
    const initial = run.actor.getSnapshot();
    entry.status = initial.value;
    entry.context = initial.context;
    entry.run = run;
    this.#entries.set(key, entry);
    this.#index.add(ownerKey, entry.seq, key);
    this.#emit(entry, null);
    this.#observation.created(entry);
    // Driven here from the start: a task is working as soon as it exists.
    run.send(taskEvents.start(now()));
    // The view is taken before the work begins (one microtask later): the task as it was created.
    const created = viewOf(entry);
    if (work !== null) this.#log('info', 'task run', { taskId: shownTaskId(input.taskId, input.owner), attempt: 1 });
    run.begin();
    return created;
  }

  apply(key: string, event: TaskEvent): Moved<Entry> | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    const { status, context } = entry;
    this.#host.feed(key, event);
    return { state: entry, changed: entry.status !== status || entry.context !== context };
  }

  putResult(key: string, value: unknown): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.result = value;
    entry.hasResult = true;
    entry.outcomeBytes = JSON.stringify(value ?? null).length;
  }

  result(_key: string, entry: Entry): { value: unknown } | null {
    return entry.hasResult ? { value: entry.result } : null;
  }

  async page(ownerKey: string, after: number, limit: number): Promise<{ states: Entry[]; more: boolean; last: number }> {
    const page = this.#index.page(ownerKey, after, limit);
    return { states: page.keys.map((key) => this.#entries.get(key)!), more: page.more, last: page.lastSeq };
  }

  async remove(_key: string, entry: Entry): Promise<void> {
    if (this.#entries.get(entry.key) !== entry) return;
    this.#remove(entry);
    this.#wake(entry, null);
  }

  answer(key: string, inputId: string, answer: InputAnswer): Moved<Entry> | null {
    const entry = this.#entries.get(key);
    if (!entry || !this.#host.answer(key, inputId, answer)) return null;
    return { state: entry, changed: true };
  }

  pending(_key: string, entry: Entry): InputRequest[] {
    return entry.run?.pending ?? [];
  }

  watch(key: string, wake: (ended: TaskView | null) => void): TaskWatch<Entry> {
    const entry = this.#entries.get(key);
    if (!entry) return NO_WATCH;
    const watchers = (entry.watchers ??= new Set());
    watchers.add(wake);
    return { seen: () => undefined, stop: () => watchers.delete(wake) };
  }

  subscribe(listener: (change: TaskChange) => void, key?: string): () => void {
    return this.#listeners.add(listener, key);
  }

  onInputRequest(listener: (request: InputRequest) => void, key?: string): () => void {
    return this.#inputListeners.add(listener, key);
  }

  kept(ownerKey: string): { tasks: number; bytes: number; ownerBytes: number } {
    return { tasks: this.#index.count(ownerKey), bytes: this.#keptBytes.total, ownerBytes: this.#keptBytes.of(ownerKey) };
  }

  stats(): { live: number; retained: number } {
    const live = this.#host.size;
    return { live, retained: this.#entries.size - live };
  }

  security(): ReturnType<AuditLog['report']> {
    return this.#audit?.report() ?? disabledSecurityReport(this.#node);
  }

  observe(): ReturnType<MemoryObservation['open']> {
    return this.#observation.open();
  }

  stopTaking(): void {
    // One process: no work comes from elsewhere.
  }

  async endRuns(): Promise<void> {
    const message = shutDownMessage(null);
    // No other node to hand them to. Parents first: a parent's end cancels the subtasks it still
    // waits on (their ends recorded in it), so a family ends as one.
    const live = [...this.#entries.values()].filter((e) => e.run !== null).sort((a, b) => (a.context.depth ?? 0) - (b.context.depth ?? 0));
    for (const entry of live) if (entry.run !== null && !isTerminalStatus(entry.status)) this.#host.feed(entry.key, taskEvents.fail(message, this.#opts.now()));
  }

  unready(): readonly string[] {
    return [];
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#scheduler.dispose();
    this.#host.stopAll();
    for (const entry of this.#entries.values()) this.#wake(entry, null);
    this.#entries.clear();
    this.#listeners.clear();
    this.#inputListeners.clear();
    this.#observation.clear();
  }

  /** What the entries' runs tell this store. */
  readonly #sink: EntrySink = {
    snapshot: (entry, snapshot) => this.#onSnapshot(entry, snapshot),
    inputRequested: (entry, request) => this.#inputListeners.emit(request, entry.key),
    shareMachine: (key, graph) => this.#observation.shareMachine(key, graph),
    ended: (entry) => {
      // Stopped without reaching a terminal state while the runtime still runs: the outcome is not known.
      if (!entry.run || this.#disposed) return;
      const previous = entry.status;
      const before = entry.context;
      const why = 'The task stopped unexpectedly';
      this.#log('warn', 'task stopped unexpectedly', { taskId: shownTaskId(entry.context.taskId, entry.context.owner), status: previous });
      entry.status = 'unknown';
      entry.context = { ...before, error: why, statusMessage: why, updatedAt: this.#opts.now() };
      this.#settle(entry);
      this.#emit(entry, previous);
      this.#observation.changed(entry, previous, before);
    },
    now: () => this.#opts.now(),
  };

  #onSnapshot(entry: Entry, snapshot: SnapshotFrom<typeof taskMachine>): void {
    const previous = entry.status;
    const before = entry.context;
    const status = snapshot.value;
    if (previous === status && before === snapshot.context) return;
    // Listeners hear of a message, progress, a new intermediate result (pushed where the wire can) and an
    // input request asked or answered (a parent withdraws its copy of a child's) too; not of the
    // handler machine's moves (no news to a requester: only observers are told, below).
    const c = snapshot.context;
    const messageChanged = c.statusMessage !== before.statusMessage || c.progress !== before.progress || c.partials !== before.partials || c.pendingInputs !== before.pendingInputs;
    entry.context = snapshot.context;
    entry.status = status;
    if (isTerminalStatus(status) && entry.run) this.#settle(entry);
    if (previous !== status || messageChanged) this.#emit(entry, previous);
    this.#observation.changed(entry, previous, before);
  }

  /** A terminal task drops its run and keeps only its record (and result if it has one). */
  #settle(entry: Entry): void {
    this.#limiter.endTask(entry.ownerKey);
    this.#metrics?.ended(entry.status, entry.context);
    if (entry.hasWork) this.#log('info', 'task end', { taskId: shownTaskId(entry.context.taskId, entry.context.owner), attempt: 1, status: entry.status });
    // This entry's run only: a task created again under the key has its own.
    if (entry.run) this.#host.release(entry.key, entry.run);
    entry.run = null;
    if (!mayKeepResult(entry.status)) {
      entry.result = undefined;
      entry.hasResult = false;
    }
    // What it keeps from now until removed: its record, its outcome (result and failure detail:
    // a failure may keep a detail without a result), its messages, its intermediate results.
    this.#keptBytes.add(entry.key, entry.ownerKey, keptBytesOf(entry, entry.outcomeBytes, RECORD_BYTES));
    const expiresAt = expiresAtOf(entry.status, entry.context);
    if (expiresAt !== null) {
      entry.expiresAt = expiresAt;
      this.#scheduler.schedule(entry.key, expiresAt);
    }
    if (entry.watchers) this.#wake(entry, viewOf(entry));
  }

  #wake(entry: Entry, ended: TaskView | null): void {
    const watchers = entry.watchers;
    entry.watchers = null;
    if (watchers) for (const wake of watchers) wake(ended);
  }

  #emit(entry: Entry, previous: TaskStatus | null): void {
    if (this.#listeners.isEmpty(entry.key)) return;
    this.#listeners.emit({ task: viewOf(entry), previous }, entry.key);
  }

  #remove(entry: Entry): void {
    this.#entries.delete(entry.key);
    this.#keptBytes.remove(entry.key);
    this.#observation.removed(entry);
    this.#index.remove(entry.ownerKey, entry.seq);
    this.#scheduler.cancel(entry.key);
  }
}
