/**
 * The NATS JetStream backend against the server it runs on: task lifecycles per second (one
 * node; a front and two workers), `tasks/get` latency from a node that does not own the task, and
 * the time for a SIGKILLed worker's task to be resolved elsewhere. Each figure stands beside what
 * the same nats-server does raw (or the bound promised), measured in the same run.
 *
 * One own nats-server (file storage, temporary store dir, free port) serves everything and is
 * stopped by pid at the end, also on failure. Every measurement uses its own prefix, so its
 * streams and buckets start empty. The multi-node figures run several runtimes in this one
 * process, each with its own connection: they share one event loop (and this machine's cores
 * with the server), so they show the protocol's cost, not a multi-host deployment's throughput.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connectNats } from '../runtime/backends/nats/connection.js';
import { nameFromPrefix } from '../runtime/backends/nats/keys.js';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../runtime/backends/nats/nats-runtime.js';
import { measureWorkerKills } from './lib/nats-failover.js';
import { startBenchNatsCluster } from './lib/nats-cluster.js';
import { protocolFloor } from './lib/nats-floor.js';
import { startBenchNatsServer, type BenchNatsServer } from './lib/nats-server.js';
import { alternate, median, percentile, type Benchmark, type BenchTable } from './lib/report.js';

/** Requests in flight in the throughput runs (a busy front node's load, and the raw baseline's). */
const IN_FLIGHT = 50;
const NOOP = 'bench:noop';
const OWNER = { session: 'bench', principal: null };
/** Raw publishes carry about what a task record weighs, so the baseline moves the same bytes. */
const RAW_PAYLOAD = new Uint8Array(600);

/**
 * JetStream messages one lifecycle sends, read from runtime/backends/nats (create → worker →
 * waitForOutcome, handler returning at once, its result small enough to ride in the record);
 * "awaited": the requester's answer waits for its reply.
 * - create (front): index publish (awaited: its sequence is the task's `order`), run enqueue
 *   (awaited: before the record, so no task exists that nothing will run), record KV create
 *   (awaited), `task.created` posted without an acknowledgement = 4, 3 awaited
 * - worker: pull (one per batch of up to 8 free slots: under load a fraction of one per task, not
 *   counted), lease KV create (awaited), start CAS on the record this node wrote (awaited),
 *   `task.start` post, complete CAS with the result inside (awaited), `task.complete` post (the
 *   record as written), work ack, lease let go (no reply) = 7, 3 awaited; a worker that did not
 *   create the task starts from the record its `task.created` event carried (the start's CAS
 *   checks it): no read, unless that event is not heard within 200 ms of the run's arrival
 * - waitForOutcome: nothing: the node created the task a moment ago and its feed has followed
 *   it since; the end arrives as an event carrying the record
 * - retention timer, off the critical path: one message (and one nak) per batch of tasks ended
 *   on a node within 20 ms, not counted
 */
const OPS_PER_LIFECYCLE = { oneNode: 4 + 7, split: 4 + 7 } as const;
/** Awaited requests on the critical path, one after the other (see above). */
const AWAITED = { oneNode: 6, split: 6 } as const;

/** Runs `fn(0..n-1)` with at most `lanes` calls in flight. */
async function inLanes(n: number, lanes: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(lanes, n) }, async () => {
    while (next < n) await fn(next++);
  }));
}

let taskSeq = 0;

/** CPU this process spent per lifecycle in the last {@link lifecycles} run, µs. */
const cpuPerLifecycle: number[] = [];

