/**
 * The worker role: pulls runs from the shared work queue, takes each task's lease, and runs the
 * task as a {@link TaskRun} of the task core, resumed from the state its record is in. Whatever
 * the work does (status message, input request, outcome) is written to the task's record; every
 * event the record takes, from this node or another (cancel, delete, an input answer), reaches
 * the run's actor through the task's event subject, in the record's order, and a terminal one
 * aborts the work.
 *
 * @module
 */
import { LatestWrite } from './latest-write.js';
import { MAX_SHARED_GRAPH_BYTES } from '../../core/machine-graphs.js';
import { context as otel, ROOT_CONTEXT } from '@opentelemetry/api';
import { extractTraceContext } from '../../telemetry/tracing.js';
import { isTerminalStatus, taskEvents, type TaskEvent } from '../../../machines/index.js';
import type { Settled } from '../../core/outcome.js';
import type { TaskRun } from '../../core/task-run.js';
import type { RunPort } from '../../core/task-run.types.js';
import type { InputRequest, TaskCheckpoint } from '../../task-runtime.types.js';
import { LeaseLostError } from './errors.js';
import { HeardCreates } from './heard-creates.js';
import { Slots } from './slots.js';
import type { FeedWatch } from './event-feed.js';
import type { Lease } from './leases.js';
import type { Revisioned } from './record-store.js';
import type { TaskRecord } from './task-record.js';
import { keepCheckpoint, keepOutcome, OUTCOME_WRITE_MS, writeInputRequest } from './run-writes.js';
import { persistently } from './persistently.js';
import { applyToTask, recoverTask, scheduleExpiry, type RunItem, type TaskSpace } from './task-space.js';
import { RunHost } from '../../core/run-host.js';
import { runLeftNode } from '../../core/lost-run.js';
import { shownTaskId } from '../../secrets.js';

interface Running {
  /** True while the stored record still names this run (node, attempt, incarnation). */
  ours: (record: TaskRecord) => boolean;
  readonly key: string;
  readonly taskId: string;
  /** The task id as log lines show it (a bearer handle shortened). */
  readonly logId: string;
  readonly attempt: number;
  lease: Lease;
  run: TaskRun | null;
  watch: FeedWatch | null;
  renew: NodeJS.Timeout | null;
  holdsSlot: boolean;
  slotWait: Promise<void> | null;
  /** Its handler returned: its outcome is decided (kept by `writing`, then the run ends). */
  returned: boolean;
  /** The write of its outcome while under way. */
  writing: Promise<void> | null;
}

/**
 * How long a hand-over waits for takes under way to settle, and for outcomes being written to be
 * kept, before it hands over what is left.
 */
const HAND_OVER_SETTLE_MS = 5_000;

/** Resolves with whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long a run's outcome waits for its last progress, message and handler position writes to
 * settle (a few compare-and-swaps, normally milliseconds) before it is written anyway.
 */
const LAST_MOVES_MS = 2_000;

/** How long a worker pulls nothing after it was handed a run whose handler it does not have. */
const MISSING_HANDLER_PAUSE_MS = 300;

/**
 * Event kinds a run writes itself: they need no second look at the record. A terminal one
 * (only the run's own outcome writes these on its node) ends the actor when it is sent to it.
 */
const OWN_MOVES: ReadonlySet<string> = new Set(['task.start', 'task.message', 'task.progress', 'task.handler', 'task.input.request', 'task.complete', 'task.fail', 'task.partial', 'task.child']);

/** Every this many deliveries, a worker without a run's handler looks whether its task has ended. */
const ENDED_CHECK_EVERY = 25;

/** Deliveries of a run whose task record is not there (yet) before it is dropped. */
const MISSING_RECORD_TRIES = 25;

/** A run queued less than this long ago may come before its create event (see #mine). */
const FRESH_RUN_MS = 500;

/** How long a worker waits for the create event of a fresh run before it reads the record. */
const HEARD_WAIT_MS = 200;

