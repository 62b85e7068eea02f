/**
 * Opaque list cursors. A cursor names the creation sequence of the last task of the previous page;
 * it is base64url so requesters treat it as opaque (SEP-1686 §4.9.3), and it is checked on the way
 * in so that a forged or corrupted one is refused with a clear error instead of a silent empty page.
 *
 * @module
 */
import { InvalidCursorError } from './errors.js';

const PREFIX = 'mta1:';

/**
 * Encodes a creation sequence as a cursor.
 *
 * @example
 * ```ts
 * decodeCursor(encodeCursor(42), 100); // 42
 * ```
 */
export function encodeCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor issued by {@link encodeCursor}.
 *
 * @param cursor - what the requester sent
 * @param maxSeq - the highest sequence issued so far; a cursor beyond it was never issued
 * @throws InvalidCursorError when the cursor is not a string this runtime could have issued
 * @example
 * ```ts
 * decodeCursor('bogus', 10); // throws InvalidCursorError
 * ```
 */
export function decodeCursor(cursor: unknown, maxSeq: number): number {
  if (typeof cursor !== 'string') throw new InvalidCursorError(`expected a string, got ${typeof cursor}`);
  if (cursor.length === 0 || cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new InvalidCursorError(`'${cursor.slice(0, 64)}' was not issued by this server`);
  }
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^mta1:(\d{1,15})$/.exec(text);
  const seq = match ? Number(match[1]) : NaN;
  if (!Number.isSafeInteger(seq) || seq > maxSeq) {
    throw new InvalidCursorError(`'${cursor}' was not issued by this server`);
  }
  return seq;
}
