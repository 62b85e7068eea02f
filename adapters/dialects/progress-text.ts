/**
 * Progress as text: one format wherever a task's progress is written for people or carried in a
 * status message (the 2026-07-28 wire has no progress notifications), and its reading back.
 *
 * @module
 */
import type { TaskProgress } from '../../machines/index.js';

/** Between the numbers and the message. */
const DASH = ' — ';

/**
 * A progress report as text: `4/10 — step 4/10`, `4/10` without a message, `4 — step 4` without a
 * total.
 *
 * @param progress - the report (its `message` is used unless `message` is given)
 * @param message - the message to show instead (a task's status message, the latest of the two)
 * @example
 * ```ts
 * progressText({ progress: 4, total: 10 }, 'step 4/10'); // '4/10 — step 4/10'
 * ```
 */
export function progressText(progress: TaskProgress, message: string | null = progress.message ?? null): string {
  const numbers = progress.total === undefined ? String(progress.progress) : `${progress.progress}/${progress.total}`;
  return message === null || message === '' ? numbers : `${numbers}${DASH}${message}`;
}

const NUMBER = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?`;
const TEXT = new RegExp(`^(${NUMBER})(?:/(${NUMBER}))?(?:${DASH}([\\s\\S]*))?$`);

/**
 * The progress a status message written by {@link progressText} carries; `null` for any other
 * text (a server that does not write it so), and for bare numbers (`4`: too common a message to
 * be read as progress).
 *
 * @example
 * ```ts
 * progressOfText('4/10 — step 4/10'); // { progress: 4, total: 10, message: 'step 4/10' }
 * ```
 */
export function progressOfText(text: string | null | undefined): TaskProgress | null {
  const match = typeof text === 'string' ? TEXT.exec(text) : null;
  // Bare numbers are too common a status message to be read as progress: a total or a message must come with them.
  if (match === null || (match[2] === undefined && match[3] === undefined)) return null;
  const progress = Number(match[1]);
  const total = match[2] === undefined ? undefined : Number(match[2]);
  if (!Number.isFinite(progress) || (total !== undefined && !Number.isFinite(total))) return null;
  return { progress, ...(total !== undefined && { total }), ...(match[3] !== undefined && { message: match[3] }) };
}
