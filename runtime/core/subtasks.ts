/**
 * Subtasks (SEP-1686 "Future Work": nested task execution). A handler starts a subtask with
 * `ctx.spawnTask`: a task of the same requester, created through the runtime like any other (so
 * limits count it, any worker may run it, `tasks/list` lists it). Its parent's run keeps a
 * {@link SubtaskLink} to it, on the parent's node, which
 *
 * - records the child's status in the parent's context (`task.child` events), so that the
 *   parent's readers see its children and their counts;
 * - surfaces the child's input requests as the parent's own (the parent is `input_required` with
 *   the child's request), forwarding an answer given through the parent to the child, and
 *   withdrawing the parent's copy once the child was answered directly (or ended);
 * - cancels the child when the parent ends first.
 *
 * The cancel of a whole subtree by a requester is the core's (`cancel` cascades through the
 * children a parent recorded), so it holds even when the parent's worker is gone.
 *
 * @module
 */
import type { TaskOwner, TaskStatus } from '../../machines/index.js';
import { isTerminalStatus } from '../../machines/index.js';
import type { CreateTaskOptions, InputAnswer, InputRequest, Subtask, TaskChange, TaskOutcome, TaskSelector, TaskView } from '../task-runtime.types.js';

/** `_meta` key added to a child's input request as its parent shows it: `{ taskId, inputId }` of the child's own. */
export const SUBTASK_INPUT_META = 'io.github.mcp-task-actors/subtaskInput';

/** What a parent's run needs of the runtime to keep subtasks (the core makes one per runtime). */
export interface SubtaskPort {
  create(o: CreateTaskOptions): Promise<TaskView>;
  /** The child's outcome once it ended (the server's own wait: not a poll). */
  waitForOutcome(taskId: string, owner: TaskOwner): Promise<TaskOutcome>;
  /** Cancels a task and its own subtasks; nothing when it ended or is gone. */
  cancel(taskId: string, owner: TaskOwner, reason: string): Promise<void>;
  /** Records a child's status in its parent's context. */
  report(parentId: string, owner: TaskOwner, childId: string, status: TaskStatus): Promise<void>;
  pending(taskId: string, owner: TaskOwner): Promise<InputRequest[]>;
  /** The task as it is now (the server's own read: not a poll). */
  read(taskId: string, owner: TaskOwner): Promise<TaskView>;
  onInputRequest(listener: (request: InputRequest) => void, only: TaskSelector): () => void;
  subscribe(listener: (change: TaskChange) => void, only: TaskSelector): () => void;
  /** Answers a pending input request; `false` when it was not pending. */
  answer(taskId: string, owner: TaskOwner, inputId: string, answer: InputAnswer): Promise<boolean>;
}

/** What a link needs of its parent's run. */
export interface ParentRun {
  readonly taskId: string;
  readonly owner: TaskOwner;
  /** True once the parent ended (or its run stopped). */
  readonly over: boolean;
  /** Asks the parent's requester, as the parent: the request's id in the parent, and its answer. */
  ask(method: string, params: unknown): { readonly inputId: string; readonly answered: Promise<unknown> };
}

interface Mirror {
  readonly parentInputId: string;
  settled: boolean;
}

/** The params of a child's request as its parent shows it: the same, naming the child's request in `_meta`. */
function mirroredParams(params: unknown, childId: string, inputId: string): unknown {
  const base = typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  const meta = typeof base['_meta'] === 'object' && base['_meta'] !== null ? (base['_meta'] as Record<string, unknown>) : {};
  return { ...base, _meta: { ...meta, [SUBTASK_INPUT_META]: { taskId: childId, inputId } } };
}

/**
 * A parent's hold on one child (see the module comment).
 *
 * @example
 * ```ts
 * const link = new SubtaskLink(port, parentRun, child.taskId, child.status);
 * const { task } = await link.outcome();
 * ```
 */
export class SubtaskLink implements Subtask {
  readonly taskId: string;
  readonly #port: SubtaskPort;
  readonly #parent: ParentRun;
  readonly #mirrors = new Map<string, Mirror>();
  /** Every child request mirrored so far: a request is mirrored once, however often it is seen. */
  readonly #handled = new Set<string>();
  readonly #outcome: Promise<TaskOutcome>;
  /** Settles once the child's end was recorded in the parent (or could not be). */
  #recorded: Promise<void> = Promise.resolve();
  #reported: TaskStatus;
  /** A change of the child was heard: a read started before it may be older. */
  #heard = false;
  #ended = false;
  #stops: (() => void)[] = [];

