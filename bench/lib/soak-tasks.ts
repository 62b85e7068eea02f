/**
 * What the soak's tasks ask for and what each must give back. Every task's result is known in
 * advance and most carry a payload unique to the task, so a result handed to the wrong task, or
 * altered on the way through the store, is caught, not just a missing one.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';

/** The two task dialects the requesters speak. */
export type SoakDialect = '2025-11-25' | 'sep-1686';

/** One task to create: the request, and what it must end as. */
export interface SoakTask {
  /** A readable name for failure messages, e.g. `r7/42 prompts/get greeting`. */
  readonly label: string;
  readonly method: 'tools/call' | 'prompts/get';
  /** The request's params, without the task request (the dialect adds it). */
  readonly params: Record<string, unknown>;
  /** The result, less its `_meta`, exactly as the handler produces it. */
  readonly expected: Record<string, unknown>;
  /** The terminal status the task must reach, as the dialect shows it. */
  readonly status: 'completed' | 'failed';
}

/**
 * The task `index` of requester `requester`. Three kinds in turn, covering both kinds of request
 * and a tool-level error:
 * - `sleep {ms}` with a small, varying ms (a handler that really waits; result `slept <ms> ms`);
 * - `fail {message}` with a unique message (`isError: true`, which ends `failed` in 2025-11-25
 *   and `completed` in SEP-1686, its result retrievable either way);
 * - the prompt `greeting {name}` with a unique name (about 50 ms of work).
 *
 * @param nonce - unique per run, so a task never matches a result left over from another run
 * @param kinds - how many of the kinds to cycle through (2: the two tools only, for the chaos run)
 * @example
 * ```ts
 * const task = soakTask(3, 0, 'sep-1686', 'k2x9'); // sleep
 * ```
 */
export function soakTask(requester: number, index: number, dialect: SoakDialect, nonce: string, kinds: 2 | 3 = 3): SoakTask {
  const tag = `r${requester}/${index}`;
  const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
  switch (index % kinds) {
    case 0: {
      const ms = 5 + ((requester * 31 + index * 7) % 60);
      return { label: `${tag} sleep`, method: 'tools/call', params: { name: 'sleep', arguments: { ms } }, expected: text(`slept ${ms} ms`), status: 'completed' };
    }
    case 1: {
      const message = `soak ${nonce} ${tag}: a tool-level error, on purpose`;
      return {
        label: `${tag} fail`,
        method: 'tools/call',
        params: { name: 'fail', arguments: { message } },
        expected: { ...text(message), isError: true },
        status: dialect === 'sep-1686' ? 'completed' : 'failed',
      };
    }
    default: {
      const name = `soak-${nonce}-${tag}`;
      return {
        label: `${tag} prompts/get greeting`,
        method: 'prompts/get',
        params: { name: 'greeting', arguments: { name } },
        expected: { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] },
        status: 'completed',
      };
    }
  }
}

/** The `_meta` key that ties a result to its task, per dialect. */
const RELATED_KEY: Record<SoakDialect, string> = { 'sep-1686': 'modelcontextprotocol.io/related-task', '2025-11-25': 'io.modelcontextprotocol/related-task' };

/**
 * Why `result` is not what task `taskId` must return, or `null` when it is exactly that: the
 * expected result, plus the dialect's related-task key naming this task in `_meta` and nothing
 * else there.
 *
 * @example
 * ```ts
 * const wrong = checkResult(task, 'sep-1686', taskId, reply.result);
 * if (wrong) failures.push(wrong);
 * ```
 */
export function checkResult(task: SoakTask, dialect: SoakDialect, taskId: string, result: Record<string, unknown>): string | null {
  const { _meta: meta, ...rest } = result;
  const related = RELATED_KEY[dialect];
  if (!isDeepStrictEqual(meta, { [related]: { taskId } })) {
    return `${task.label} (${taskId}): _meta is ${JSON.stringify(meta)}, expected only ${related} naming this task`;
  }
  if (!isDeepStrictEqual(rest, task.expected)) {
    return `${task.label} (${taskId}): result ${JSON.stringify(rest).slice(0, 300)} is not the expected ${JSON.stringify(task.expected).slice(0, 300)}`;
  }
  return null;
}
