/**
 * "Task lifecycle over MCP, embedded": complete task lifecycles (create → completed → result in
 * hand) per second between a real SDK `Client` and a server in the same process, over the SDK's
 * `InMemoryTransport`, for a tool that answers at once. So the figures are the cost of the task
 * machinery and the protocol, not of any work.
 *
 * Sides measured, each on a fresh connection (and fresh runtime or store) per sample:
 * - ours, 2025-11-25: `tools/call` with `params.task`, then `tasks/result` (blocks until done);
 * - ours, SEP-1686: `tools/call` with `_meta["modelcontextprotocol.io/task"]`, answered with the result;
 * - ours, 2025-11-25 through the SDK's `callToolStream` (create, `tasks/get` polls, `tasks/result`);
 * - the SDK's own tasks: `McpServer` + `InMemoryTaskStore` + `registerToolTask`, `callToolStream`;
 * - plain `tools/call` on our server and on an SDK `McpServer`, the floor a task is compared with.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { ours, sdk, type Pair, type Side } from './lib/mcp-sides.js';
import { alternate, type Benchmark, type BenchRow, type BenchTable } from './lib/report.js';

/** Calls made on each fresh connection before the clock starts (lazy state, inline caches). */
const WARMUP_CALLS = 20;

/** Runs `n` calls, `concurrency` at a time, checking every answer. */
async function drive(pair: Pair, n: number, concurrency: number): Promise<void> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < n) {
      started++;
      const text = await pair.call();
      if (text !== 'ok') throw new Error(`a measured call answered '${text}' instead of 'ok'`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

/** One sample: calls/s over a fresh connection, warmed up first, closed after. */
async function sample(side: Side, n: number, concurrency: number): Promise<number> {
  const pair = await side();
  try {
    await drive(pair, WARMUP_CALLS, concurrency);
    globalThis.gc?.();
    const start = performance.now();
    await drive(pair, n, concurrency);
    return n / ((performance.now() - start) / 1000);
  } finally {
    await pair.close();
  }
}

const perCallMicros = (callsPerSecond: number): number => 1e6 / callsPerSecond;

/**
 * Measures task lifecycles over the SDK's in-memory transport: ours against the SDK's own tasks,
 * and a task-augmented call against a plain one.
 *
 * @example
 * ```ts
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const rounds = quick ? 3 : 5;
  const modes = [
    { label: 'sequential', n: quick ? 200 : 1000, concurrency: 1 },
    { label: '50 concurrent', n: quick ? 300 : 1000, concurrency: 50 },
  ];
  const sides = {
    ours2025: ours('2025'),
    oursSep: ours('sep'),
    // The server's own poll interval (the default, 1000 ms): what a real SDK requester gets.
    oursStream: ours('stream'),
    oursPlain: ours('plain'),
    sdkTask: sdk('task'),
    sdkPlain: sdk('plain'),
  };
  // Every side runs an unmeasured pass first, so no side pays for JIT warm-up in a sample: V8 needs
  // thousands of calls before the per-sample figures settle. Once per side is enough (the concurrent
  // runs go through the same code).
  const warmCalls = quick ? 500 : 2000;
  for (const side of Object.values(sides)) await sample(side, warmCalls, 1);
  const vsSdk: BenchRow[] = [];
  const vsPlain: BenchRow[] = [];
  for (const m of modes) {
    const measure = (side: Side, n = m.n) => () => sample(side, n, m.concurrency);
    const throughput = (name: string, r: { ours: number; baseline: number }, target?: number): BenchRow => ({
      name,
      ours: r.ours,
      baseline: r.baseline,
      unit: 'calls/s',
      higherIsBetter: true,
      ...(target !== undefined && { target: `≥ ${target}× SDK`, met: r.ours >= target * r.baseline }),
    });
    const cost = (name: string, r: { ours: number; baseline: number }, target?: number): BenchRow => {
      const row = { name, ours: perCallMicros(r.ours), baseline: perCallMicros(r.baseline), unit: 'µs/call', higherIsBetter: false };
      return target === undefined ? row : { ...row, target: `≤ ${target}× plain`, met: row.ours <= target * row.baseline };
    };
    vsSdk.push(throughput(`${m.label}, 2025-11-25`, await alternate(rounds, measure(sides.ours2025), measure(sides.sdkTask)), 1.1));
    vsSdk.push(throughput(`${m.label}, SEP-1686`, await alternate(rounds, measure(sides.oursSep), measure(sides.sdkTask)), 1.6));
    // ≤ 1.2× the SDK's time per call is ≥ 1/1.2 of its throughput.
    vsSdk.push(throughput(`${m.label}, 2025-11-25 via callToolStream (server's poll interval)`, await alternate(rounds, measure(sides.oursStream), measure(sides.sdkTask)), 0.83));
    vsPlain.push(cost(`${m.label}, 2025-11-25: task vs our plain call`, await alternate(rounds, measure(sides.ours2025), measure(sides.oursPlain)), 2.2));
    vsPlain.push(cost(`${m.label}, SEP-1686: task vs our plain call`, await alternate(rounds, measure(sides.oursSep), measure(sides.oursPlain)), 1.5));
    vsPlain.push(cost(`${m.label}, SDK reference: SDK task vs SDK plain call`, await alternate(rounds, measure(sides.sdkTask), measure(sides.sdkPlain))));
  }
  const sizes = modes.map((m) => `${m.label}: ${m.n} calls${m.concurrency > 1 ? `, ${m.concurrency} in flight` : ''}`).join('; ');
  const how =
    `Real SDK Client and server in one process over InMemoryTransport; the tool returns text 'ok' at once. ${sizes}. ` +
    `Median of ${rounds} samples alternating the two sides, each on a fresh connection (and runtime or store) after ${WARMUP_CALLS} warm-up calls; ` +
    `every side first makes an unmeasured pass of ${warmCalls} calls, and every answer is checked to be ok.`;
  return [
    {
      title: 'Task lifecycle over MCP, embedded: ours vs the SDK 1.x tasks',
      baselineName: 'SDK 1.x tasks',
      method:
        `${how} Ours, 2025-11-25: tools/call with params.task = {ttl} → CreateTaskResult, then tasks/result (client.experimental.tasks.getTaskResult), ` +
        'which blocks until the task ends: 2 round trips. Ours, SEP-1686: tools/call with _meta task {taskId, keepAlive}, answered with the result ' +
        '(1 round trip plus notifications/tasks/created). Ours via callToolStream: the SDK 1.x client helper (create, tasks/get, sleep pollInterval while working, ' +
        'tasks/result) against our server with its default poll interval (1000 ms): a call that saw `working` at its first tasks/get would sleep for it; ' +
        'target ≥ 0.83× (≤ 1.2× the SDK time per call). SDK: McpServer + InMemoryTaskStore + registerToolTask whose createTask ' +
        'stores the result before returning (its best case: the first tasks/get sees completed), client callToolStream: 3 round trips.',
      rows: vsSdk,
    },
    {
      title: 'Task lifecycle over MCP, embedded: task-augmented call vs plain call',
      baselineName: 'plain tools/call',
      method:
        `${how} Cost per call = 1 / throughput. Plain: tools/call without task metadata (client.request) on the same kind of server: ` +
        'ours = createTaskServer (the very server the task rows use), SDK = McpServer.registerTool without a task store. Tasks as in the table above; the SDK row is for reference (no target).',
      rows: vsPlain,
    },
  ] satisfies BenchTable[];
};
