/**
 * What `mcp-tasks call` prints of a running task beyond its status: each new partial result
 * (`partial <seq>: <text>`) and each subtask whose status changed (`subtask <id>: <status>`).
 * Both are read from the `_meta` of the task client's own `tasks/get` answers (the requester
 * machine polls; this rides along): each `tasks/get` asks for the partial results after the
 * cursor the previous answer gave; a parent's answer names its subtasks with their statuses.
 *
 * @module
 */
import { z } from 'zod';
import { TaskStatus } from '../../machines/index.js';
import { PARTIAL_META, SUBTASKS_META } from '../dialects/extension-meta.js';
import { relatedMeta } from '../dialects/sep-1686/index.js';
import type { RequesterPeer } from '../wire/task-client.wire.js';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const STATUSES: ReadonlySet<string> = new Set(Object.values(TaskStatus));
/** Any JSON object, kept whole (`_meta` included): the answers are read here, not checked. */
const ANY_RESULT = z.looseObject({});

/**
 * One line of a partial result: the text of its text blocks, anything else as JSON.
 *
 * @param content - what the work published (usually MCP content blocks)
 * @example
 * ```ts
 * partialLine([{ type: 'text', text: 'step 3/10 done' }]); // 'step 3/10 done'
 * ```
 */
export function partialLine(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => (isRecord(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : JSON.stringify(b))).join(' ');
}

/**
 * Follows one task's partial results and subtasks through the `tasks/get` answers of a
 * {@link RequesterPeer}, and writes a line for each new one.
 *
 * @example
 * ```ts
 * const progress = new TaskProgress(client, dialect, (line) => process.stdout.write(`${line}\n`));
 * const tasks = new TaskClientCore(progress.peer, { dialect }, () => CreatedRouter.for(client));
 * // … once the task ended:
 * await progress.flush(taskId);
 * ```
 */
export class TaskProgress {
  /** The peer to give the task client: the client's requests, `tasks/get` asking for partial results. */
  readonly peer: RequesterPeer;
  readonly #dialect: string;
  readonly #write: (line: string) => void;
  /** The `nextCursor` of the last answer; `null` before the first. */
  #cursor: string | null = null;
  /**
   * The last partial result printed: two reads in flight at once (a poll, and the read after the
   * end) ask from the same cursor and get the same items; each is printed once.
   */
  #printed = 0;
  readonly #children = new Map<string, TaskStatus>();

  /**
   * @param client - the connected client (SDK v1 `Client`)
   * @param dialect - the dialect the task was created in (a subtask's `tasks/get` takes the same params)
   * @param write - prints one line
   */
  constructor(client: RequesterPeer, dialect: string, write: (line: string) => void) {
    this.#dialect = dialect;
    this.#write = write;
    this.peer = {
      request: async (request, schema, options) => {
        if (request.method !== 'tasks/get') return client.request(request, schema, options);
        const answer = await client.request({ method: 'tasks/get', params: this.#ask(request.params ?? {}) }, schema, options);
        await this.#read(answer);
        return answer;
      },
    };
  }

  /**
   * Reads the task once more, for what came after the last poll: a task may end between two polls
   * (and a SEP-1686 result arrives without one). Never throws: the task may be gone already.
   *
   * @param taskId - the followed task
   */
  async flush(taskId: string): Promise<void> {
    try {
      await this.peer.request({ method: 'tasks/get', params: this.#params(taskId) }, ANY_RESULT);
    } catch {
      // Best effort: what was printed stands.
    }
  }

  #ask(params: Json): Json {
    const meta = isRecord(params['_meta']) ? params['_meta'] : {};
    return { ...params, _meta: { ...meta, [PARTIAL_META]: this.#cursor === null ? {} : { cursor: this.#cursor } } };
  }

  async #read(answer: unknown): Promise<void> {
    const meta = isRecord(answer) && isRecord(answer['_meta']) ? answer['_meta'] : {};
    const partial = meta[PARTIAL_META];
    if (isRecord(partial)) {
      const items = Array.isArray(partial['items']) ? partial['items'] : [];
      for (const item of items) {
        if (!isRecord(item) || typeof item['seq'] !== 'number' || item['seq'] <= this.#printed) continue;
        this.#printed = item['seq'];
        this.#write(`partial ${String(item['seq'])}: ${partialLine(item['content'])}`);
      }
      if (typeof partial['nextCursor'] === 'string') this.#cursor = partial['nextCursor'];
    }
    const subtasks = meta[SUBTASKS_META];
    if (!isRecord(subtasks) || !Array.isArray(subtasks['tasks'])) return;
    for (const child of subtasks['tasks']) {
      if (!isRecord(child) || typeof child['taskId'] !== 'string' || typeof child['status'] !== 'string' || !STATUSES.has(child['status'])) continue;
      const status = child['status'] as TaskStatus;
      if (this.#children.get(child['taskId']) === status) continue;
      this.#children.set(child['taskId'], status);
      this.#write(`subtask ${child['taskId']}: ${status}`);
    }
  }

  // SEP-1686 §4.7 wants the related-task key on every task message; 2025-11-25 says not to add it.
  #params(taskId: string): Json {
    return this.#dialect === 'sep-1686' ? { taskId, _meta: relatedMeta(taskId) } : { taskId };
  }
}