/** Lifecycles per second: create → completed → outcome in hand, `IN_FLIGHT` at a time, through `front`. */
async function lifecycles(front: NatsTaskRuntime, n: number): Promise<number> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await inLanes(n, IN_FLIGHT, async () => {
    const taskId = `t${++taskSeq}`;
    await front.create({ taskId, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', handler: NOOP, params: null });
    const { task } = await front.waitForOutcome(taskId, OWNER, { timeout: 60_000 });
    if (task.status !== 'completed') throw new Error(`task ${taskId} ended ${task.status}`);
  });
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  cpuPerLifecycle.push((used.user + used.system) / n);
  return (n * 1_000) / elapsed;
}

/** Runs `measure` and adds the messages the server received per item to `perItem`. */
async function counting(server: BenchNatsServer, items: number, perItem: number[], measure: () => Promise<number>): Promise<number> {
  const before = await server.counters();
  const rate = await measure();
  perItem.push(((await server.counters()).inMsgs - before.inMsgs) / items);
  return rate;
}

/** Starts runtimes on one server and disposes of all of them at the end. */
function nodePool(url: string | readonly string[]): { node(o: NatsTaskRuntimeOptions): Promise<NatsTaskRuntime>; dispose(): Promise<void> } {
  const open: NatsTaskRuntime[] = [];
  return {
    async node(o) {
      const runtime = await createNatsTaskRuntime({ nats: { servers: url }, ...o });
      open.push(runtime);
      runtime.registerHandler(NOOP, () => Promise.resolve({ ok: true }));
      return runtime;
    },
    async dispose() {
      await Promise.allSettled(open.splice(0).map((r) => r.dispose()));
    },
  };
}

async function throughputTable(server: BenchNatsServer, quick: boolean): Promise<BenchTable> {
  const n = quick ? 300 : 2_000;
  const rawN = 4 * n;
  const rounds = quick ? 1 : 3;
  const pool = nodePool(server.url);
  const nc = await connectNats({ servers: server.url });
  try {
    const one = await pool.node({ prefix: 'b1node', role: 'both', nodeId: 'one' });
    const front = await pool.node({ prefix: 'b3node', role: 'front', nodeId: 'front' });
    await pool.node({ prefix: 'b3node', role: 'worker', nodeId: 'w1' });
    await pool.node({ prefix: 'b3node', role: 'worker', nodeId: 'w2' });
    await (await jetstreamManager(nc)).streams.add({ name: 'benchraw', subjects: ['benchraw.>'], storage: StorageType.File });
    const js = jetstream(nc);
    const raw = async (): Promise<number> => {
      const started = performance.now();
      await inLanes(rawN, IN_FLIGHT, async () => void (await js.publish('benchraw.x', RAW_PAYLOAD)));
      return (rawN * 1_000) / (performance.now() - started);
    };
    // Warm-up: JIT, consumers' first pulls, the streams' first blocks.
    await Promise.all([lifecycles(one, 100), lifecycles(front, 100), raw()]);
    const msgs = { one: [] as number[], split: [] as number[], raw: [] as number[] };
    const rawRun = (): Promise<number> => counting(server, rawN, msgs.raw, raw);
    cpuPerLifecycle.length = 0;
    const a = await alternate(rounds, () => counting(server, n, msgs.one, () => lifecycles(one, n)), rawRun);
    const cpuOne = median(cpuPerLifecycle);
    const b = await alternate(rounds, () => counting(server, n, msgs.split, () => lifecycles(front, n)), rawRun);
    // The same messages with no runtime around them: what the protocol alone allows here.
    const floors = { full: [] as { rate: number; cpuUs: number }[], lean: [] as { rate: number; cpuUs: number }[] };
    for (let i = 0; i < rounds; i++) {
      floors.full.push(await protocolFloor(nc, `floorf${i}`, 'full', n, IN_FLIGHT));
      floors.lean.push(await protocolFloor(nc, `floorl${i}`, 'lean', n, IN_FLIGHT));
    }
    const floor = (shape: 'full' | 'lean', what: 'rate' | 'cpuUs'): number => median(floors[shape].map((f) => f[what]));
    return {
      title: 'NATS: task lifecycles (create → completed → outcome in hand)',
      baselineName: 'raw JetStream publish+ack',
      method:
        `${n} lifecycles per round, ${IN_FLIGHT} in flight, handler returns at once; ${rounds} round(s) alternating with ${rawN} raw js.publish (${RAW_PAYLOAD.length} B, ${IN_FLIGHT} in flight) to a file stream; medians. ` +
        'One nats-server 2.9 (file storage) on this machine. "front + 2 workers": three runtimes with their own connections in this one process (one event loop). ' +
        'Ops per lifecycle are counted from the code (see OPS_PER_LIFECYCLE in bench/nats.ts); "server in-msgs" is the server\'s own /varz in_msgs count per item. ' +
        '"Protocol floor": the same messages sent by nats.js alone, no runtime around them (bench/lib/nats-floor.ts): the 11 of a lifecycle today, and the 6 the design\'s rules cannot do without (index, enqueue, record create, start and end CAS, ack); CPU is this process\'s (user + system) per lifecycle, the nats-server\'s on top.',
      rows: [
        { name: 'lifecycles/s, one node (role both)', ours: a.ours, baseline: a.baseline, unit: '/s', higherIsBetter: true, target: '≥ 2000 lifecycles/s (one server, one node)', met: a.ours >= 2_000 },
        { name: 'lifecycles/s, front + 2 workers (in-process)', ours: b.ours, baseline: b.baseline, unit: '/s', higherIsBetter: true, target: '≥ 2000 lifecycles/s', met: b.ours >= 2_000 },
        { name: 'JetStream requests per lifecycle, one node (from the code)', ours: OPS_PER_LIFECYCLE.oneNode, baseline: 1, unit: 'ops', higherIsBetter: false },
        { name: 'JetStream requests per lifecycle, front + 2 workers (from the code)', ours: OPS_PER_LIFECYCLE.split, baseline: 1, unit: 'ops', higherIsBetter: false },
        { name: 'awaited requests per lifecycle, one node (from the code)', ours: AWAITED.oneNode, baseline: 1, unit: 'ops', higherIsBetter: false, target: '≤ 6 awaited', met: AWAITED.oneNode <= 6 },
        { name: 'awaited requests per lifecycle, front + 2 workers (from the code)', ours: AWAITED.split, baseline: 1, unit: 'ops', higherIsBetter: false, target: '≤ 6 awaited', met: AWAITED.split <= 6 },
        { name: 'server in-msgs per lifecycle, one node (measured)', ours: median(msgs.one), baseline: median(msgs.raw), unit: 'msgs', higherIsBetter: false },
        { name: 'server in-msgs per lifecycle, front + 2 workers (measured)', ours: median(msgs.split), baseline: median(msgs.raw), unit: 'msgs', higherIsBetter: false },
        { name: 'JetStream requests/s at the one-node rate (rate × ops)', ours: a.ours * OPS_PER_LIFECYCLE.oneNode, baseline: a.baseline, unit: 'ops/s', higherIsBetter: true },
        { name: 'protocol floor: the 11 messages alone, lifecycles/s', ours: floor('full', 'rate'), baseline: a.baseline, unit: '/s', higherIsBetter: true },
        { name: 'protocol floor: 6 messages alone, lifecycles/s', ours: floor('lean', 'rate'), baseline: a.baseline, unit: '/s', higherIsBetter: true },
        { name: 'node CPU per lifecycle, one node, vs the 11 messages alone', ours: cpuOne, baseline: floor('full', 'cpuUs'), unit: 'µs', higherIsBetter: false },
        { name: 'node CPU per lifecycle, 6 messages alone, vs the 11', ours: floor('lean', 'cpuUs'), baseline: floor('full', 'cpuUs'), unit: 'µs', higherIsBetter: false },
      ],
    };
  } finally {
    await pool.dispose();
    await nc.drain().catch(() => undefined);
  }
}

/** Checkpoints a lifecycle of {@link CHECKPOINTING} keeps. */
const CHECKPOINTS = 10;
const CHECKPOINTING = 'bench:checkpointing';

/** One at a time: ms per lifecycle of `handler` through `node`. */
async function sequentialMs(node: NatsTaskRuntime, handler: string, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const taskId = `c${++taskSeq}`;
    await node.create({ taskId, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', handler, params: null });
    const { task } = await node.waitForOutcome(taskId, OWNER, { timeout: 60_000 });
    if (task.status !== 'completed') throw new Error(`task ${taskId} ended ${task.status}`);
  }
  return (performance.now() - started) / n;
}

/** What a durable handler's checkpoint costs on NATS: a handler keeping 10 against one keeping none. */
async function checkpointTable(server: BenchNatsServer, quick: boolean): Promise<BenchTable> {
  const n = quick ? 100 : 400;
  const rounds = quick ? 1 : 3;
  const pool = nodePool(server.url);
  try {
    const node = await pool.node({ prefix: 'bckpt', role: 'both', nodeId: 'ckpt' });
    node.registerHandler(
      CHECKPOINTING,
      async (_p, ctx) => {
        for (let i = 1; i <= CHECKPOINTS; i++) await ctx.checkpoint({ step: i }, `step ${i}`);
        return { ok: true };
      },
      { retry: 'resume' },
    );
    await sequentialMs(node, CHECKPOINTING, 20);
    await sequentialMs(node, NOOP, 20);
    const msgs = { with: [] as number[], without: [] as number[] };
    const withMs: number[] = [];
    const withoutMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      withMs.push(await counting(server, n, msgs.with, () => sequentialMs(node, CHECKPOINTING, n)));
      withoutMs.push(await counting(server, n, msgs.without, () => sequentialMs(node, NOOP, n)));
    }
    const perCheckpointMs = (median(withMs) - median(withoutMs)) / CHECKPOINTS;
    const perCheckpointMsgs = (median(msgs.with) - median(msgs.without)) / CHECKPOINTS;
    return {
      title: 'NATS: what a durable handler\'s checkpoint costs',
      baselineName: 'the same lifecycle without checkpoints',
      method:
        `One node (role both), one task at a time: a handler that keeps ${CHECKPOINTS} checkpoints (ctx.checkpoint, one compare-and-swap of the task's record each) against one that returns at once; ` +
        `${n} lifecycles per round, ${rounds} round(s) alternating; medians. Per checkpoint: the difference divided by ${CHECKPOINTS}; messages from the server's /varz in_msgs.`,
      rows: [
        { name: `ms per lifecycle, ${CHECKPOINTS} checkpoints`, ours: median(withMs), baseline: median(withoutMs), unit: 'ms', higherIsBetter: false },
        { name: 'ms per checkpoint', ours: perCheckpointMs, baseline: median(withoutMs), unit: 'ms', higherIsBetter: false },
        { name: 'server in-msgs per checkpoint (measured)', ours: perCheckpointMsgs, baseline: 1, unit: 'msgs', higherIsBetter: false, target: '≤ 1 awaited JetStream request per checkpoint', met: perCheckpointMsgs <= 1.05 },
      ],
    };
  } finally {
    await pool.dispose();
  }
}

/** Lifecycles/s of one node on a 3-server cluster, every stream and bucket replicated 3 times. */
async function clusterTable(quick: boolean): Promise<BenchTable> {
  const n = quick ? 200 : 1_000;
  const rawN = 4 * n;
  const rounds = quick ? 1 : 3;
  const cluster = await startBenchNatsCluster(3);
  const pool = nodePool(cluster.urls);
  try {
    const nc = await connectNats({ servers: cluster.urls });
    try {
      const one = await pool.node({ prefix: 'bR3', role: 'both', nodeId: 'r3', replicas: 3 });
      await (await jetstreamManager(nc)).streams.add({ name: 'benchraw3', subjects: ['benchraw3.>'], storage: StorageType.File, num_replicas: 3 });
      const js = jetstream(nc);
      const raw = async (): Promise<number> => {
        const started = performance.now();
        await inLanes(rawN, IN_FLIGHT, async () => void (await js.publish('benchraw3.x', RAW_PAYLOAD)));
        return (rawN * 1_000) / (performance.now() - started);
      };
      await Promise.all([lifecycles(one, 100), raw()]);
      const r = await alternate(rounds, () => lifecycles(one, n), raw);
      return {
        title: 'NATS: task lifecycles on a 3-server cluster, replicas 3',
        baselineName: 'raw JetStream publish+ack, R3 stream',
        method:
          `Three nats-servers routed on loopback (the same 2 cores as the node), every stream and bucket with 3 replicas; one node (role both) connected to all three; ` +
          `${n} lifecycles per round, ${IN_FLIGHT} in flight, handler returns at once; ${rounds} round(s) alternating with ${rawN} raw js.publish to an R3 file stream; medians.`,
        rows: [{ name: 'lifecycles/s, one node, 3 servers, replicas 3', ours: r.ours, baseline: r.baseline, unit: '/s', higherIsBetter: true, target: 'aim ≥ 1000 lifecycles/s (report the figure)', met: r.ours >= 1_000 }],
      };
    } finally {
      await pool.dispose();
      await nc.drain().catch(() => undefined);
    }
  } finally {
    await cluster.stop();
  }
}

async function getLatencyTable(server: BenchNatsServer, quick: boolean): Promise<BenchTable> {
  const gets = quick ? 500 : 2_000;
  const tasks = 100;
  const prefix = 'bget';
  const pool = nodePool(server.url);
  const nc = await connectNats({ servers: server.url });
  try {
    const owner = await pool.node({ prefix, role: 'both', nodeId: 'owner' });
    const reader = await pool.node({ prefix, role: 'front', nodeId: 'reader' });
    const ids = Array.from({ length: tasks }, (_, i) => `g${i}`);
    await inLanes(tasks, IN_FLIGHT, async (i) => {
      await owner.create({ taskId: ids[i]!, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', handler: NOOP, params: null });
      await owner.waitForTerminal(ids[i]!, OWNER, { timeout: 30_000 });
    });
    // The baseline reads the very bucket `get` reads (history 1, file, reads via the stream leader).
    const kv = await new Kvm(nc).open(`${nameFromPrefix(prefix)}_snapshots`);
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    const ours: number[] = [];
    const raw: number[] = [];
    const warmUp = 200;
    // One get at a time, ours and raw interleaved, so that drift hits both alike.
    for (let i = 0; i < warmUp + gets; i++) {
      let t = performance.now();
      await reader.get(ids[i % tasks]!, OWNER);
      const a = performance.now() - t;
      t = performance.now();
      await kv.get(keys[i % keys.length]!);
      const b = performance.now() - t;
      if (i >= warmUp) {
        ours.push(a);
        raw.push(b);
      }
    }
    return {
      title: 'NATS: tasks/get from a node that does not own the task',
      baselineName: 'raw kv.get, same bucket',
      method: `${gets} runtime.get() on a front node (own connection, same process) for ${tasks} tasks created and run on another node, one at a time, each followed by one kv.get of a key of the same bucket; after ${warmUp} warm-up pairs.`,
      rows: [
        { name: 'get p50', ours: percentile(ours, 50), baseline: percentile(raw, 50), unit: 'ms', higherIsBetter: false },
        { name: 'get p99', ours: percentile(ours, 99), baseline: percentile(raw, 99), unit: 'ms', higherIsBetter: false, target: 'p99 ≤ 3 ms', met: percentile(ours, 99) <= 3 },
      ],
    };
  } finally {
    await pool.dispose();
    await nc.drain().catch(() => undefined);
  }
}

async function workerKillTable(server: BenchNatsServer, quick: boolean): Promise<BenchTable> {
  const leaseTtlMs = 2_000;
  const bound = leaseTtlMs + 1_000;
  const repetitions = quick ? 1 : 3;
  const { elapsedMs, statuses } = await measureWorkerKills({ url: server.url, repetitions, leaseTtlMs });
  const mid = median(elapsedMs);
  const worst = Math.max(...elapsedMs);
  return {
    title: 'NATS: worker SIGKILL → task resolved elsewhere',
    baselineName: 'bound: lease TTL + 1 s',
    method:
      `CLI nodes from dist-bench (front + 2 workers, --lease-ttl ${leaseTtlMs}) plus an in-process front on the same prefix that starts long_job {seconds: 60} and waits for it; ` +
      `the worker that logged "task run" is SIGKILLed (a replacement is started before the next repetition); time from the signal to terminal as the in-process front sees it; ` +
      `${repetitions} repetition(s): ${elapsedMs.map((ms) => Math.round(ms)).join(', ')} ms; ended ${[...new Set(statuses)].join(', ')}. ` +
      'The kill lands just after the worker took the lease, so the lease runs its whole TTL: close to the worst case.',
    rows: [
      { name: 'SIGKILL → terminal, median', ours: mid, baseline: bound, unit: 'ms', higherIsBetter: false, target: '≤ lease TTL + 1 s', met: mid <= bound },
      { name: 'SIGKILL → terminal, slowest', ours: worst, baseline: bound, unit: 'ms', higherIsBetter: false, target: '≤ lease TTL + 1 s', met: worst <= bound },
    ],
  };
}

/**
 * The NATS benchmarks: lifecycles/s, remote `tasks/get` latency and worker-loss resolution time
 * on one own nats-server, then lifecycles/s on an own 3-server cluster (replicas 3); every server
 * is stopped at the end whatever happens.
 *
 * @example
 * ```ts
 * // npm run bench -- --only nats --quick
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const server = await startBenchNatsServer();
  let tables: BenchTable[];
  try {
    tables = [await throughputTable(server, quick), await getLatencyTable(server, quick), await workerKillTable(server, quick), await checkpointTable(server, quick)];
  } finally {
    await server.stop();
  }
  // Once the single server is gone: the cluster's three servers share the same two cores.
  return [...tables, await clusterTable(quick)];
};
