/**
 * The updates of one call (`TaskCall.updates()`): a feed every iterator reads from, and the reader
 * of what rides on the requester's own `tasks/get` answers: partial results after a cursor, and
 * the subtasks of a parent (this project's `_meta` extension keys; other servers send neither).
 *
 * @module
 */
import { TaskStatus } from '../../machines/index.js';
import { PARTIAL_META, SUBTASKS_META } from '../dialects/extension-meta.js';
import type { TaskUpdate } from './task-call.types.js';
import type { RequesterPeer } from './task-client.wire.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const STATUSES: ReadonlySet<string> = new Set(Object.values(TaskStatus));

/** Updates kept for an iterator that reads slower than they come, at most (oldest dropped first). */
const BUFFERED = 1_000;

/**
 * A fan-out of one call's updates: each `iterate()` sees every update since the call began (the
 * last {@link BUFFERED} of them), then each new one, and ends when the feed ends.
 *
 * @example
 * ```ts
 * const feed = new UpdateFeed();
 * feed.push({ type: 'progress', progress: 1 });
 * for await (const update of feed.iterate()) console.log(update);
 * ```
 */
export class UpdateFeed {
  readonly #readers = new Set<{ queue: TaskUpdate[]; wake: (() => void) | null }>();
  /** What came so far, for an iterator that starts late (after the first poll, or the end). */
  readonly #history: TaskUpdate[] = [];
  #ended = false;

  /** Hands `update` to every reader. Ignored once ended. */
  push(update: TaskUpdate): void {
    if (this.#ended) return;
    if (this.#history.length >= BUFFERED) this.#history.shift();
    this.#history.push(update);
    for (const reader of this.#readers) {
      if (reader.queue.length >= BUFFERED) reader.queue.shift();
      reader.queue.push(update);
      reader.wake?.();
    }
  }

  /** Ends every iterator once it has read what is queued. */
  end(): void {
    this.#ended = true;
    for (const reader of this.#readers) reader.wake?.();
  }

  /** An iterator of the updates so far and from now on. */
  iterate(): AsyncIterableIterator<TaskUpdate> {
    const reader: { queue: TaskUpdate[]; wake: (() => void) | null } = { queue: [...this.#history], wake: null };
    this.#readers.add(reader);
    const done = (): IteratorResult<TaskUpdate> => (this.#readers.delete(reader), { done: true, value: undefined });
    const iterator: AsyncIterableIterator<TaskUpdate> = {
      next: async () => {
        for (;;) {
          const update = reader.queue.shift();
          if (update !== undefined) return { done: false, value: update };
          if (this.#ended) return done();
          await new Promise<void>((resolve) => (reader.wake = resolve));
          reader.wake = null;
        }
      },
      return: async () => done(),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }
}

/**
 * Reads partial results and subtasks off one task's `tasks/get` answers: each read asks for the
 * partial results after the cursor the previous answer gave, and each new partial (by sequence)
 * and each subtask status change is pushed once, even when two reads in flight answer the same.
 *
 * @example
 * ```ts
 * const reader = new TaskMetaReader(feed);
 * const peer = reader.wrap(client); // give `peer` to the task wire
 * ```
 */
export class TaskMetaReader {
  readonly #push: (update: TaskUpdate) => void;
  #cursor: string | null = null;
  #seq = 0;
  readonly #children = new Map<string, string>();

  constructor(push: (update: TaskUpdate) => void) {
    this.#push = push;
  }

  /** `peer` whose `tasks/get` asks for partial results after the cursor and reports what it read. */
  wrap(peer: RequesterPeer): RequesterPeer {
    return {
      request: async (request, schema, options) => {
        if (request.method !== 'tasks/get') return peer.request(request, schema, options);
        const answer = await peer.request({ method: 'tasks/get', params: this.#ask(request.params ?? {}) }, schema, options);
        this.read(answer);
        return answer;
      },
    };
  }

  /** Pushes what is new in one `tasks/get` answer. */
  read(answer: unknown): void {
    const meta = isRecord(answer) && isRecord(answer['_meta']) ? answer['_meta'] : {};
    const partial = meta[PARTIAL_META];
    if (isRecord(partial)) {
      for (const item of Array.isArray(partial['items']) ? partial['items'] : []) {
        if (!isRecord(item) || typeof item['seq'] !== 'number' || item['seq'] <= this.#seq) continue;
        this.#seq = item['seq'];
        this.#push({ type: 'partial', seq: item['seq'], content: item['content'] });
      }
      if (typeof partial['nextCursor'] === 'string') this.#cursor = partial['nextCursor'];
    }
    const subtasks = meta[SUBTASKS_META];
    if (!isRecord(subtasks) || !Array.isArray(subtasks['tasks'])) return;
    for (const child of subtasks['tasks']) {
      if (!isRecord(child) || typeof child['taskId'] !== 'string' || typeof child['status'] !== 'string' || !STATUSES.has(child['status'])) continue;
      if (this.#children.get(child['taskId']) === child['status']) continue;
      this.#children.set(child['taskId'], child['status']);
      this.#push({ type: 'subtask', taskId: child['taskId'], status: child['status'] as TaskStatus });
    }
  }

  #ask(params: Json): Json {
    const meta = isRecord(params['_meta']) ? params['_meta'] : {};
    return { ...params, _meta: { ...meta, [PARTIAL_META]: this.#cursor === null ? {} : { cursor: this.#cursor } } };
  }
}

/**
 * One line of a partial result: the text of its text blocks, anything else as JSON.
 *
 * @param content - what the work published (usually MCP content blocks)
 * @example
 * ```ts
 * partialText([{ type: 'text', text: 'step 3/10 done' }]); // 'step 3/10 done'
 * ```
 */
export function partialText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => (isRecord(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : JSON.stringify(b))).join(' ');
}
