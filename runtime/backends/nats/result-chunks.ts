/**
 * Results of any size in a KV bucket whose messages are capped (NATS' max payload, 1 MiB by
 * default): a result whose JSON fits one chunk is stored as is under the task's key; a larger one
 * is split into chunks under `<key>.c<i>`, written first, and the task's key then holds a manifest.
 * A manifest starts with a NUL character, which no JSON text does, so the two cannot be confused.
 *
 * @module
 */
import type { KV } from '@nats-io/kv';

/** Bytes of JSON per stored chunk: well under the server's default max payload. */
export const CHUNK_BYTES = 512 * 1024;

const MANIFEST = '\u0000chunks:';

function chunkKey(key: string, i: number): string {
  return `${key}.c${i}`;
}

/**
 * Stores a result's JSON under `key`, in chunks when it is large.
 *
 * @example
 * ```ts
 * await putChunked(results, key, JSON.stringify(result));
 * ```
 */
export async function putChunked(kv: KV, key: string, json: string): Promise<void> {
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length <= CHUNK_BYTES) {
    await kv.put(key, json);
    return;
  }
  const count = Math.ceil(bytes.length / CHUNK_BYTES);
  for (let i = 0; i < count; i++) await kv.put(chunkKey(key, i), bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
  // Last: a reader that finds the manifest finds every chunk.
  await kv.put(key, `${MANIFEST}${count}`);
}

/**
 * Reads a result's JSON stored by {@link putChunked}, or `null`.
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

function chunkCount(text: string): number {
  return text.startsWith(MANIFEST) ? Number(text.slice(MANIFEST.length)) : 0;
}