/** The event that brings a run's actor to the terminal state its record is in (or deleted). */
function endingOf(record: TaskRecord | null, at: number): TaskEvent {
  const c = record?.context;
  switch (record?.status) {
    case 'completed':
      return taskEvents.complete(c!.resultRef ?? '', c!.updatedAt);
    case 'failed':
      return taskEvents.fail(c!.error ?? 'Task failed', c!.updatedAt);
    case 'unknown':
      return taskEvents.lose(c!.error ?? 'The outcome of this task is unknown', c!.updatedAt);
    case 'cancelled':
      return taskEvents.cancel(c!.statusMessage, c!.updatedAt);
    default:
      return taskEvents.cancel('Deleted', at);
  }
}

/**
 * Runs tasks of a task space on this node.
 *
 * @example
 * ```ts
 * const worker = new TaskWorker(space, 64);
 * const stop = new AbortController();
 * void worker.run(stop.signal);
 * ```
 */
export class TaskWorker {
  readonly #space: TaskSpace;
  readonly #slots: Slots;
  readonly #running = new Map<string, Running>();
  /** The runs this node hosts: started and stopped there (see `run-host.ts`). */
  readonly #host: RunHost;
  #stop: AbortSignal = new AbortController().signal;
  /** Aborted when the node stops taking queued runs (it drains); its runs go on. */
  readonly #taking = new AbortController();
  #pauseUntil = 0;
  #heard: HeardCreates | null = null;
  /** Takes under way (lease, read, start write): each may yet start a run here. */
  #takes = 0;
  /** The pull loop, until it stopped and its takes settled. */
  #consuming: Promise<void> = Promise.resolve();
  /** Handlers started on this node since it started. */
  tasksRun = 0;

  constructor(space: TaskSpace, concurrency: number) {
    this.#space = space;
    this.#slots = new Slots(concurrency);
    this.#host = new RunHost({ now: space.now, maxResultBytes: space.maxResultBytes, node: space.nodeId, metrics: space.metrics ?? null });
  }

  /** How many tasks this node runs now. */
  get running(): number {
    return this.#running.size;
  }

  /** What a drain waits for: the runs, and the takes under way that may yet start one. */
  get live(): number {
    return this.#running.size + this.#takes;
  }

  /**
   * Pulls and starts runs until `signal` aborts.
   *
   * @example
   * ```ts
   * await worker.run(stop.signal);
   * ```
   */
  async run(signal: AbortSignal): Promise<void> {
    this.#stop = signal;
    const heard = new HeardCreates(this.#space.feed, this.#space.nodeId);
    this.#heard = heard;
    try {
      this.#consuming = this.#runs(signal);
      await this.#consuming;
    } finally {
      heard.close();
    }
  }

  async #runs(stop: AbortSignal): Promise<void> {
    const signal = AbortSignal.any([stop, this.#taking.signal]);
    await this.#space.runs.consume((item, context) => this.#take(item, context.deliveryCount, context.queuedAt), {
      signal,
      // As many runs starting at once as there are slots: a pull asks for the free slots, so
      // under load one pull brings a batch (a pull per item was a round trip on every task).
      concurrency: this.#slots.size,
      // A run delivered to a pull this node has given up on waits out the queue's ack wait (the
      // lease TTL): no more than the eight the per-item pulls before exposed at once.
      maxBatch: 8,
      pollMs: 2_000,
      retryDelayMs: 500,
      // Pull only with a free slot: an item waiting in a busy worker would starve an idle one.
      room: async () => {
        const pause = this.#pauseUntil - Date.now();
        if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
        await this.#slots.whenFree(signal);
        return this.#slots.free;
      },
    });
  }

