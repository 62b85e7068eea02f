/**
 * Deriving NATS-safe names from a task's identity.
 *
 * A task is identified by its owner key (session + auth principal) and its task id, both arbitrary
 * strings chosen by requesters: they may hold dots, spaces, `*`, `>` or any Unicode, none of which
 * may appear in a KV key or a subject token. So both parts are hashed (SHA-256, base64url without
 * padding: 43 characters from `[A-Za-z0-9_-]`), which is always a valid KV key and subject token,
 * has a fixed length whatever the id's length, and cannot collide in practice. base64url of the raw
 * strings would be reversible but unbounded in length; the snapshot itself keeps the readable ids.
 * Keeping the owner as its own token (`<owner>.<task>`) lets a later `tasks/list` filter one
 * owner's keys with `<owner>.>`.
 *
 * @module
 */
import { createHash } from 'node:crypto';

/** A task's identity as the runtime knows it. */
export interface TaskRef {
  /** The owner (session + auth principal) key the runtime derived for the requester. */
  readonly ownerKey: string;
  /** The task id, unique per owner. */
  readonly taskId: string;
}

/**
 * SHA-256 of `text` in base64url (43 characters, no padding).
 *
 * @param text - any string
 * @example
 * ```ts
 * hashToken('a.b c'); // 'Z3…' (43 chars, only [A-Za-z0-9_-])
 * ```
 */
export function hashToken(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/**
 * The key of a task in every NATS structure: `<hash(ownerKey)>.<hash(taskId)>`. Valid as a KV key
 * and as the tail of a subject (two tokens).
 *
 * @param ref - owner key and task id
 * @example
 * ```ts
 * const key = taskKey({ ownerKey: 'session-1', taskId: 'task.42' });
 * await snapshots.get(key);
 * ```
 */
export function taskKey(ref: TaskRef): string {
  return `${ownerToken(ref.ownerKey)}.${hashToken(ref.taskId)}`;
}

const ownerTokens = new Map<string, string>();
const OWNER_TOKENS_KEPT = 10_000;

/**
 * {@link hashToken} of an owner key, kept: owners are few and every request of theirs names them
 * (a SHA-256 per request was about 3 % of a task's CPU). At most 10,000 are kept.
 *
 * @example
 * ```ts
 * ownerToken(ownerKey) === hashToken(ownerKey); // true
 * ```
 */
export function ownerToken(ownerKey: string): string {
  let token = ownerTokens.get(ownerKey);
  if (token === undefined) {
    if (ownerTokens.size >= OWNER_TOKENS_KEPT) ownerTokens.clear();
    token = hashToken(ownerKey);
    ownerTokens.set(ownerKey, token);
  }
  return token;
}

const TASK_KEY = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;

/**
 * True when `key` has the shape {@link taskKey} produces.
 *
 * @param key - a string that should be a task key
 * @example
 * ```ts
 * isTaskKey(taskKey({ ownerKey: 'o', taskId: 't' })); // true
 * isTaskKey('tasks.>'); // false
 * ```
 */
export function isTaskKey(key: string): boolean {
  return TASK_KEY.test(key);
}

/**
 * Turns a configurable prefix into a JetStream stream/bucket name part: dots and other characters
 * a name may not hold become `_`.
 *
 * @param prefix - a subject prefix such as `tasks` or `acme.tasks`
 * @example
 * ```ts
 * nameFromPrefix('acme.tasks'); // 'acme_tasks'
 * ```
 */
export function nameFromPrefix(prefix: string): string {
  return prefix.replace(/[^A-Za-z0-9_-]/g, '_');
}
