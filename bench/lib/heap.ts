/**
 * The heap in use once collected, for the benchmarks that count bytes.
 *
 * @module
 */
import { setImmediate as turn } from 'node:timers/promises';

/**
 * Heap in use after full collections, with a turn after each so weak callbacks run too. Two, not
 * more: a third never moved the figure, and one full gc over 100k live actors takes seconds.
 *
 * @param benchmark - its name, for the error when the process runs without `--expose-gc`
 * @example
 * ```ts
 * const before = await settledHeap('memory');
 * ```
 */
export async function settledHeap(benchmark: string): Promise<number> {
  const gc = globalThis.gc;
  if (!gc) throw new Error(`The ${benchmark} benchmark needs --expose-gc: run it with \`npm run bench\` (or \`node --expose-gc dist-bench/bench/run.js\`).`);
  for (let i = 0; i < 2; i++) {
    gc();
    await turn();
  }
  return process.memoryUsage().heapUsed;
}