  /**
   * Stops taking queued runs (a node that drains): the runs it has go on; other workers take the
   * queue. Resolves once the pull loop stopped and the takes under way settled (each started its
   * run, or gave its item back), at most a few seconds. Idempotent.
   *
   * @example
   * ```ts
   * await worker.stopTaking();
   * ```
   */
  async stopTaking(): Promise<void> {
    this.#taking.abort();
    await within(this.#consuming, HAND_OVER_SETTLE_MS);
  }

  /**
   * Gives every running task up on a clean stop: each is queued again or ends `failed` saying this
   * node shut down, by the rule of a lost worker's tasks (`decideLostRun`), but without waiting
   * for its lease to expire.
   *
   * @example
   * ```ts
   * await worker.handOver();
   * ```
   */
  async handOver(): Promise<void> {
    // A take under way when the drain began starts its run (handed over below) or gives it back.
    await this.stopTaking();
    // A run whose handler returned has its outcome: kept, not handed over to run again or fail.
    const deadline = Date.now() + HAND_OVER_SETTLE_MS;
    for (let writing = this.#writing(); writing.length > 0 && Date.now() < deadline; writing = this.#writing()) {
      await within(Promise.allSettled(writing), deadline - Date.now());
    }
    // Those whose outcome is kept end by themselves (their actor heard it); an outcome still not
    // kept at the bound is given up with the rest.
    const runs = [...this.#running.values()].filter((run) => !run.returned || run.writing !== null);
    for (const run of runs) this.#finish(run, false);
    await Promise.all(runs.map((run) => recoverTask(this.#space, run.key, run.lease, this.#space.nodeId, 'shutdown').catch(() => undefined)));
  }

  /** Outcome writes of this node's runs under way. */
  #writing(): Promise<void>[] {
    return [...this.#running.values()].flatMap((run) => (run.writing === null ? [] : [run.writing]));
  }

  /**
   * Takes one queued run: lease, checks, start. Resolving acks the queue item. Counted while under
   * way: a drain that begins meanwhile waits for it.
   */
  async #take(item: RunItem, deliveryCount: number, queuedAt: number): Promise<void | { retryInMs: number }> {
    // Delivered to a node that stopped taking: back to the queue at once, for another worker.
    if (this.#taking.signal.aborted) return { retryInMs: 0 };
    this.#takes++;
    try {
      return await this.#takeOne(item, deliveryCount, queuedAt);
    } finally {
      this.#takes--;
    }
  }

  async #takeOne(item: RunItem, deliveryCount: number, queuedAt: number): Promise<void | { retryInMs: number }> {
    const space = this.#space;
    // Not registered here (a node starting up, or workers of mixed versions): give it back at
    // once for a worker that has it, and pull nothing for a moment so that one gets it.
    if (!space.handlers.has(item.handler)) {
      if (deliveryCount === 1) space.log('warn', 'no handler here for a queued task; leaving it to other workers', { handler: item.handler, key: item.key, node: space.nodeId });
      // Passed around for a while: its task may have ended meanwhile (no live worker served it,
      // see `unserved-tasks.ts`; cancelled; removed), and then nobody is left to drop the item.
      if (deliveryCount % ENDED_CHECK_EVERY === 0 && (await this.#ended(item))) return undefined;
      this.#pauseUntil = Date.now() + MISSING_HANDLER_PAUSE_MS;
      return { retryInMs: 0 };
    }
    // Another pull loop took the last slot meanwhile: give the item back at once.
    if (!this.#slots.tryAcquire()) return { retryInMs: 0 };
    let started = false;
    try {
      // The record as this node has it (see #mine), or as its creator's `task.created` event
      // carried it, needs no read: a decision taken on it is checked again by the start's
      // compare-and-swap. Any other is read once the lease is held: the run is queued before its
      // record is written, so a read sent alongside the lease would mostly find nothing yet
      // (measured: 1.9 reads per task instead of 1).
      const mine = this.#mine(item.key, item.order, item.attempt === 1 ? deliveryCount : 0, queuedAt);
      const lease = await space.leases.acquire(item.key, space.nodeId, space.leaseTtlMs);
      if (lease === null) {
        // Another node holds it. If this run is still to come (the holder is the node that just
        // queued it, about to let go), try again shortly; else the holder runs the task, or the
        // failover monitor will see it lost. What this node knew may be behind: this is read.
        const read = await space.store.read(item.key);
        const held = read && 'found' in read ? read.found.record : null;
        // No record yet: its create still under way, while the lease of the id's previous task
        // is still held (let go once its timer is queued): look again shortly.
        if (held === null && deliveryCount < MISSING_RECORD_TRIES) return { retryInMs: 200 };
        const pending = held !== null && held.order === item.order && !isTerminalStatus(held.status) && held.attempts < item.attempt;
        return pending ? { retryInMs: 250 } : undefined;
      }
      const known = await mine;
      let read;
      try {
        read = known ? { found: known } : await space.store.read(item.key);
      } catch (e) {
        await space.leases.release(lease).catch(() => false);
        throw e;
      }
      const record = read && 'found' in read ? read.found.record : null;
      if (record === null && deliveryCount < MISSING_RECORD_TRIES) {
        // Queued just before its record is written (see create): look again in a moment.
        await space.leases.release(lease).catch(() => false);
        return { retryInMs: 200 };
      }
      if (record === null || record.order !== item.order || isTerminalStatus(record.status) || record.work === null) {
        // A late copy of the run of a task removed since (a redelivery): its removal erased the
        // lease it knew of, so this one's marker is erased here, or it would stay forever.
        // A run item redelivered after its task ended: the worker that ended it may have died
        // before queuing its retention timer (see recoverTask).
        if (record !== null && record.order === item.order && isTerminalStatus(record.status)) await scheduleExpiry(space, item.key, record);
        await (record === null ? space.leases.drop(lease) : space.leases.release(lease)).catch(() => false);
        return undefined;
      }
      if (record.attempts >= item.attempt) {
        // Its run was started by a node that is gone (we could take its lease): decide its fate.
        await recoverTask(space, item.key, lease, record.node ?? 'unknown');
        return;
      }
      const outcome = await this.#start(item, lease, record, read && 'found' in read ? read.found : undefined, known !== undefined);
      started = outcome === true;
      // Decided on what this node knew, and the record had moved on: decide again on a fresh read.
      // Or the node stopped taking before the run was started: another worker takes it at once.
      if (outcome === 'again' || outcome === 'left') return { retryInMs: 0 };
    } finally {
      if (!started) this.#slots.release();
    }
  }

  /**
   * Whether the task of a run this node cannot start has ended (or is gone): its run item is
   * then dropped. A run of an ended task whose worker died before its retention timer went out
   * queues the timer again, as a worker with the handler would (see `#take`).
   */
  async #ended(item: RunItem): Promise<boolean> {
    const space = this.#space;
    const read = await space.store.read(item.key).catch(() => undefined);
    if (read === undefined) return false;
    const record = read && 'found' in read ? read.found.record : null;
    if (record === null || record.order !== item.order) return true;
    if (!isTerminalStatus(record.status)) return false;
    await scheduleExpiry(space, item.key, record);
    return true;
  }

  /**
   * The record without a read, when this node has it: a create of its own under way (the run
   * came before the create's reply), or its own last write when the feed has seen nothing of the
   * task since. Anything it decides is checked again by the start's compare-and-swap.
   */
  #mine(key: string, order: number, deliveryCount: number, queuedAt: number): Revisioned | Promise<Revisioned | undefined> | undefined {
    const space = this.#space;
    // Its own create under way: the record it is writing, once written.
    const creating = space.store.creating(key);
    if (creating) return creating.then(() => space.store.known(key), () => undefined);
    const known = space.store.known(key);
    if (known) return space.feed.position(key) === known.record.seq ? known : undefined;
    // Created on another node: its create event carries the record. A first run queued a moment
    // ago is usually here before that event (the record is written after the run is queued):
    // wait a little for it, once; an older run's create was heard already, or is read (a later
    // attempt's, given deliveryCount 0, is not waited for: no create comes with it).
    const fresh = deliveryCount === 1 && Date.now() - queuedAt < FRESH_RUN_MS;
    return this.#heard?.take(key, order, fresh ? HEARD_WAIT_MS : 0);
  }

  async #start(item: RunItem, lease: Lease, record: TaskRecord, base: Revisioned | undefined, unread: boolean): Promise<boolean | 'again' | 'left'> {
    const space = this.#space;
    // The node began to drain while this take was under way: nothing is started; the lease is let
    // go and the item given back, for a worker that stays.
    if (this.#taking.signal.aborted) {
      await space.leases.release(lease).catch(() => false);
      return 'left';
    }
    const work = record.work!;
    const registered = space.handlers.get(work.handler);
    if (!registered) {
      await applyToTask(space, item.key, taskEvents.fail(`No handler '${work.handler}' is registered on worker ${space.nodeId}`, space.now()));
      await space.leases.release(lease).catch(() => false);
      return false;
    }
    // Decided on the record the start is written over (it may be newer than the one read).
    const resuming = registered.options.retry === 'resume';
    const attempt = `(attempt ${item.attempt} of ${registered.options.maxAttempts ?? space.maxAttempts})`;
    const how = (r: TaskRecord): string => (resuming ? `resumed from ${r.checkpoint ? (r.checkpoint.label ?? `checkpoint ${r.checkpoint.seq}`) : 'the start'}` : 'running again');
    const gone = (r: TaskRecord): string => runLeftNode(r.node ?? 'unknown', item.left ?? 'lost');
    const begin = (r: TaskRecord): TaskEvent =>
      r.status === 'submitted' ? taskEvents.start(space.now()) : taskEvents.message(`${gone(r)}; ${how(r)} on ${space.nodeId} ${attempt}`, space.now());
    // The worker that runs the handler says how it may be retried: its declaration is the one in force.
    const declared = { ...work, retry: registered.options.retry ?? 'never', maxAttempts: registered.options.maxAttempts ?? space.maxAttempts };
    const run: Running = { ours: () => false, key: item.key, taskId: record.context.taskId, logId: shownTaskId(record.context.taskId, record.context.owner), attempt: item.attempt, lease, run: null, watch: null, renew: null, holdsSlot: true, slotWait: null, returned: false, writing: null };
    // Watch before the start is written: a cancel right after it must not slip through unseen.
    run.watch = space.feed.watch(item.key, (event) => {
      // The run's actor takes every event its record takes, in the record's order.
      if (event.event) run.run?.send(event.event);
      // This run's own moves need no second look; anything another node did (an answer, an end) does.
      if (event.node === space.nodeId && OWN_MOVES.has(event.kind)) return;
      void this.#reconcile(run);
    });
    const moved = await applyToTask(space, item.key, begin, {
      // Started on the record just read (or this node's own last write): no second read.
      base,
      extra: () => ({ attempts: item.attempt, node: space.nodeId, work: declared }),
      // Still this run's to start: nobody started this attempt (or a later one) meanwhile.
      only: (r) => r.order === item.order && r.attempts < item.attempt,
    }).catch((e: unknown) => {
      run.watch?.stop();
      throw e;
    });
    if (!moved?.changed) {
      run.watch.stop();
      await space.leases.release(lease).catch(() => false);
      return unread && moved !== null ? 'again' : false;
    }
    // An older run of this task on this node, taken over by another node's recovery before this
    // node's renewal noticed: it stops now (its writes were already refused), or it would run
    // beside this one, unaborted, to its end.
    const older = this.#running.get(item.key);
    if (older && older !== run) this.#leaseLost(older);
    this.#running.set(item.key, run);
    this.tasksRun++;
    const from = resuming ? moved.record.checkpoint : undefined;
    // In the trace of the request that created the task: its run's span starts only further on.
    otel.with(extractTraceContext(record.work?.trace, ROOT_CONTEXT), () =>
      space.log('info', 'task run', { taskId: run.logId, attempt: item.attempt, node: space.nodeId, key: item.key, ...(from && { resumedFrom: from.label ?? from.seq, checkpoint: from.seq }) }),
    );
    // A run writes only while the record still names it: after a takeover, a stalled worker's late writes are dropped.
    run.ours = (r: TaskRecord): boolean => r.node === space.nodeId && r.attempts === item.attempt && r.order === item.order;
    // What the run starts from, its large parts read back (params, questions asked, checkpoint);
    // answers are read when they are given. Through a NATS outage as a write is; a part gone (the
    // task removed meanwhile) is decided at once.
    const startsFrom = (slot: string): boolean => !slot.endsWith(':answer') && slot !== 'failure';
    const full = await persistently(() => space.store.payloads.read(item.key, moved.record, startsFrom), { giveUpMs: OUTCOME_WRITE_MS, stillWanted: this.#stillWanted(run) }).catch((error: unknown) => error as Error);
    if (full instanceof Error) {
      await applyToTask(space, item.key, taskEvents.fail(`The task could not start: ${full.message}`, space.now()), { only: run.ours }).catch(() => undefined);
      this.#finish(run, true);
      return true;
    }
    // Resumed from the record's own state (working, input_required…), not from the start.
    run.run = this.#host.start(
      item.key,
      { status: moved.record.status, context: moved.record.context },
      { handler: registered.handler, params: full.work?.params, runOptions: registered.runOptions, trace: moved.record.work?.trace, requesterCapabilities: moved.record.work?.requesterCapabilities },
      this.#portOf(run),
      // A resumable handler starts from its last checkpoint; any other from the start. What
      // earlier runs asked: asked again, the same question gets its id (and its answer).
      { attempt: item.attempt, resumeFrom: resuming ? (full.checkpoint ?? null) : null, asked: full.inputs },
    );
    // Renewals first: placing the cursor may deliver a cancel that came meanwhile and end the run
    // at once, and its end must find them to stop.
    run.renew = setInterval(() => void this.#renew(run), Math.max(100, Math.floor(space.leaseTtlMs / 3)));
    run.watch.from(moved.record.seq);
    if (this.#running.get(item.key) === run) run.run.begin();
    return true;
  }

  /** How a run reaches its task's record in the task space. */
  #portOf(run: Running): RunPort {
    const space = this.#space;
    const write = (event: TaskEvent): Promise<unknown> => applyToTask(space, run.key, event, { only: run.ours });
    // Progress, status messages and the handler machine's position: the latest wins, one write in
    // flight each (see latest-write.ts).
    const latest = { 'task.progress': new LatestWrite(write), 'task.message': new LatestWrite(write), 'task.handler': new LatestWrite(write) };
    return {
      move: (event) => {
        if (event.type === 'task.progress' || event.type === 'task.message' || event.type === 'task.handler') latest[event.type].write(event);
        else void write(event).catch(() => undefined);
      },
      shareMachine: (key, graph) => space.graphs.share(key, graph),
      unsharedMachine: (key, bytes) => {
        if (space.graphs.unshared(key)) space.log('warn', 'handler machine graph too large to share', { key, bytes, maxBytes: MAX_SHARED_GRAPH_BYTES, taskId: run.logId });
      },
      requestInput: (request) => this.#requestInput(run, request),
      end: (outcome, at) => {
        run.returned = true;
        // The run's last reports land first (the handler machine's final position above all):
        // written after the terminal write, they would be refused, and the task would end showing
        // the ones before. Waited for a bounded time: a report stuck in a NATS outage holds no outcome.
        const lastMoves = within(Promise.all(Object.values(latest).map((w) => w.idle())), LAST_MOVES_MS);
        const writing = lastMoves.then(() => this.#keepOutcome(run, outcome, at)).finally(() => {
          if (run.writing === writing) run.writing = null;
        });
        run.writing = writing;
        return writing;
      },
      checkpoint: (checkpoint) => this.#keepCheckpoint(run, checkpoint),
      ended: () => {
        // Logged once, however it ended (its own outcome, a cancel from any node, a loss).
        const status = run.run?.status;
        if (this.#running.get(run.key) === run && status !== undefined && isTerminalStatus(status)) this.#logEnd(run, status);
        this.#finish(run, true);
      },
      // Waiting for a person holds no worker slot.
      waiting: () => {
        if (!run.holdsSlot) return;
        run.holdsSlot = false;
        this.#slots.release();
      },
      // Back to work: it takes a worker slot again (waiting for one if the worker is full).
      resuming: () => this.#holdSlot(run),
    };
  }

  /** Keeps a decided outcome (see `keepOutcome`). */
  #keepOutcome(run: Running, outcome: Settled, at: number): Promise<void> {
    return keepOutcome(this.#space, run, outcome, at, { stillWanted: this.#stillWanted(run), reconcile: () => void this.#reconcile(run) });
  }

  /** Whether `run` is still this node's run of its task (its writes are still wanted). */
  #stillWanted(run: Running): () => boolean {
    return () => this.#running.get(run.key) === run;
  }

  /** Keeps a checkpoint of the work (see `keepCheckpoint`). */
  #keepCheckpoint(run: Running, checkpoint: TaskCheckpoint): Promise<boolean> {
    return keepCheckpoint(this.#space, run, checkpoint, this.#stillWanted(run));
  }

  #logEnd(run: Running, status: string): void {
    this.#space.log('info', 'task end', { taskId: run.logId, key: run.key, attempt: run.attempt, status, node: this.#space.nodeId });
  }

  /** Writes an input request of the work (see `writeInputRequest`), then gives any answer it already has. */
  async #requestInput(run: Running, request: InputRequest): Promise<boolean> {
    const record = await writeInputRequest(this.#space, run, request, this.#stillWanted(run));
    if (record === null) return false;
    void this.#deliverAnswers(run, record);
    return true;
  }

  /** Re-reads the record after any event of the task another node made: ended → stop; answers → resume. */
  async #reconcile(run: Running): Promise<void> {
    if (!this.#running.has(run.key)) return;
    const read = await this.#space.store.read(run.key).catch(() => undefined);
    if (read === undefined) return;
    const record = read && 'found' in read ? read.found.record : null;
    if (record === null || isTerminalStatus(record.status)) {
      // Cancelled, deleted or ended elsewhere: the actor ends as the record did, which aborts the work.
      run.run?.send(endingOf(record, this.#space.now()));
      this.#finish(run, true);
      return;
    }
    await this.#deliverAnswers(run, record);
  }

  /**
   * Gives the run the answers it waits for, read back when kept apart from the record. A read that
   * fails is tried again at the next look at the record (every renewal makes one).
   */
  async #deliverAnswers(run: Running, record: TaskRecord): Promise<void> {
    const given = new Set(record.inputs.filter((i) => i.answer !== undefined && run.run?.waitsFor(i.inputId)).map((i) => `input:${i.inputId}:answer`));
    if (given.size === 0) return;
    const full = await this.#space.store.payloads.read(run.key, record, (slot) => given.has(slot)).catch((error: unknown) => {
      this.#space.log('warn', 'could not read an answer kept apart', { key: run.key, error: String(error) });
      return null;
    });
    for (const input of full?.inputs ?? []) {
      const answer = input.answer;
      // Checked again after the read: another look at the record may have given it meanwhile.
      if (answer === undefined || !run.run?.waitsFor(input.inputId)) continue;
      run.run.answer(input.inputId, 'result' in answer ? { result: answer.result } : { error: new Error(answer.error) });
    }
  }

  #holdSlot(run: Running): Promise<void> {
    if (run.holdsSlot) return Promise.resolve();
    run.slotWait ??= this.#slots.acquire(this.#stop).then(() => {
      run.slotWait = null;
      // Ended while waiting: give the slot straight back.
      if (this.#running.get(run.key) !== run) this.#slots.release();
      else run.holdsSlot = true;
    });
    return run.slotWait;
  }

  async #renew(run: Running): Promise<void> {
    if (this.#running.get(run.key) !== run) {
      if (run.renew) clearInterval(run.renew);
      return;
    }
    try {
      run.lease = await this.#space.leases.renew(run.lease);
    } catch (error) {
      // Another node decided this run was lost (we stalled past the lease): stop, write nothing.
      if (error instanceof LeaseLostError) this.#leaseLost(run);
      return;
    }
    await this.#reconcile(run);
  }

  /** A run of this node whose lease another node took over: it stops, and writes nothing more. */
  #leaseLost(run: Running): void {
    this.#space.log('warn', 'lease lost', { key: run.key, node: this.#space.nodeId, attempt: run.attempt });
    this.#space.metrics?.leaseLost();
    this.#finish(run, false);
  }

  /** Ends a run on this node: stops the watch, the renewals and the run, frees lease and slot. */
  #finish(run: Running, releaseLease: boolean): void {
    if (this.#running.get(run.key) !== run) return;
    this.#running.delete(run.key);
    run.watch?.stop();
    if (run.renew) clearInterval(run.renew);
    if (run.holdsSlot) {
      run.holdsSlot = false;
      this.#slots.release();
    }
    // Not terminal here (its lease was lost, the node stops): the work is aborted, nothing more written.
    if (run.run) this.#host.stop(run.key, run.run);
    // Once the timers of the tasks this node ended are queued (see ExpiryBatch): a node that dies
    // before leaves the lease to expire, and its taker queues the timer again.
    if (releaseLease) void this.#space.expiries.queued().then(() => this.#space.leases.letGo(run.lease));
  }
}
