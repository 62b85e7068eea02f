/**
 * What every benchmark returns and how the runner prints it: one markdown table per benchmark,
 * our figure beside the baseline's from the same process run, and their ratio.
 *
 * @module
 */

/** One measured line: our figure, the baseline's, and which way is better. */
export interface BenchRow {
  /** What was measured, e.g. "sequential task calls (sep-1686)". */
  readonly name: string;
  readonly ours: number;
  /** The baseline's figure; `null` when this line has no baseline (a limit, a target only). */
  readonly baseline: number | null;
  /** What the numbers count, e.g. "calls/s", "ms", "bytes". */
  readonly unit: string;
  /** `true` when a larger figure is better (throughput), `false` when smaller is (latency, bytes). */
  readonly higherIsBetter: boolean;
  /** The target from the issue, as text, if any (e.g. "≥ 3× the SDK"). */
  readonly target?: string;
  /** Whether the target is met, when there is one. */
  readonly met?: boolean;
}

/** One benchmark's table. */
export interface BenchTable {
  readonly title: string;
  /** Name of the baseline column, e.g. "SDK 1.x tasks". */
  readonly baselineName: string;
  /** How it was run (sizes, repetitions), printed under the table. */
  readonly method: string;
  readonly rows: readonly BenchRow[];
}

/** Options every benchmark takes. */
export interface BenchOptions {
  /** A short run (all of `npm run bench -- --quick` in under 60 s). */
  readonly quick: boolean;
}

/** A benchmark module's entry point. */
export type Benchmark = (options: BenchOptions) => Promise<BenchTable[]>;

function format(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 100) return Math.round(n).toLocaleString('en-US');
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/**
 * Our figure divided by the baseline's, shown so that "2.0×" always reads "ours is twice as big".
 *
 * @example
 * ```ts
 * ratioText({ ours: 300, baseline: 100 }); // '3.00×'
 * ```
 */
export function ratioText(row: Pick<BenchRow, 'ours' | 'baseline'>): string {
  if (row.baseline === null || row.baseline === 0) return '—';
  return `${(row.ours / row.baseline).toFixed(2)}×`;
}

/**
 * Renders one table as markdown.
 *
 * @example
 * ```ts
 * console.log(renderTable(table));
 * ```
 */
export function renderTable(table: BenchTable): string {
  const lines = [
    `### ${table.title}`,
    '',
    `| measure | ours | ${table.baselineName} | ours / baseline | target |`,
    '|---|---:|---:|---:|---|',
    ...table.rows.map((r) => {
      const target = r.target === undefined ? '' : `${r.target} ${r.met === undefined ? '' : r.met ? '✅' : '❌'}`;
      return `| ${r.name} | ${format(r.ours)} ${r.unit} | ${r.baseline === null ? '—' : `${format(r.baseline)} ${r.unit}`} | ${ratioText(r)} | ${target.trim()} |`;
    }),
    '',
    `_${table.method}_`,
    '',
  ];
  return lines.join('\n');
}

/**
 * The median of some numbers.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * The p-th percentile (nearest rank) of some numbers.
 *
 * @example
 * ```ts
 * percentile([1, 2, 3, 4], 99); // 4
 * ```
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/**
 * Runs `ours` and `baseline` alternately `rounds` times (so drift on a shared machine hits both)
 * and returns the median of each.
 *
 * @example
 * ```ts
 * const { ours, baseline } = await alternate(5, () => measureOurs(), () => measureSdk());
 * ```
 */
export async function alternate(rounds: number, ours: () => Promise<number>, baseline: () => Promise<number>): Promise<{ ours: number; baseline: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await ours());
    b.push(await baseline());
  }
  return { ours: median(a), baseline: median(b) };
}
