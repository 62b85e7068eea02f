/**
 * Large values of a task kept beside its record rather than in it. A record is one KV message and
 * rides whole in the events every node follows, so it must stay well under the server's
 * `max_payload` (1 MiB by default): a task's params, the params of an input request and an
 * answer can each be megabytes (the memory backend keeps any size up to the runtime's limits). A
 * value whose JSON is over {@link STOW_BYTES} is written (in chunks) to the results bucket under
 * `<taskKey>.s.<part>.<random>` and the record keeps only a reference; the task's removal purges
 * everything under `<taskKey>.`, so a stowed value goes with its task.
 *
 * The random suffix keeps each write apart: a create refused as a duplicate id, or a second
 * answer to the same question, never overwrites what the live task refers to.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { hashToken } from './keys.js';
import { getChunked, putChunked } from './result-chunks.js';

/** Values whose JSON is larger than this many bytes are stowed: a record with a few of them stays small. */
export const STOW_BYTES = 64 * 1024;

/** Where a stowed value is, and its size (for operators). */
export interface Stowed {
  /** The results bucket key, under the task's key. */
  readonly at: string;
  readonly bytes: number;
}

/** A value as a record keeps it: in place, or stowed beside it. */
export type Kept = { readonly value: unknown; readonly stowed?: undefined } | { readonly value?: undefined; readonly stowed: Stowed };

/**
 * Keeps `value` in place when small, else stows it.
 *
 * @param part - what it is, for the key (`params`, `ask:<inputId>`, `answer:<inputId>`)
 * @example
 * ```ts
 * const params = await stow(results, key, 'params', work.params);
 * ```
 */
export async function stow(results: KV, key: string, part: string, value: unknown): Promise<Kept> {
  const json = JSON.stringify(value ?? null);
  // Characters are 1 to 3 bytes: the byte count is taken only when it could matter.
  if (json.length <= STOW_BYTES / 3) return { value };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= STOW_BYTES) return { value };
  const at = `${key}.s.${hashToken(part).slice(0, 16)}.${randomUUID()}`;
  await putChunked(results, at, json);
  return { stowed: { at, bytes } };
}

/**
 * The value a {@link Kept} holds, read from the results bucket when stowed.
 *
 * @throws Error when a stowed value is gone (its task was removed meanwhile)
 * @example
 * ```ts
 * const params = await unstow(results, record.work.params);
 * ```
 */
export async function unstow(results: KV, kept: Kept): Promise<unknown> {
  if (kept.stowed === undefined) return kept.value;
  const json = await getChunked(results, kept.stowed.at);
  if (json === null) throw new Error(`A stowed value of ${kept.stowed.bytes} bytes is gone (${kept.stowed.at}): its task was removed`);
  return JSON.parse(json) as unknown;
}