  constructor(port: SubtaskPort, parent: ParentRun, childId: string, status: TaskStatus) {
    this.#port = port;
    this.#parent = parent;
    this.taskId = childId;
    this.#reported = status;
    const only = { taskId: childId, owner: parent.owner };
    this.#stops.push(
      port.onInputRequest((request) => this.#mirror(request), only),
      port.subscribe((change) => ((this.#heard = true), this.#changed(change.task)), only),
    );
    // What it did before the listeners were in place (it may run on another worker already):
    // its status now, and the questions it asked.
    void port.read(childId, parent.owner).then((child) => this.#caughtUp(child), () => undefined);
    void port.pending(childId, parent.owner).then((requests) => requests.forEach((r) => this.#mirror(r)), () => undefined);
    this.#outcome = port.waitForOutcome(childId, parent.owner).then(
      (outcome) => (this.#finish(outcome.task.status), outcome),
      (error: unknown) => {
        this.#finish(null);
        throw error;
      },
    );
    // Awaited by whoever asks; a rejection nobody asked for is not an unhandled one.
    this.#outcome.catch(() => undefined);
  }

  /** Whether the child ended. */
  get ended(): boolean {
    return this.#ended;
  }

  outcome(): Promise<TaskOutcome> {
    return this.#outcome;
  }

  /** Resolves once the child ended and its end was recorded in the parent (never rejects). */
  async recorded(): Promise<void> {
    await this.#outcome.catch(() => undefined);
    await this.#recorded;
  }

  async cancel(reason = 'Cancelled by its parent task'): Promise<void> {
    if (!this.#ended) await this.#port.cancel(this.taskId, this.#parent.owner, reason);
  }

  #changed(child: TaskView): void {
    if (isTerminalStatus(child.status)) return;
    if (child.status !== this.#reported) {
      this.#reported = child.status;
      void this.#report(child.status);
    }
    // Answered through the child itself: the parent's copy goes.
    for (const [inputId, mirror] of this.#mirrors) if (!child.pendingInputs.includes(inputId)) this.#withdraw(inputId, mirror);
  }

  /** The child as read once the listeners were in place: its status, unless a change heard since is newer. */
  #caughtUp(child: TaskView): void {
    if (this.#heard || this.#ended || isTerminalStatus(child.status) || child.status === this.#reported) return;
    this.#reported = child.status;
    void this.#report(child.status);
  }

  #mirror(request: InputRequest): void {
    if (this.#ended || this.#parent.over || this.#handled.has(request.inputId)) return;
    this.#handled.add(request.inputId);
    const asked = this.#parent.ask(request.method, mirroredParams(request.params, this.taskId, request.inputId));
    const mirror: Mirror = { parentInputId: asked.inputId, settled: false };
    this.#mirrors.set(request.inputId, mirror);
    const forward = (answer: InputAnswer): void => {
      if (mirror.settled) return;
      mirror.settled = true;
      this.#mirrors.delete(request.inputId);
      // Answered through the child meanwhile: the child keeps the answer it got.
      void this.#port.answer(this.taskId, this.#parent.owner, request.inputId, answer).catch(() => false);
    };
    asked.answered.then(
      (result) => forward({ result }),
      (error: unknown) => {
        // The parent ended: its copy is gone, and the child is cancelled with it.
        if (!this.#parent.over) forward({ error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
  }

  #withdraw(inputId: string, mirror: Mirror): void {
    if (mirror.settled) return;
    mirror.settled = true;
    this.#mirrors.delete(inputId);
    // The parent's copy is answered with nothing: the parent's work never sees it (settled).
    if (!this.#parent.over) void this.#port.answer(this.#parent.taskId, this.#parent.owner, mirror.parentInputId, { result: null }).catch(() => false);
  }

  #report(status: TaskStatus): Promise<void> {
    if (this.#parent.over) return Promise.resolve();
    return this.#port.report(this.#parent.taskId, this.#parent.owner, this.taskId, status).catch(() => undefined);
  }

  #finish(status: TaskStatus | null): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const stop of this.#stops) stop();
    this.#stops = [];
    if (status !== null) this.#recorded = this.#report(status);
    for (const [inputId, mirror] of this.#mirrors) this.#withdraw(inputId, mirror);
  }
}
