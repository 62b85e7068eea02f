/**
 * Task work written as an XState machine: run as an actor, its output is the task's result, a
 * cancel stops it, and XState's inspection API reports each state it enters: to the task itself
 * (`ctx.handlerState`: the position is kept with the task and the machine's graph shared, so the
 * observer of any node draws the handler's own diagram live, after a lost worker too), and to the
 * process-wide {@link handlerRuns} table, which only this process's inspector sees.
 *
 * Durable: at every state it enters the actor's persisted snapshot is kept with the task as a
 * checkpoint (`ctx.checkpoint`), with the deadlines of its delayed transitions (XState does not
 * persist those). A run that resumes the task after its worker was lost (`retry: 'resume'`)
 * restores the actor from the last checkpoint and re-arms each delay for what was left of it.
 *
 * @module
 */
import { createActor, type AnyStateMachine, type InputFrom, type InspectionEvent, type OutputFrom } from 'xstate';
import type { HandlerPosition, TaskOwner } from '../../machines/index.js';
import type { TaskCheckpoint } from '../index.js';
import { activeStateIds } from './active-states.js';
import { checkpointer, isCheckpoint, rearmTimers, stateLabel, type ActiveSnapshot, type MachineCheckpoint } from './machine-checkpoints.js';
import { handlerRuns, type HandlerRunStatus, type HandlerRuns } from './handler-runs.js';
import { machineGraph } from './machine-graph.js';
import type { MachineGraph } from './machine-graph.types.js';

/**
 * The events a handler machine may `emit()` for its runner to act on.
 *
 * @example
 * ```ts
 * entry: emit(() => ({ type: MachineHandlerEvent.status, message: 'step 1/10' })),
 * ```
 */
export const MachineHandlerEvent = {
  /** Sets the task's status message. */
  status: 'handler.status',
  /** Publishes an intermediate result (`ctx.partial`). */
  partial: 'handler.partial',
  /** Reports progress (`ctx.progress`). */
  progress: 'handler.progress',
} as const;

/**
 * Emitted by a handler machine to report its task's progress.
 *
 * @example
 * ```ts
 * const event: HandlerProgressEvent = { type: 'handler.progress', progress: 3, total: 10, message: 'step 3/10' };
 * ```
 */
export interface HandlerProgressEvent {
  readonly type: typeof MachineHandlerEvent.progress;
  /** How much is done (see `TaskHandlerContext.progress`). */
  readonly progress: number;
  /** How much there is to do, when known. */
  readonly total?: number;
  /** What is happening now, for people. */
  readonly message?: string;
}

/**
 * Makes a {@link HandlerProgressEvent}, for `emit()` in a handler machine.
 *
 * @example
 * ```ts
 * entry: emit(({ context }) => handlerProgress(context.step, 10, `step ${context.step}/10`)),
 * ```
 */
export function handlerProgress(progress: number, total?: number, message?: string): HandlerProgressEvent {
  return { type: MachineHandlerEvent.progress, progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) };
}

/**
 * Emitted by a handler machine to publish an intermediate result of its task.
 *
 * @example
 * ```ts
 * const event: HandlerPartialEvent = { type: 'handler.partial', content: [{ type: 'text', text: 'step 3 done' }] };
 * ```
 */
export interface HandlerPartialEvent {
  readonly type: typeof MachineHandlerEvent.partial;
  readonly content: unknown;
}

/**
 * Makes a {@link HandlerPartialEvent}, for `emit()` in a handler machine.
 *
 * @example
 * ```ts
 * actions: emit(({ context }) => handlerPartial([{ type: 'text', text: `step ${context.step} done` }])),
 * ```
 */
export function handlerPartial(content: unknown): HandlerPartialEvent {
  return { type: MachineHandlerEvent.partial, content };
}

/**
 * Emitted by a handler machine to set its task's status message.
 *
 * @example
 * ```ts
 * const event: HandlerStatusEvent = { type: 'handler.status', message: 'step 3/10' };
 * ```
 */
export interface HandlerStatusEvent {
  readonly type: typeof MachineHandlerEvent.status;
  readonly message: string;
}

/**
 * Makes a {@link HandlerStatusEvent}, for `emit()` in a handler machine.
 *
 * @example
 * ```ts
 * entry: emit(({ context }) => handlerStatus(`step ${context.step}/10`)),
 * ```
 */
export function handlerStatus(message: string): HandlerStatusEvent {
  return { type: MachineHandlerEvent.status, message };
}

/**
 * What a machine handler needs of its caller. Both the runtime's `TaskHandlerContext` and the MCP
 * server's `RequestWorkContext` have this shape, so one handler serves as either.
 */
