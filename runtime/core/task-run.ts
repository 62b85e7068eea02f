/**
 * A running task on the node that runs it: one XState actor of the lifecycle machine, and the
 * work beside it. This is the one place where a handler is called, its context built, its outcome
 * decided and its input requests matched with their answers, whatever the backend; a backend
 * only says, through a {@link RunPort}, how a move of the work reaches the task's record and how
 * the outcome is kept.
 *
 * The actor mirrors the record: the memory backend's record is the actor's own snapshot, the NATS
 * backend feeds it every event its record takes, in the record's order. When the actor reaches a
 * terminal state (completed, cancelled by anyone, lost…) the work's signal aborts.
 *
 * @module
 */
import { context as otel } from '@opentelemetry/api';
import { createActor, fromCallback, type Actor, type AnyActorRef } from 'xstate';
import { advancesProgress, isTerminalStatus, taskEvents, taskMachine, type TaskEvent, type TaskProgress, type TaskStatus } from '../../machines/index.js';
import type { MachineGraph } from '../handlers/machine-graph.types.js';
import { HandlerReports, type HandlerState } from './handler-reports.js';
import { TaskTerminalError } from '../errors.js';
import { taskIncarnation } from '../task-identity.js';
import type { InputAnswer, InputRequest, TaskCheckpoint, TaskHandler } from '../task-runtime.types.js';
import { InputIds } from './input-ids.js';
import { refusedInput } from './input-capabilities.js';
import { decideOutcome } from './outcome.js';
import { RunFamily } from './run-family.js';
import { WorkContext } from './work-context.js';
import { RunMeter } from '../telemetry/run-meter.js';
import { TaskSpan } from '../telemetry/task-span.js';
import type { RunOptions, RunPort, RunStart } from './task-run.types.js';

/**
 * The actor system every task actor of this process lives in. A root actor builds a system of its
 * own (maps, a scheduler, a dozen closures: 1.8 KB of a live task's 4.2); as children of one idle
 * host they share its system instead. The host ignores what its children tell it (their done
 * events): the runs observe their actors themselves.
 */
let host: AnyActorRef | null = null;
function taskSystemHost(): AnyActorRef {
  host ??= createActor(fromCallback(() => undefined)).start();
  return host;
}

interface Waiting {
  /** A subtask's request shown as this task's own: the work does not wait on it (no slot to take back). */
  readonly mirror: boolean;
  readonly request: InputRequest;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One live task: its actor and its work.
 *
 * @example
 * ```ts
 * const run = new TaskRun({ input }, { handler, params, maxResultBytes: null, now: Date.now }, port);
 * run.send(taskEvents.start(Date.now()));
 * run.begin();
 * ```
 */
export class TaskRun {
  readonly actor: Actor<typeof taskMachine>;
  readonly #options: RunOptions;
  readonly #port: RunPort;
  /**
   * Made when the work first reads `ctx.signal`: most work never does, and an AbortController
   * (and the DOMException its abort makes) was a fifth of a lifecycle's CPU in the profile.
   */
  #abort: AbortController | null = null;
  /** The work's signal has fired (or would have, had it been made). */
  #aborted = false;
  /** The work returned or threw: nothing waits on its signal any more. */
  #returned = false;
  /** The work's input requests waiting for an answer; made when the work first asks. */
  #waiting: Map<string, Waiting> | null = null;
  /** Numbers the work's input requests; made when it first asks. */
  #inputIds: InputIds | null = null;
  /** Sequence of the last checkpoint kept (by this run, or the one it resumed from). */
  #checkpointSeq: number;
  #incarnation: string | undefined;
  #over = false;
  #begun = false;
  #stopped = false;
  /** The work's subtasks and intermediate results; made at the first. */
  #family: RunFamily | null = null;
  /** What the run measures: only a handler's run, only when metrics are taken. */
  readonly #meter: RunMeter | null;
  /** The run's span, from the work's start to the run's end (see `telemetry/task-span.ts`). */
  #span: TaskSpan | null = null;

