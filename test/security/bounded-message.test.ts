/**
 * A status or error message is cut to 16 Ki characters so that a task keeps no more of it (issue
 * 31, item 3: memory one client can pin). A cut made with `slice` kept the whole original alive
 * behind the 16 KiB shown (V8's sliced strings point into their parent): a handler's 5 MB error
 * pinned 5 MB for the task's keepAlive while the retention budget counted 16 KiB. The cut is a
 * copy; the heap kept per message is measured after full collections.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { boundedMessage, MAX_MESSAGE_CHARS, taskEvents } from '../../machines/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Heap bytes kept per message when `keep` is applied to 20 fresh 2 MB messages. */
function keptPerMessage(keep: (message: string) => unknown): number {
  const kept: unknown[] = [];
  const before = heapAfterGc();
  for (let i = 0; i < 20; i++) kept.push(keep(`${i}:`.padEnd(2_000_000, String.fromCharCode(97 + i))));
  const per = (heapAfterGc() - before) / kept.length;
  expect(kept).toHaveLength(20);
  return per;
}

describe('boundedMessage', () => {
  it('should keep only what it shows of a long message, not the whole original', () => {
    expect(boundedMessage('x'.repeat(MAX_MESSAGE_CHARS + 10))).toHaveLength(MAX_MESSAGE_CHARS + '… (10 more characters)'.length);
    // 2 MB each without the copy; the 16 KiB cut (and heap noise) with it.
    expect(keptPerMessage(boundedMessage)).toBeLessThan(256 * 1024);
    expect(keptPerMessage((m) => taskEvents.fail(m, 0))).toBeLessThan(256 * 1024);
    expect(keptPerMessage((m) => taskEvents.message(m, 0))).toBeLessThan(256 * 1024);
  });
});
