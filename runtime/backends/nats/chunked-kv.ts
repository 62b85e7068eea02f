/**
 * Values of any size in a KV bucket whose messages are capped (NATS' `max_payload`, 1 MiB by
 * default): a value whose JSON fits one chunk is stored as is under its key; a larger one is split
 * into chunks under `<key>.c<i>`, written first, and the key then holds a manifest. A manifest
 * starts with a NUL character, which no JSON text does, so the two cannot be confused. A value and
 * its chunks are one subject tree (`<key>` and `<key>.>`), so one purge of each removes them.
 *
 * Used for everything of a task that may be large (its result, the large parts of its record: see
 * `record-payloads.ts`), for large session records, and for large relayed session messages.
 *
 * @module
 */
import type { KV } from '@nats-io/kv';
import type { JetStreamManager } from '@nats-io/jetstream';
import { eraseSubject, type BucketStream } from './erase.js';

/** Bytes of JSON per stored chunk: well under the server's default max payload. */
export const CHUNK_BYTES = 512 * 1024;

const MANIFEST = '\u0000chunks:';

function chunkKey(key: string, i: number): string {
  return `${key}.c${i}`;
}

/**
 * The chunk size for a server whose `max_payload` is `maxPayload` (from the connection's server
 * info): {@link CHUNK_BYTES}, or half the server's cap when an operator set it lower.
 *
 * @example
 * ```ts
 * chunkBytesFor(nc.info?.max_payload); // 524288 on a default server
 * ```
 */
export function chunkBytesFor(maxPayload: number | undefined): number {
  return maxPayload === undefined ? CHUNK_BYTES : Math.max(1024, Math.min(CHUNK_BYTES, Math.floor(maxPayload / 2)));
}

/**
 * Stores a value's JSON under `key`, in chunks when it is large.
 *
 * @param chunkBytes - bytes per chunk (see {@link chunkBytesFor})
 * @example
 * ```ts
 * await putChunked(results, key, JSON.stringify(result));
 * ```
 */
export async function putChunked(kv: KV, key: string, json: string, chunkBytes = CHUNK_BYTES): Promise<void> {
  // Counted in bytes only when the characters alone could be over (each is 1 to 3 bytes).
  if (json.length * 3 <= chunkBytes) {
    await kv.put(key, json);
    return;
  }
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length <= chunkBytes) {
    await kv.put(key, json);
    return;
  }
  const count = Math.ceil(bytes.length / chunkBytes);
  for (let i = 0; i < count; i++) await kv.put(chunkKey(key, i), bytes.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  // Last: a reader that finds the manifest finds every chunk.
  await kv.put(key, `${MANIFEST}${count}`);
}

/**
 * Reads a value's JSON stored by {@link putChunked}, or `null`.
 *
 * @example
 * ```ts
 * const json = await getChunked(results, key);
 * ```
 */
export async function getChunked(kv: KV, key: string): Promise<string | null> {
  const entry = await kv.get(key);
  if (entry === null || entry.operation !== 'PUT') return null;
  const text = entry.string();
  const count = chunkCount(text);
  if (count === 0) return text;
  const parts: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const part = await kv.get(chunkKey(key, i));
    if (part === null || part.operation !== 'PUT') return null;
    parts.push(part.value);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Removes a value stored by {@link putChunked} and its chunks, leaving nothing of them in the
 * bucket's stream (up to, not including, sequence `before` when given).
 *
 * @example
 * ```ts
 * await eraseChunked(jsm, bucketStream('tasks_relay'), id);
 * ```
 */
export async function eraseChunked(jsm: JetStreamManager, bucket: BucketStream, key: string, before?: number): Promise<void> {
  await Promise.all([eraseSubject(jsm, bucket.stream, bucket.subject(key), before), eraseSubject(jsm, bucket.stream, bucket.subject(`${key}.>`), before)]);
}

function chunkCount(text: string): number {
  return text.startsWith(MANIFEST) ? Number(text.slice(MANIFEST.length)) : 0;
}