export interface MachineWorkContext {
  /** `null` for a plain (not task-augmented) call: nothing is reported then. */
  readonly taskId: string | null;
  /** Needed to report the run: task ids are unique per owner only. */
  readonly owner?: TaskOwner;
  readonly signal: AbortSignal;
  setStatusMessage(message: string): void;
  /** Reports progress (see `TaskHandlerContext.progress`); absent: nothing is reported. */
  progress?(progress: number, total?: number, message?: string): boolean;
  /** As a task resumed after a lost worker: the last checkpoint an earlier run kept. */
  readonly resumeFrom?: TaskCheckpoint | null;
  /** As a task: keeps a checkpoint with it (absent for a plain call: nothing is kept). */
  checkpoint?(state: unknown, label?: string): Promise<boolean>;
  /** `false` when checkpoints are kept nowhere (the memory backend): none is built then. */
  readonly durable?: boolean;
  /** As a task: publishes an intermediate result (absent for a plain call: nothing is published). */
  partial?(content: unknown): Promise<boolean>;
  /**
   * As a task: an idempotency key (see `TaskHandlerContext.stepKey`). In the `ctx` a machine
   * handler gives `provide`, it names the state the actor is in: the same for the effects of that
   * state on the run that resumes from its checkpoint.
   */
  stepKey?(step?: number): string;
  /**
   * As a task: where the machine is, for operators on any node (see
   * `TaskHandlerContext.handlerState`). `machineHandler` calls it at every state; absent: the
   * position is reported to {@link handlerRuns} only.
   */
  handlerState?(graph: MachineGraph, state: Omit<HandlerPosition, 'machine' | 'graph'>): void;
}

/** Each machine's graph, read once: every run of it reports the same object (its key is cached by it). */
const graphs = new WeakMap<AnyStateMachine, MachineGraph | null>();

/** The graph of `machine`; `null` when it cannot be read (its position is then not reported). */
function graphOf(machine: AnyStateMachine): MachineGraph | null {
  let graph = graphs.get(machine);
  if (graph === undefined) {
    try {
      graph = machineGraph(machine);
    } catch {
      graph = null;
    }
    graphs.set(machine, graph);
  }
  return graph;
}

/** Options of {@link machineHandler}. */
export interface MachineHandlerOptions<TMachine extends AnyStateMachine, TParams, TCtx extends MachineWorkContext = MachineWorkContext> {
  /**
   * The machine's input, from the request's params. @default the params themselves
   */
  readonly input?: (params: TParams, ctx: TCtx) => InputFrom<TMachine>;
  /**
   * Implementations that need the run's context (an actor that asks the requester for input), as
   * for `machine.provide`. Kept out of the machine's context, which is persisted as JSON.
   */
  readonly provide?: (ctx: TCtx) => Parameters<TMachine['provide']>[0];
  /** Where runs are reported. @default the process-wide {@link handlerRuns} */
  readonly runs?: HandlerRuns;
}

/**
 * A task handler that runs `machine` as an actor per task. It resolves with the actor's output
 * when the machine reaches a top-level final state, rejects when the actor errors, and stops the
 * actor when `ctx.signal` aborts (a cancel). A machine sets the status message by emitting
 * {@link handlerStatus}, reports progress with {@link handlerProgress}. Each snapshot of the actor is
 * reported to the task (`ctx.handlerState`, when the context has it: readable by the observer of
 * any node) and to {@link handlerRuns}, which the inspector of the same process shows.
 *
 * @param machine - the work; its output becomes the result (a `CallToolResult` for a tool)
 * @param options - `input` maps the params to the machine's input
 * @returns a function usable as a `TaskHandler` or as a tool's `run`
 * @example
 * ```ts
 * const tool: TaskToolDefinition<{ seconds: z.ZodNumber }> = {
 *   name: 'long_job', inputSchema: z.object({ seconds: z.number() }), taskSupport: 'required',
 *   run: machineHandler(longJobMachine, { input: ({ seconds }) => ({ seconds }) }),
 * };
 * ```
 */
