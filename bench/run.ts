/**
 * `npm run bench [-- --quick] [-- --only NAME]`: runs every benchmark and prints one markdown
 * table each, with the node version, the date and the machine.
 *
 * @module
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { renderTable, type Benchmark } from './lib/report.js';

/** The benchmarks, by name, loaded on demand (each may need its own servers). */
const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  'mcp-embedded': async () => (await import('./mcp-embedded.js')).run,
  'runtime-api': async () => (await import('./runtime-api.js')).run,
  listing: async () => (await import('./listing.js')).run,
  memory: async () => (await import('./memory.js')).run,
  nats: async () => (await import('./nats.js')).run,
  'sdk-v2': async () => (await import('./sdk-v2.js')).run,
  sessions: async () => (await import('./sessions.js')).run,
  inline: async () => (await import('./inline.js')).run,
  telemetry: async () => (await import('./telemetry.js')).run,
  'inspector-page': async () => (await import('./inspector-page.js')).run,
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, only: { type: 'string', multiple: true } }, strict: true });
  const quick = values.quick === true;
  const names = values.only ?? Object.keys(BENCHMARKS);
  for (const name of names) if (!(name in BENCHMARKS)) throw new Error(`Unknown benchmark '${name}'. Known: ${Object.keys(BENCHMARKS).join(', ')}`);
  const cpu = cpus();
  console.log(`## Benchmarks${quick ? ' (quick)' : ''}\n`);
  console.log(`Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB\n`);
  for (const name of names) {
    const started = Date.now();
    const tables = await (await BENCHMARKS[name]!())({ quick });
    for (const table of tables) console.log(renderTable(table));
    console.error(`(${name}: ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