  constructor(start: RunStart, options: RunOptions, port: RunPort) {
    this.#options = options;
    this.#port = port;
    this.#meter = options.metrics && options.handler ? new RunMeter(options.metrics) : null;
    this.#checkpointSeq = options.resumeFrom?.seq ?? 0;
    this.actor =
      'input' in start
        ? createActor(taskMachine, { input: start.input, parent: taskSystemHost() })
        : createActor(taskMachine, { snapshot: taskMachine.resolveState({ value: start.status, context: start.context }), input: start.context, parent: taskSystemHost() });
    this.actor.subscribe({
      next: (snapshot) => {
        if (this.#stopped) return;
        this.#meter?.moved(snapshot.value);
        port.observe?.(snapshot);
        this.#span?.observe(snapshot.value, snapshot.context);
        if (isTerminalStatus(snapshot.value)) this.#end(snapshot.value);
      },
      // The machine's actions are pure assignments: an error here is a bug, and the run ends.
      error: () => this.#end('unknown'),
    });
    this.actor.start();
  }

  /** The actor's current status. */
  get status(): TaskStatus {
    return this.actor.getSnapshot().value;
  }

  /** True once the actor is terminal or the run was stopped. */
  get over(): boolean {
    return this.#over;
  }

  /** The input requests of the work still waiting for an answer, oldest first. */
  get pending(): InputRequest[] {
    return this.#waiting ? [...this.#waiting.values()].map((w) => w.request) : [];
  }

  /** Whether the work waits for an answer to `inputId`. */
  waitsFor(inputId: string): boolean {
    return this.#waiting?.has(inputId) === true;
  }

  /**
   * An event the task's record took (or, on the memory backend, is taking).
   *
   * @example
   * ```ts
   * run.send(taskEvents.cancel('stop', Date.now()));
   * ```
   */
  send(event: TaskEvent): void {
    if (!this.#over) this.actor.send(event);
  }

  /**
   * Starts the work: one microtask from now, so the caller has taken the task's first view (and
   * its requester's announcement can go out) before anything the work causes, yet work that ends
   * quickly has ended by the requester's first look.
   *
   * @example
   * ```ts
   * run.begin();
   * ```
   */
  begin(): void {
    const handler = this.#options.handler;
    if (!handler || this.#begun) return;
    this.#begun = true;
    const o = this.#options;
    const snapshot = this.actor.getSnapshot();
    this.#meter?.began(snapshot.context, this.attempt, o.now());
    const span = (this.#span = new TaskSpan({ context: snapshot.context, status: snapshot.value, trace: o.trace, attempt: this.attempt, node: o.node ?? null, resumedFrom: o.resumeFrom?.seq ?? null }));
    // The work runs in the span's context: what it does (subtasks, requests, log lines) joins its trace.
    // A port that failed to keep the outcome leaves nothing this run could still do.
    otel.with(span.context, () => this.#work(handler)).catch(() => this.stop());
  }

  /**
   * Gives the work an answer to one of its input requests.
   *
   * @returns false when the work does not wait for `inputId` (answered already, or over)
   * @example
   * ```ts
   * if (!run.answer('input-1', { result: { action: 'accept' } })) refuse();
   * ```
   */
  answer(inputId: string, answer: InputAnswer): boolean {
    const waiting = this.#waiting?.get(inputId);
    if (!waiting) return false;
    this.#waiting!.delete(inputId);
    const resume = (waiting.mirror ? undefined : this.#port.resuming?.()) ?? Promise.resolve();
    resume.then(
      () => {
        // Ended while the answer waited to be let through: it is discarded (§4.8.5).
        if (this.#over) waiting.reject(new TaskTerminalError(waiting.request.taskId, this.status));
        else if ('error' in answer) waiting.reject(answer.error);
        else waiting.resolve(answer.result);
      },
      (error: unknown) => waiting.reject(error instanceof Error ? error : new Error(String(error))),
    );
    return true;
  }

  /**
   * Stops the run without an outcome (its lease was lost, its node stops): the work's signal
   * aborts and nothing more is written by it.
   *
   * @example
   * ```ts
   * run.stop();
   * ```
   */
  stop(): void {
    if (this.#stopped) return;
    this.#end(null);
    // A child of the shared host cannot be stopped from outside; ended instead, it leaves the
    // system like any finished actor. Its port hears nothing of it: the task did not end.
    this.#stopped = true;
    if (this.actor.getSnapshot().status === 'active') this.actor.send(taskEvents.lose('Stopped on this node', this.#options.now()));
  }

  #signal(): AbortSignal {
    if (!this.#abort) {
      this.#abort = new AbortController();
      if (this.#aborted && !this.#returned) this.#abort.abort();
    }
    return this.#abort.signal;
  }

  /** The work's status message: a move of the task, while it lasts. */
  setStatusMessage(message: string): void {
    if (!this.#over) this.#port.move(taskEvents.message(message, this.#options.now()));
  }

  /**
   * The work's progress report (see {@link WorkContext}): a move of the task, while it lasts, when
   * it goes past the last report (this run's own, else the task's from an earlier run).
   */
  progress(report: TaskProgress): boolean {
    if (this.#over || !advancesProgress(this.#progress ?? this.actor.getSnapshot().context.progress, report.progress)) return false;
    this.#progress = report;
    this.#port.move(taskEvents.progress(report, this.#options.now()));
    return true;
  }

  /** This run's last progress report: ahead of the actor's on NATS, where the move comes back through the record. */
  #progress: TaskProgress | undefined;

  /**
   * Where the work's handler machine is (see {@link WorkContext}): its graph shared through the
   * port (see `handler-reports.ts`), then a move of the task, while it lasts. A report after the
   * task ended is dropped, as the machine would refuse it.
   */
  handlerState(graph: MachineGraph, state: HandlerState): void {
    if (this.#over) return;
    this.#port.move((this.#handlerReports ??= new HandlerReports(this.#port)).move(graph, state, this.#options.now()));
  }

  /** Made at the work's first report of its handler machine. */
  #handlerReports: HandlerReports | null = null;

  /** Which run of the task this is (see {@link WorkContext}). */
  get attempt(): number {
    return this.#options.attempt ?? 1;
  }

  /** The checkpoint this run resumes from (see {@link WorkContext}). */
  get resumeFrom(): TaskCheckpoint | null {
    return this.#options.resumeFrom ?? null;
  }

  /**
   * Names this task among every task ever (owner, id, creation time), the same on every run of
   * it: the first part of its step keys.
   */
  get incarnation(): string {
    return (this.#incarnation ??= taskIncarnation(this.actor.getSnapshot().context));
  }

  /** Whether the port keeps checkpoints (see {@link WorkContext}). */
  get durable(): boolean {
    return this.#port.checkpoint !== undefined;
  }

  /** Sequence of the last checkpoint kept: 0 before the first. */
  get checkpointSeq(): number {
    return this.#checkpointSeq;
  }

  /**
   * Keeps a checkpoint of the work (see {@link WorkContext}): numbered on from the last, whether
   * the port keeps it or not, so step keys stay the same on every run that reaches the same step.
   */
  async checkpoint(state: unknown, label?: string): Promise<boolean> {
    if (this.#over) return false;
    const checkpoint: TaskCheckpoint = { seq: ++this.#checkpointSeq, state, label: label ?? null, at: this.#options.now(), node: this.#options.node ?? null };
    this.#span?.checkpoint(checkpoint.seq, checkpoint.label);
    return this.#port.checkpoint ? await this.#port.checkpoint(checkpoint) : true;
  }

  /** What the work gets as its context's signal (see {@link WorkContext}). */
  get workSignal(): AbortSignal {
    return this.#signal();
  }

  /** An input request of the work (see {@link WorkContext}). */
  requestInput(method: string, params: unknown): Promise<unknown> {
    return this.#requestInput(method, params).answered;
  }

  /** The run's subtasks and intermediate results: made when the work first starts or publishes one. */
  get family(): RunFamily {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the family reads the run's live state
    const run = this;
    this.#family ??= new RunFamily({
      get taskId() {
        return run.actor.getSnapshot().context.taskId;
      },
      get owner() {
        return run.actor.getSnapshot().context.owner;
      },
      get over() {
        return run.over;
      },
      context: () => run.actor.getSnapshot().context,
      status: () => run.status,
      extras: run.#options.extras,
      requesterCapabilities: run.#options.requesterCapabilities,
      now: run.#options.now,
      ask: (method, params) => run.#requestInput(method, params, true),
      move: (event) => run.#port.move(event),
      waiting: () => run.#port.waiting?.(),
      resuming: () => run.#port.resuming?.() ?? Promise.resolve(),
    });
    return this.#family;
  }

  async #work(handler: TaskHandler): Promise<void> {
    const { now } = this.#options;
    await Promise.resolve();
    if (this.#aborted) return;
    let settled: { ok: true; value: unknown } | { ok: false; error: unknown };
    try {
      settled = { ok: true, value: await handler(this.#options.params, new WorkContext(this, this.actor.getSnapshot().context)) };
    } catch (error) {
      settled = { ok: false, error };
    }
    // A task that ended meanwhile (cancelled, lost) stays as it ended: its late outcome is dropped.
    this.#returned = true;
    if (this.#aborted) return;
    // Subtasks still running are cancelled, and their ends recorded, before this task ends: an
    // ended task's record of its children never changes again.
    await this.#family?.settle();
    if (this.#aborted) return;
    await this.#port.end(decideOutcome(settled, this.#options.maxResultBytes), now());
  }

  #requestInput(method: string, params: unknown, mirror = false): { readonly inputId: string; readonly answered: Promise<unknown> } {
    const context = this.actor.getSnapshot().context;
    if (this.#over) return { inputId: '', answered: Promise.reject(new TaskTerminalError(context.taskId, this.status)) };
    // A requester that cannot answer is never asked: the work hears it at once, the task never waits
    // (a mirror is a subtask's request, refused already by the subtask, which inherits the list).
    const refused = mirror ? null : refusedInput(method, this.#options.requesterCapabilities);
    if (refused) return { inputId: '', answered: Promise.reject(refused) };
    const inputId = (this.#inputIds ??= new InputIds(this.#options.asked)).next(method, params);
    const request: InputRequest = { taskId: context.taskId, owner: context.owner, dialect: context.dialect, inputId, method, params };
    const waitingMap = (this.#waiting ??= new Map<string, Waiting>());
    const answered = new Promise<unknown>((resolve, reject) => waitingMap.set(inputId, { mirror, request, resolve, reject }));
    const refuse = (): void => {
      const waiting = waitingMap.get(inputId);
      waitingMap.delete(inputId);
      waiting?.reject(new TaskTerminalError(context.taskId, this.status));
    };
    const taken = (ok: boolean): void => {
      if (!ok) refuse();
      // The work waits for a person now (a mirror: it waits for its subtasks, and said so then).
      else if (waitingMap.has(inputId) && !mirror) this.#port.waiting?.();
    };
    try {
      const out = this.#port.requestInput(request);
      if (typeof out === 'boolean') taken(out);
      else out.then(taken, refuse);
    } catch {
      refuse();
    }
    return { inputId, answered };
  }

  /** The run is over: the work's signal aborts, and its unanswered requests are refused. */
  #end(status: TaskStatus | null): void {
    if (this.#over) return;
    this.#over = true;
    this.#aborted = true;
    this.#meter?.end();
    // Aborted only while the work runs: after it returned, nobody listens (and aborting costs).
    if (!this.#returned) this.#abort?.abort();
    // Answers that arrive after the task ended are discarded (§4.8.5); the work waiting on them stops.
    const taskId = this.actor.getSnapshot().context.taskId;
    const why = (): Error => (status === null ? new Error(`Task ${taskId} stopped on this node before its input was answered`) : new TaskTerminalError(taskId, status));
    if (this.#waiting) {
      for (const waiting of this.#waiting.values()) waiting.reject(why());
      this.#waiting.clear();
    }
    // Subtasks never outlive their parent's run (a stopped run's task lives on: its children too).
    if (status !== null) this.#family?.cancelAll();
    const span = this.#span;
    if (span === null) return void this.#port.ended?.();
    // Told in the span's context, so that the node's "task end" line carries its trace.
    otel.with(span.context, () => this.#port.ended?.());
    span.end(status, this.actor.getSnapshot().context);
  }
}
