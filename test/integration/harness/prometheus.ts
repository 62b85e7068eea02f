/**
 * Reading a node's `/metrics` (`serve --metrics-port`): where the node says it is, a scrape over
 * HTTP, and a small parser of the Prometheus text format (0.0.4) — samples with their labels, and
 * each family's `# TYPE` — enough to add up what a test asserts.
 */
import { connect } from 'node:net';

/** One sample line: `name{label="value",…} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed exposition. */
export interface Exposition {
  readonly samples: readonly Sample[];
  /** `# TYPE` of each family, by family name. */
  readonly types: ReadonlyMap<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;

function number(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  const n = Number(text);
  if (Number.isNaN(n) && text !== 'NaN') throw new Error(`not a sample value: '${text}'`);
  return n;
}

function labelsOf(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  let at = 0;
  for (let m = LABEL.exec(text); m !== null; m = LABEL.exec(text)) {
    labels[m[1]!] = m[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    at = LABEL.lastIndex;
  }
  if (at !== text.length) throw new Error(`malformed labels in '${line}'`);
  return labels;
}

/**
 * Parses the Prometheus text format.
 *
 * @throws Error naming the line that is neither a comment nor a sample
 */
export function parsePrometheus(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: '${line}'`);
    samples.push({ name: m[1]!, labels: m[2] === undefined ? {} : labelsOf(m[2], line), value: number(m[3]!) });
  }
  return { samples, types };
}

/**
 * The sum of the samples named `name` whose labels include `labels` (0 when none: a counter
 * not yet incremented is not exported).
 */
export function total(exposition: Exposition, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return exposition.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Scrapes `url` and parses it; throws on a status other than 200. */
export async function scrape(url: string): Promise<Exposition> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 200)}`);
  return parsePrometheus(body);
}

/** The metrics URL a node printed (`metrics at http://…/metrics`), if it did. */
export function metricsUrlIn(stderr: string): string | undefined {
  return /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr)?.[1];
}

/** Sends `bytes` raw to `url`'s host and port; resolves with what came back before the socket closed (or 2 s). */
export function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(done, 2_000);
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.on('close', done).on('error', done);
  });
}