export function machineHandler<TMachine extends AnyStateMachine, TParams = unknown, TCtx extends MachineWorkContext = MachineWorkContext>(
  machine: TMachine,
  options: MachineHandlerOptions<TMachine, TParams, TCtx> = {},
): (params: TParams, ctx: TCtx) => Promise<OutputFrom<TMachine>> {
  const runs = options.runs ?? handlerRuns;
  return (params, ctx) =>
    new Promise<OutputFrom<TMachine>>((resolve, reject) => {
      const { signal } = ctx;
      if (signal.aborted) return reject(abortError(signal));
      const { taskId, owner } = ctx;
      const keeper = ctx.checkpoint && ctx.durable !== false ? checkpointer(ctx.checkpoint.bind(ctx)) : null;
      const report = (snapshot: unknown, status?: HandlerRunStatus): void => {
        if (taskId === null || owner === undefined) return;
        const s = snapshot as ActiveSnapshot & { value: Parameters<typeof activeStateIds>[1]; status: HandlerRunStatus };
        const states = activeStateIds(machine.id, s.value);
        runs.report({ taskId, owner, machine, states, status: status ?? s.status, updatedAt: Date.now() });
        const graph = ctx.handlerState ? graphOf(machine) : null;
        if (graph === null) return;
        // A checkpoint is kept at this state (see `inspect` below): where a resumed run would start.
        const checkpoint = keeper !== null && status === undefined && s.status === 'active' && isCheckpoint(s);
        try {
          ctx.handlerState!(graph, { states, status: status ?? s.status, step, checkpoint });
        } catch {
          // Telling operators where the machine is must never break the machine.
        }
      };
      const kept = ctx.resumeFrom?.state as MachineCheckpoint | undefined;
      const restoring = kept !== undefined && kept !== null && typeof kept === 'object' && 'snapshot' in kept;
      // Steps: 1 for the first state, one more for each event the actor takes once started. The
      // effects a state starts (its invoked actors) run under its step's key, on the first run
      // and on the run that restores that state and starts them again.
      let step = restoring ? (kept.step ?? 1) : 1;
      const inspect = (event: InspectionEvent): void => {
        if (event.type === '@xstate.event' && started && event.actorRef.sessionId === event.rootId) step++;
        // The root actor only: children (invoked or spawned) have machines of their own.
        if (event.type !== '@xstate.snapshot' || event.actorRef.sessionId !== event.rootId) return;
        report(event.snapshot);
        const snapshot = event.snapshot as unknown as ActiveSnapshot;
        // Every state entered is a checkpoint (the actor is started by then: see below).
        if (keeper && started && snapshot.status === 'active' && isCheckpoint(snapshot)) keeper.keep(actor, stateLabel(snapshot.value), step);
      };
      const input = options.input ? options.input(params, ctx) : (params as InputFrom<TMachine>);
      // The context `provide` sees: its stepKey names the step the actor is in (see above).
      // (A proxy: the context's getters read private fields of the context itself.)
      const stepKey = (): string => ctx.stepKey!(step);
      const stepped = ctx.stepKey ? new Proxy(ctx, { get: (target, name) => (name === 'stepKey' ? stepKey : (Reflect.get(target, name, target) as unknown)) }) : ctx;
      const impl = options.provide ? (machine.provide(options.provide(stepped) as never) as TMachine) : machine;
      let started = false;
      const actor = restoring ? createActor(impl, { snapshot: kept.snapshot as never, input, inspect }) : createActor(impl, { input, inspect });
      const onAbort = (): void => {
        // Rejected first: stopping the actor completes its observers, which must not resolve.
        reject(abortError(signal));
        actor.stop();
        // A stopped actor sends no more snapshots: record that it stopped where it was.
        report(actor.getSnapshot(), 'stopped');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      actor.on(MachineHandlerEvent.status, (event: HandlerStatusEvent) => ctx.setStatusMessage(event.message));
      actor.on(MachineHandlerEvent.progress, (event: HandlerProgressEvent) => ctx.progress?.(event.progress, event.total, event.message));
      actor.on(MachineHandlerEvent.partial, (event: HandlerPartialEvent) => void ctx.partial?.(event.content).catch(() => false));
      actor.subscribe({
        complete: () => {
          signal.removeEventListener('abort', onAbort);
          const snapshot = actor.getSnapshot() as { status: HandlerRunStatus; output: OutputFrom<TMachine> };
          // Complete without reaching a final state means stopped (by the abort above, or by XState).
          if (snapshot.status === 'done') resolve(snapshot.output);
          else reject(abortError(signal));
        },
        error: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      });
      actor.start();
      started = true;
      if (restoring) {
        // Delayed transitions of the state it was in, for what was left of them.
        rearmTimers(actor, kept.timers);
        report(actor.getSnapshot());
      } else if (keeper) {
        // The first state: kept once the actor has started (its delays are armed by then).
        const snapshot = actor.getSnapshot() as ActiveSnapshot;
        if (snapshot.status === 'active' && isCheckpoint(snapshot)) keeper.keep(actor, stateLabel(snapshot.value), step);
      }
    });
}

/** What an aborted wait in Node throws, so a machine handler fails like any other handler would. */
function abortError(signal: AbortSignal): Error {
  return new DOMException('The operation was aborted', { name: 'AbortError', cause: signal.reason });
}
