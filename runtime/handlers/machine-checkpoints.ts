/**
 * What makes a machine handler durable: which snapshots are checkpoints, what a checkpoint keeps
 * (the actor's persisted snapshot, its step, and the deadline of each pending delayed event,
 * which XState does not persist), and re-arming those delays on the actor restored from it.
 *
 * @module
 */
import type { AnyActorRef, AnyStateMachine, Actor, EventObject } from 'xstate';

type AnyActor = Actor<AnyStateMachine>;

/** What the checkpoint rule reads of a snapshot. */
export interface ActiveSnapshot {
  readonly status: string;
  readonly value: unknown;
  getMeta?(): Record<string, unknown>;
}

/**
 * What a machine handler keeps at a checkpoint: the actor's persisted snapshot and, since XState
 * does not persist delayed events, each pending one with its deadline.
 *
 * @example
 * ```ts
 * const kept = ctx.resumeFrom?.state as MachineCheckpoint | undefined;
 * ```
 */
export interface MachineCheckpoint {
  readonly snapshot: unknown;
  /** The number of the step the actor was in: events it took, counted from 1 (see `stepKey`). */
  readonly step?: number;
  /**
   * Pending delayed events with their deadlines; `source`/`target` name a child actor by its id
   * when it is not the root (absent: the root).
   */
  readonly timers: readonly { readonly id: string; readonly event: EventObject; readonly due: number; readonly source?: string; readonly target?: string }[];
}

/**
 * The state a snapshot is in, for operators: `working`, `a.b`.
 *
 * @example
 * ```ts
 * stateLabel({ a: { b: {} } }); // 'a.b'
 * ```
 */
export function stateLabel(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([key, inner]) => (inner && typeof inner === 'object' && Object.keys(inner).length === 0 ? key : `${key}.${stateLabel(inner)}`))
    .join(',');
}

/**
 * True unless an active state node says `meta: { checkpoint: false }`.
 *
 * @example
 * ```ts
 * if (isCheckpoint(actor.getSnapshot())) keeper.keep(actor, label, step);
 * ```
 */
export function isCheckpoint(snapshot: { getMeta?: () => Record<string, unknown> }): boolean {
  const meta = snapshot.getMeta?.() ?? {};
  return !Object.values(meta).some((m) => typeof m === 'object' && m !== null && (m as { checkpoint?: unknown }).checkpoint === false);
}

/** The actor's direct children by id (the ids they keep when the actor is restored). */
function childrenOf(actor: AnyActor): Record<string, AnyActorRef | undefined> {
  return (actor.getSnapshot() as { children: Record<string, AnyActorRef | undefined> }).children;
}

/**
 * Schedules again, on an actor restored from a checkpoint, the delayed events it had pending, each
 * for what was left of it, between the root and its direct children (restored with the same ids).
 *
 * @example
 * ```ts
 * actor.start();
 * rearmTimers(actor, kept.timers);
 * ```
 */
export function rearmTimers(actor: AnyActor, timers: MachineCheckpoint['timers']): void {
  const now = Date.now();
  const children = childrenOf(actor);
  const ref = (id: string | undefined): AnyActorRef | undefined => (id === undefined ? actor : children[id]);
  for (const timer of timers) {
    const [source, target] = [ref(timer.source), ref(timer.target)];
    if (source && target) actor.system.scheduler.schedule(source, target, timer.event, Math.max(0, timer.due - now), timer.id);
  }
}

/**
 * Keeps checkpoints one at a time, in order: one write in flight, and the latest state waiting
 * behind it (a state passed through meanwhile is not worth a write of its own).
 *
 * @example
 * ```ts
 * const keeper = checkpointer((state, label) => ctx.checkpoint(state, label));
 * keeper.keep(actor, 'working', 3);
 * ```
 */
export function checkpointer(checkpoint: (state: unknown, label?: string) => Promise<boolean>): { keep(actor: AnyActor, label: string, step: number): void } {
  let writing = false;
  let next: { state: MachineCheckpoint; label: string } | null = null;
  const drain = async (): Promise<void> => {
    writing = true;
    while (next) {
      const { state, label } = next;
      next = null;
      await checkpoint(state, label).catch(() => false);
    }
    writing = false;
  };
  return {
    keep(actor, label, step) {
      // Taken now, as it is: the snapshot and its pending delays at this very state, between the
      // root and its direct children (a grandchild's are not kept).
      const events = actor.system.getSnapshot()._scheduledEvents;
      const children = childrenOf(actor);
      const nameOf = (ref: unknown): string | null | undefined => {
        if (ref === actor) return undefined;
        const entry = Object.entries(children).find(([, child]) => child === ref);
        return entry ? entry[0] : null;
      };
      const timers = Object.values(events).flatMap((e) => {
        const [source, target] = [nameOf(e.source), nameOf(e.target)];
        if (source === null || target === null) return [];
        return [{ id: e.id, event: e.event, due: e.startedAt + e.delay, ...(source !== undefined && { source }), ...(target !== undefined && { target }) }];
      });
      next = { state: { snapshot: actor.getPersistedSnapshot(), timers, step }, label };
      if (!writing) void drain();
    },
  };
}
