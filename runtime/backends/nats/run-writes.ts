/**
 * What a run on a worker writes to its task's record: its outcome, its checkpoints and its input
 * requests. Each write is made only while the record still names the run (`ours`: node, attempt,
 * incarnation), and is retried through a NATS outage while the run still wants it.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { isTerminalStatus, taskEvents, type TaskEvent } from '../../../machines/index.js';
import { endingOf, type Settled } from '../../core/outcome.js';
import type { InputRequest, TaskCheckpoint } from '../../task-runtime.types.js';
import { applyEvent, INLINE_RESULT_BYTES, pendingInputsOf, type TaskRecord } from './task-record.js';
import { persistently } from './persistently.js';
import { applyToTask, type TaskSpace } from './task-space.js';

/** How long a worker keeps trying to store an outcome through a NATS outage. */
export const OUTCOME_WRITE_MS = 120_000;

/** The run a write is for. */
export interface WritingRun {
  readonly key: string;
  /** True while the stored record still names this run. */
  readonly ours: (record: TaskRecord) => boolean;
  /** The run's actor, told of the end it wrote. */
  readonly run: { send(event: TaskEvent): void } | null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Keeps a decided outcome: the result first, then the terminal status. The writes are retried
 * through a NATS outage: the outcome is decided and must not be lost, nor turned into a failure
 * of the handler.
 *
 * @param o - `stillWanted`: the run is still this node's; `reconcile`: look at the record again
 *   (the write changed nothing: another node ended the task first)
 * @example
 * ```ts
 * await keepOutcome(space, run, { status: 'completed', result }, Date.now(), { stillWanted, reconcile });
 * ```
 */
export async function keepOutcome(space: TaskSpace, run: WritingRun, outcome: Settled, at: number, o: { readonly stillWanted: () => boolean; readonly reconcile: () => void }): Promise<void> {
  const { stillWanted } = o;
  const keep = <T>(op: () => Promise<T>): Promise<T> => persistently(op, { giveUpMs: OUTCOME_WRITE_MS, stillWanted });
  const { kept, event: ending } = endingOf(outcome, run.key, at);
  try {
    // A small result rides in the terminal write itself; a large one is stored first, so a
    // reader that sees the status always finds it.
    const json = kept ? JSON.stringify(kept.value ?? null) : '';
    const inline = kept && Buffer.byteLength(json, 'utf8') <= INLINE_RESULT_BYTES ? { value: JSON.parse(json) as unknown } : undefined;
    if (kept && !inline) await keep(() => space.store.putResult(run.key, kept.value));
    const extra = { hasResult: kept !== null, failure: outcome.status === 'failed' ? outcome.failure : null, outcomeBytes: outcome.bytes, ...(inline && { inline }) };
    const writeId = randomUUID();
    // Its retention timer goes out in this node's next batch; the lease is held until it has.
    const out = await keep(() => applyToTask(space, run.key, ending, { extra: () => extra, only: run.ours, writeId, batchTimer: true }));
    // The actor hears of the end from the feed too; told here as well, in case that event is lost.
    if (out?.changed) run.run?.send(ending);
    else o.reconcile();
  } catch (writeError) {
    // Not stored (too large, or NATS gone for too long): the task ends failed saying why, if it
    // can, unless the run is no longer this node's to end.
    if (!stillWanted()) return;
    const why = `The task's outcome could not be stored: ${messageOf(writeError)}`;
    const failed = taskEvents.fail(why, space.now());
    const out = await applyToTask(space, run.key, failed, { only: run.ours }).catch((e: unknown) => {
      space.log('error', 'could not store an outcome', { key: run.key, error: messageOf(e) });
      return null;
    });
    if (out?.changed) run.run?.send(failed);
    else o.reconcile();
  }
}

/**
 * Writes a checkpoint into the task's record (one compare-and-swap, no event: it moves nothing
 * a requester sees), while the record still names this run, the task is live, and the stored
 * checkpoint is an earlier one.
 *
 * @returns whether it was written
 * @example
 * ```ts
 * await keepCheckpoint(space, run, { seq: 3, state, label: 'working', at: Date.now(), node }, stillWanted);
 * ```
 */
export async function keepCheckpoint(space: TaskSpace, run: WritingRun, checkpoint: TaskCheckpoint, stillWanted: () => boolean): Promise<boolean> {
  // Never over a later one (a write retried after the next went through).
  const newer = (r: TaskRecord): boolean => (r.checkpoint?.seq ?? 0) < checkpoint.seq;
  const out = await persistently(() => space.store.mutate(run.key, (r) => (run.ours(r) && !isTerminalStatus(r.status) && newer(r) ? { ...r, checkpoint } : null)), {
    giveUpMs: OUTCOME_WRITE_MS,
    stillWanted,
  }).catch(() => null);
  return out !== null && out.changed;
}

/**
 * Writes an input request of the work with its task, unless a run before this one did (a re-run
 * or a resumed run asks again under the same id: the stored request, and its answer if given,
 * are replayed).
 *
 * @returns the record after it, or `null` when the task can no longer take it (ended, or not this run's)
 * @example
 * ```ts
 * const record = await writeInputRequest(space, run, request, stillWanted);
 * ```
 */
export async function writeInputRequest(space: TaskSpace, run: WritingRun, request: InputRequest, stillWanted: () => boolean): Promise<TaskRecord | null> {
  const { inputId, method, params } = request;
  const writeId = randomUUID();
  const out = await persistently(
    () =>
      space.store.mutate(
        run.key,
        (r) => {
          if (!run.ours(r)) return null;
          if (r.inputs.some((i) => i.inputId === inputId)) return null;
          if (isTerminalStatus(r.status)) return null;
          const moved = applyEvent(r, taskEvents.inputRequest(inputId, space.now()));
          return moved && { ...moved, inputs: [...r.inputs, { inputId, method, params }] };
        },
        (_b, after) => {
          const apart = after.payloads?.[`input:${inputId}:params`];
          return {
            kind: 'task.input.request',
            event: taskEvents.inputRequest(inputId, after.context.updatedAt),
            input: pendingInputsOf(after).find((i) => i.inputId === inputId)!,
            ...(apart !== undefined && { inputApart: { order: after.order, id: apart } }),
          };
        },
        writeId,
      ),
    { giveUpMs: OUTCOME_WRITE_MS, stillWanted },
  );
  if (out === null || isTerminalStatus(out.record.status) || !run.ours(out.record)) return null;
  return out.record;
}
