/**
 * What a running task's work does beyond its own outcome: the subtasks it starts (and how it
 * waits for them), and the intermediate results it publishes. One per run, made when the work
 * first uses either; the run tells it when the work returned and when the task ended.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { taskEvents, type TaskContext, type TaskEvent, type TaskStatus } from '../../machines/index.js';
import { InvalidArgumentError, SubtaskFailedError, TaskTerminalError } from '../errors.js';
import type { SpawnOptions, Subtask, TaskOutcome } from '../task-runtime.types.js';
import { SubtaskLink, type ParentRun } from './subtasks.js';
import type { RunExtras } from './task-run.types.js';

/** How long a parent whose work returned waits for its leftover subtasks' ends to be recorded. */
const SETTLE_LINKS_MS = 5_000;

/** What the family needs of its run. */
export interface FamilyHost extends ParentRun {
  context(): TaskContext;
  status(): TaskStatus;
  readonly extras: RunExtras | undefined;
  /** What the task's requester can be asked: its subtasks, asking the same requester, inherit it. */
  readonly requesterCapabilities: readonly string[] | undefined;
  readonly now: () => number;
  /** A move of the work (an intermediate result), as the run makes its own. */
  move(event: TaskEvent): void;
  /** The work waits (for its subtasks): it holds no worker slot meanwhile. */
  waiting(): void;
  /** The work goes on: resolves when it holds a worker slot again. */
  resuming(): Promise<void>;
}

/**
 * A run's subtasks and intermediate results.
 *
 * @example
 * ```ts
 * const child = await run.family.spawnTask('tools/call:sleep', { ms: 10 });
 * await run.family.waitForSubtasks([child], 'all');
 * ```
 */
export class RunFamily {
  readonly #host: FamilyHost;
  #links: SubtaskLink[] = [];
  /** Intermediate results kept so far, counted here (the actor may hear of them later, on NATS). */
  #partials: { count: number; bytes: number } | null = null;

  constructor(host: FamilyHost) {
    this.#host = host;
  }

  /** Starts a subtask (see `TaskHandlerContext.spawnTask`). */
  async spawnTask(handler: string, params: unknown, o: SpawnOptions = {}): Promise<Subtask> {
    const host = this.#host;
    const port = host.extras?.subtasks;
    if (port === undefined) throw new InvalidArgumentError('Subtasks cannot be started here: this run has no runtime to create them in');
    const c = host.context();
    if (host.over) throw new TaskTerminalError(c.taskId, host.status());
    const child = await port.create({
      taskId: randomUUID(),
      owner: c.owner,
      dialect: c.dialect,
      method: o.method ?? 'tools/call',
      label: o.label !== undefined ? o.label : handler.slice(handler.indexOf(':') + 1),
      keepAlive: o.keepAlive !== undefined ? o.keepAlive : c.keepAlive,
      pollFrequency: c.pollFrequency,
      handler,
      params,
      parentId: c.taskId,
      ...(host.requesterCapabilities && { requesterCapabilities: host.requesterCapabilities }),
    });
    const link = new SubtaskLink(port, host, child.taskId, child.status);
    this.#links.push(link);
    // Ended while the child was being created: the child does not outlive it.
    if (host.over) void link.cancel('Its parent task ended').catch(() => undefined);
    return link;
  }

  /** Waits for subtasks (see `TaskHandlerContext.waitForSubtasks`), holding no worker slot meanwhile. */
  async waitForSubtasks(subtasks: readonly Subtask[], mode: 'all' | 'any' | 'first-error' = 'all'): Promise<TaskOutcome[]> {
    if (subtasks.length === 0) return [];
    this.#host.waiting();
    try {
      if (mode === 'any') return [await Promise.race(subtasks.map((s) => s.outcome()))];
      if (mode === 'all') return await Promise.all(subtasks.map((s) => s.outcome()));
      return await Promise.all(
        subtasks.map(async (s) => {
          const outcome = await s.outcome();
          if (outcome.task.status !== 'completed') throw new SubtaskFailedError(s.taskId, outcome.task.status, outcome.task.error ?? outcome.task.statusMessage);
          return outcome;
        }),
      );
    } finally {
      if (!this.#host.over) await this.#host.resuming();
    }
  }

  /** Publishes an intermediate result (see `TaskHandlerContext.partial`). */
  async partial(content: unknown): Promise<boolean> {
    const host = this.#host;
    if (host.over) return false;
    let json: string | undefined;
    try {
      json = JSON.stringify(content ?? null);
    } catch (error) {
      throw new InvalidArgumentError(`A partial result must be JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A function or a symbol stringifies to nothing.
    if (json === undefined) throw new InvalidArgumentError(`A partial result must be JSON, not a ${typeof content}`);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (this.#partials === null) {
      const kept = host.context().partials ?? [];
      this.#partials = { count: kept.length, bytes: kept.reduce((n, p) => n + Buffer.byteLength(JSON.stringify(p.content ?? null), 'utf8'), 0) };
    }
    const counted = this.#partials;
    const bounds = host.extras?.partials;
    if (bounds !== undefined && (counted.count + 1 > bounds.maxCount || counted.bytes + bytes > bounds.maxBytes)) return false;
    counted.count++;
    counted.bytes += bytes;
    host.move(taskEvents.partial(JSON.parse(json) as unknown, host.now()));
    return true;
  }

  /**
   * The work returned: subtasks still running are cancelled, and every child's end recorded
   * (waiting a little), before the task ends: an ended task's record of its children never
   * changes again.
   */
  async settle(): Promise<void> {
    if (this.#links.length === 0) return;
    // Every child's end, the leftovers' included, is written before the parent's: a report that
    // came after the parent ended would be refused (a child that ended just now, on NATS).
    const recorded = Promise.all(this.#links.map((l) => (l.ended ? l.recorded() : l.cancel('Its parent task ended').then(() => l.recorded(), () => undefined))));
    await Promise.race([recorded, new Promise((resolve) => setTimeout(resolve, SETTLE_LINKS_MS).unref())]);
  }

  /** The task ended: no subtask outlives it. */
  cancelAll(): void {
    for (const link of this.#links) if (!link.ended) void link.cancel('Its parent task ended').catch(() => undefined);
  }
}
