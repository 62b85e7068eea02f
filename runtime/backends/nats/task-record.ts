/**
 * A task as stored in the snapshot bucket, and how it moves: every change is the lifecycle
 * machine's own pure `transition` applied to the stored state, so a node that never ran the task
 * (a front node cancelling it, a node taking over from a lost worker) moves it exactly as the
 * actor on its worker would, and a refused event (a late outcome of a cancelled task) changes
 * nothing.
 *
 * @module
 */
import { createActor, type ActorScope } from 'xstate';
import { isTerminalStatus, taskMachine, type TaskContext, type TaskEvent, type TaskInput, type TaskStatus } from '../../../machines/index.js';
import type { InputRequest, TaskCheckpoint } from '../../task-runtime.types.js';
import { expiresAtOf, mayKeepResult } from '../../core/retention.js';
import type { TraceCarrier } from '../../telemetry/tracing.js';

/** The work behind a task, as any worker needs it to run it. */
export interface StoredWork {
  /** Name under which the handler is registered on every worker. */
  readonly handler: string;
  readonly params: unknown;
  readonly retry: 'never' | 'restart' | 'resume';
  readonly maxAttempts: number;
  /** The creating request's trace context, so that a run on any worker joins its trace (absent in records written before). */
  readonly trace?: TraceCarrier;
  /**
   * What its requester can be asked (see `CreateTaskOptions.requesterCapabilities`), so that the
   * worker that runs it refuses what the requester cannot answer; absent: not known (records written before).
   */
  readonly requesterCapabilities?: readonly string[];
}

/** An input request of the task, kept (with its answer once given) so a re-run can replay it. */
export interface StoredInput {
  readonly inputId: string;
  readonly method: string;
  readonly params: unknown;
  readonly answer?: { readonly result: unknown } | { readonly error: string };
}

/** The JSON value of a task in the snapshot bucket. */
export interface TaskRecord {
  readonly v: 1;
  readonly status: TaskStatus;
  readonly context: TaskContext;
  /** Number of events applied: the per-task sequence of the last event published for it. */
  readonly seq: number;
  /** Sequence of the task's entry in the listing index stream (0 while unknown). */
  readonly order: number;
  /** When a terminal task is removed, epoch ms; `null` while running or kept forever. */
  readonly expiresAt: number | null;
  readonly work: StoredWork | null;
  /** How many times the handler was started. */
  readonly attempts: number;
  /** The node that started the last attempt. */
  readonly node: string | null;
  readonly inputs: readonly StoredInput[];
  readonly hasResult: boolean;
  /**
   * A small result kept in the record itself (see {@link INLINE_RESULT_BYTES}): the terminal write
   * carries it, so neither the worker nor a reader makes a request of the results bucket.
   */
  readonly inline?: { readonly value: unknown };
  /** The `detail` of a handler's `TaskFailure`, JSON-safe. */
  readonly failure: unknown;
  /**
   * Characters of the JSON of the result and failure detail its outcome kept, as the outcome's
   * check counted them (set by the write that ended it): what the task counts against its
   * requester's `maxRetainedBytesPerRequester` on every node, without reading the result.
   */
  readonly outcomeBytes?: number;
  /** The attempt queued after the last lost one: a loss is decided once, by one node. */
  readonly requeued?: number;
  /** The last checkpoint its handler kept (`ctx.checkpoint`): where a resumed run starts. */
  readonly checkpoint?: TaskCheckpoint;
  /**
   * Parts kept apart from the record because it was large (slot name → id, see
   * `record-payloads.ts`); their places in the record hold `null`. Present, even empty, once any
   * part of this incarnation may have been stored apart: its removal then purges them.
   */
  readonly payloads?: Readonly<Record<string, string>>;
  /** Id of the write that made this version (to recognise a write whose reply was lost). */
  readonly writeId?: string;
  /** The node that wrote this version (for operators: who last touched a task no worker runs). */
  readonly writer?: string;
}

/**
 * Results whose JSON is at most this many bytes are kept in the task's record (one write, read
 * with the record); larger ones go to the results bucket. Small enough that a record stays a
 * cheap read for every `tasks/get`.
 */
export const INLINE_RESULT_BYTES = 4 * 1024;

type TaskScope = ActorScope<ReturnType<typeof taskMachine.getInitialSnapshot>, TaskEvent>;
let inertScope: TaskScope | null = null;

/**
 * One actor scope for every pure step of the task machine on this node. XState's own
 * `transition()`/`getInitialSnapshot()` build a fresh actor (and its initial state) per call,
 * which was about 80 % of their cost (80 vs 17 µs per lifecycle); this machine only assigns (no
 * spawn, raise, delay or system id), so nothing of one step stays in the scope for the next.
 */
function scope(): TaskScope {
  if (inertScope) return inertScope;
  const self = createActor(taskMachine, { input: { taskId: '', owner: { session: '', principal: null }, dialect: '', method: '', label: null, keepAlive: null, pollFrequency: 0, createdAt: 0 } });
  const ignore = (): void => undefined;
  inertScope = { self, id: 'inert', sessionId: 'inert', logger: ignore, defer: ignore, system: self.system, stopChild: ignore, emit: ignore, actionExecutor: ignore };
  return inertScope;
}

/**
 * The first record of a task: the machine's initial state (`submitted`) for this input, event 1.
 *
 * @param input - the machine input (the task's identity, dialect, keepAlive…)
 * @param work - the handler to run, or `null` for a task driven from outside
 * @example
 * ```ts
 * const record = newRecord(input, { handler: 'tools/call:sleep', params, retry: 'never', maxAttempts: 3 });
 * ```
 */
export function newRecord(input: TaskInput, work: StoredWork | null): TaskRecord {
  const initial = taskMachine.getInitialSnapshot(scope(), input);
  return { v: 1, status: initial.value, context: initial.context, seq: 1, order: 0, expiresAt: null, work, attempts: 0, node: null, inputs: [], hasResult: false, failure: null };
}

/**
 * Applies one lifecycle event to a stored task with the machine's pure transition function.
 *
 * @param record - the stored task
 * @param event - a lifecycle event
 * @returns the moved record (seq + 1, expiry set when it became terminal), or `null` when the
 *   machine refuses the event in this state (e.g. anything after a terminal state)
 * @example
 * ```ts
 * const next = applyEvent(record, taskEvents.cancel('stop', Date.now()));
 * if (next) await cas(next);
 * ```
 */
export function applyEvent(record: TaskRecord, event: TaskEvent): TaskRecord | null {
  if (isTerminalStatus(record.status)) return null;
  const state = taskMachine.resolveState({ value: record.status, context: record.context });
  const next = taskMachine.transition(state, event, scope());
  const status = next.value;
  if (status === record.status && next.context === state.context) return null;
  return {
    ...record,
    status,
    context: next.context,
    seq: record.seq + 1,
    expiresAt: expiresAtOf(status, next.context),
    hasResult: mayKeepResult(status) && record.hasResult,
  };
}

/**
 * The input requests a stored task still waits on, oldest first.
 *
 * @param record - the stored task
 * @example
 * ```ts
 * for (const request of pendingInputsOf(record)) deliver(request);
 * ```
 */
export function pendingInputsOf(record: TaskRecord): InputRequest[] {
  const pending = new Set(record.context.pendingInputs);
  return record.inputs
    .filter((i) => i.answer === undefined && pending.has(i.inputId))
    .map((i) => ({ taskId: record.context.taskId, owner: record.context.owner, dialect: record.context.dialect, inputId: i.inputId, method: i.method, params: i.params }));
}
