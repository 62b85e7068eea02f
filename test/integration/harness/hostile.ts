/**
 * Building blocks of the hostile-input property suite (hostile-input.test.ts): fast-check
 * arbitraries for malformed / hostile JSON-RPC, the check every answer must pass, victim task
 * snapshots, and raw senders for floods of requests that reuse one JSON-RPC id (which the
 * regular {@link Wire} refuses to send).
 *
 * Deep and huge payloads are generated as small descriptors ({@link Bulky}) and only built right
 * before sending, so that fast-check can print (and shrink) a counterexample cheaply.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import fc from 'fast-check';
import { ok, type Rec } from './json.js';
import { create2025, createSep, getTask, SEP_TASK, statusOf } from './task-calls.js';
import { isRecord, type JSONRPCResponse, type JsonRpcId, type Wire } from './types.js';

/** The fixed seed of every property (a failure prints it with the counterexample: `verbose: true`). */
export const SEED = 20_261_202;
/** How long any single hostile request may take before it counts as "no answer". */
export const ANSWER_TIMEOUT_MS = 5_000;

export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

/** Every method the server may legitimately implement; "unknown method" arbitraries avoid them. */
export const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'tasks/delete',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
]);

// -- checking answers --------------------------------------------------------------------------

/**
 * Asserts one well-formed JSON-RPC answer for request `id`: `jsonrpc: "2.0"`, exactly one of
 * result / error; an error has an integer code in the JSON-RPC reserved range (-32768..-32000,
 * which holds every JSON-RPC and MCP code) and a non-empty string message. Returns the error, if any.
 */
export function checkAnswer(res: JSONRPCResponse, id: JsonRpcId, context: string): { code: number; message: string } | undefined {
  const where = `${context}: ${JSON.stringify(res).slice(0, 600)}`;
  if (res.jsonrpc !== '2.0') throw new Error(`answer without jsonrpc 2.0 (${where})`);
  if (res.id !== id) throw new Error(`answer for id ${JSON.stringify(res.id)} instead of ${JSON.stringify(id)} (${where})`);
  const hasResult = 'result' in res;
  const hasError = 'error' in res;
  if (hasResult === hasError) throw new Error(`answer must carry exactly one of result / error (${where})`);
  if (hasResult) {
    if (!isRecord(res.result)) throw new Error(`result is not an object (${where})`);
    return undefined;
  }
  const error: unknown = res.error;
  if (!isRecord(error)) throw new Error(`error is not an object (${where})`);
  const code = error['code'];
  const message = error['message'];
  if (typeof code !== 'number' || !Number.isInteger(code) || code < -32768 || code > -32000) {
    throw new Error(`error code is not an integer in -32768..-32000 (${where})`);
  }
  if (typeof message !== 'string' || message.trim() === '') throw new Error(`error message is not a non-empty string (${where})`);
  return { code, message };
}

/** Asserts an error answer with `code` (one of `codes`) whose message matches `mentions`. */
export function expectErrorAnswer(
  res: JSONRPCResponse,
  id: JsonRpcId,
  context: string,
  codes: readonly number[],
  mentions?: RegExp,
): { code: number; message: string } {
  const error = checkAnswer(res, id, context);
  if (error === undefined) throw new Error(`${context}: expected an error (${codes.join(' or ')}), got a result: ${JSON.stringify(res).slice(0, 600)}`);
  if (!codes.includes(error.code)) throw new Error(`${context}: expected error code ${codes.join(' or ')}, got ${JSON.stringify(error)}`);
  if (mentions !== undefined && !mentions.test(error.message)) {
    throw new Error(`${context}: error message should match ${String(mentions)}: ${JSON.stringify(error)}`);
  }
  return error;
}

/** Sends a request and waits (bounded) for its answer: "no answer" fails with the server's stderr. */
export async function ask(wire: Wire, method: string, params?: Rec, id?: JsonRpcId): Promise<{ id: JsonRpcId; res: JSONRPCResponse }> {
  const sent = wire.sendRequestNoWait(method, params, id === undefined ? undefined : { id });
  const res = await wire.responseFor(sent, ANSWER_TIMEOUT_MS);
  return { id: sent, res };
}

/** The server still answers: `ping` gets `{}`. */
export async function expectAlive(wire: Wire, context: string): Promise<void> {
  const { id, res } = await ask(wire, 'ping');
  if (checkAnswer(res, id, `${context}: ping`) !== undefined) throw new Error(`${context}: ping failed: ${JSON.stringify(res)}`);
}

/** Violations the harness recorded on `wire` since index `from`, minus the ones `expected` allows. */
export function newViolations(wire: Wire, from: number, expected: (v: string) => boolean = () => false): string[] {
  return wire.violations.slice(from).filter((v) => !expected(v));
}

// -- victims -----------------------------------------------------------------------------------

/** A task created before the hostile runs, and what it looked like then. */
export interface Victim {
  readonly label: string;
  readonly taskId: string;
  /** Request ids used to create it (the SEP-1686 tools/call is still open while it runs). */
  readonly requestId: JsonRpcId;
  readonly running: boolean;
  /** tasks/get result at snapshot time. */
  readonly state: Rec;
  /** tasks/result result at snapshot time (completed tasks only). */
  readonly result: Rec | undefined;
}

const KEEP = 600_000;

async function pollCompleted(wire: Wire, taskId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (statusOf(await getTask(wire, taskId)) === 'completed') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`victim ${taskId} did not complete`);
}

async function snapshot(wire: Wire, label: string, taskId: string, requestId: JsonRpcId, running: boolean): Promise<Victim> {
  const state = await getTask(wire, taskId);
  const expected = running ? 'working' : 'completed';
  if (statusOf(state) !== expected) throw new Error(`victim ${label} is ${statusOf(state)}, expected ${expected}: ${JSON.stringify(state)}`);
  const result = running ? undefined : ok(await wire.request('tasks/result', { taskId }));
  return { label, taskId, requestId, running, state, result };
}

/**
 * Creates the victims on `wire`, in both dialects: a completed `sleep` (known result) and a
 * running `long_job` (600 s, so its statusMessage stays "step 0/10"-ish during the suite).
 */
export async function createVictims(wire: Wire): Promise<Victim[]> {
  const sepDone = await createSep(wire, 'sleep', { ms: 7 }, { keepAlive: KEEP });
  ok(await wire.responseFor(sepDone.requestId, 10_000));
  const specDone = await create2025(wire, 'sleep', { ms: 9 }, { ttl: KEEP });
  await pollCompleted(wire, specDone.taskId);
  const sepRunning = await createSep(wire, 'long_job', { seconds: 600 }, { keepAlive: KEEP });
  const specRunning = await create2025(wire, 'long_job', { seconds: 600 }, { ttl: KEEP });
  return [
    await snapshot(wire, 'sep-1686 completed sleep', sepDone.taskId, sepDone.requestId, false),
    await snapshot(wire, '2025-11-25 completed sleep', specDone.taskId, specDone.requestId, false),
    await snapshot(wire, 'sep-1686 running long_job', sepRunning.taskId, sepRunning.requestId, true),
    await snapshot(wire, '2025-11-25 running long_job', specRunning.taskId, specRunning.requestId, true),
  ];
}

/** A running task's suggested poll interval (in either dialect's field): it grows with the task's age. */
const POLL_KEYS = new Set(['pollFrequency', 'pollInterval']);

/**
 * What must not change: everything for a completed task; all but progress fields for a running
 * one, whose suggested poll interval is checked apart (see {@link expectPollNotShrunk}).
 */
function stable(victim: Victim, state: Rec): Rec {
  if (!victim.running) return state;
  return Object.fromEntries(Object.entries(state).filter(([key]) => key !== 'statusMessage' && key !== 'lastUpdatedAt' && !POLL_KEYS.has(key)));
}

/** A running victim's suggested interval is its age, capped: it may have grown since the snapshot, never shrunk. */
function expectPollNotShrunk(victim: Victim, state: Rec, context: string): void {
  if (!victim.running) return;
  for (const key of POLL_KEYS) {
    if (!(key in victim.state)) continue;
    const [then, now] = [victim.state[key], state[key]];
    if (typeof now !== 'number' || typeof then !== 'number' || now < then) {
      throw new Error(`${context}: victim ${victim.label} suggests ${key} ${String(now)}, after ${String(then)} at the snapshot`);
    }
  }
}

/** Asserts every victim looks exactly as in its snapshot (tasks/get, and tasks/result when completed). */
export async function expectVictimsUnchanged(wire: Wire, victims: readonly Victim[], context: string): Promise<void> {
  for (const victim of victims) {
    const { id, res } = await ask(wire, 'tasks/get', { taskId: victim.taskId });
    if (checkAnswer(res, id, `${context}: tasks/get ${victim.label}`) !== undefined) {
      throw new Error(`${context}: victim ${victim.label} (${victim.taskId}) is gone: ${JSON.stringify(res)}`);
    }
    expectPollNotShrunk(victim, res.result!, context);
    const now = stable(victim, res.result!);
    const then = stable(victim, victim.state);
    if (JSON.stringify(now) !== JSON.stringify(then)) {
      throw new Error(`${context}: victim ${victim.label} changed:\n  before ${JSON.stringify(then)}\n  after  ${JSON.stringify(now)}`);
    }
    if (victim.result !== undefined) {
      const got = await ask(wire, 'tasks/result', { taskId: victim.taskId });
      if (checkAnswer(got.res, got.id, `${context}: tasks/result ${victim.label}`) !== undefined) {
        throw new Error(`${context}: result of victim ${victim.label} is gone: ${JSON.stringify(got.res)}`);
      }
      if (JSON.stringify(got.res.result) !== JSON.stringify(victim.result)) {
        throw new Error(
          `${context}: result of victim ${victim.label} changed:\n  before ${JSON.stringify(victim.result)}\n  after  ${JSON.stringify(got.res.result)}`,
        );
      }
    }
  }
}

// -- bulky payloads ----------------------------------------------------------------------------

/** A deep (nesting >= 1000) or huge (>= 1 MB) JSON value, described small and built on demand. */
export type Bulky =
  | { readonly kind: 'deep-object'; readonly depth: number }
  | { readonly kind: 'deep-array'; readonly depth: number }
  | { readonly kind: 'huge-string'; readonly bytes: number; readonly char: string }
  | { readonly kind: 'huge-array'; readonly items: number };

export const bulkyArb: fc.Arbitrary<Bulky> = fc.oneof(
  fc.record({ kind: fc.constant('deep-object' as const), depth: fc.integer({ min: 1_000, max: 1_400 }) }),
  fc.record({ kind: fc.constant('deep-array' as const), depth: fc.integer({ min: 1_000, max: 1_400 }) }),
  fc.record({
    kind: fc.constant('huge-string' as const),
    bytes: fc.integer({ min: 1_048_576, max: 1_300_000 }),
    char: fc.constantFrom('a', 'é', '\u0000', '"', '\\', '\u{1F600}'),
  }),
  fc.record({ kind: fc.constant('huge-array' as const), items: fc.integer({ min: 200_000, max: 260_000 }) }),
);

export function buildBulky(b: Bulky): unknown {
  switch (b.kind) {
    case 'deep-object': {
      let value: unknown = { leaf: true };
      for (let i = 0; i < b.depth; i++) value = { a: value };
      return value;
    }
    case 'deep-array': {
      let value: unknown = [0];
      for (let i = 0; i < b.depth; i++) value = [value];
      return value;
    }
    case 'huge-string':
      // Byte size of the JSON text is at least `bytes` (multi-byte chars only make it bigger).
      return b.char.repeat(Math.ceil(b.bytes / Math.max(1, Buffer.byteLength(b.char))));
    case 'huge-array':
      return Array.from({ length: b.items }, (_, i) => i % 97);
  }
}

// -- arbitraries -------------------------------------------------------------------------------

/** Small junk JSON: numbers, arrays, null, booleans, nested objects. Never a plain non-empty string. */
export const junkArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
);

/** Strings that are weird as identifiers: unicode, control characters, very long, base64 junk. */
export const weirdStringArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
  fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }),
  fc.string({ minLength: 1, maxLength: 20, unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)) }),
  fc.string({ minLength: 300, maxLength: 2_000 }),
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  fc.constantFrom(' ', '\n', '../../etc/passwd', '__proto__', 'constructor', '%00', '*', '${taskId}', 'null', '0'),
);

/** A task id for tasks/get|result|cancel|delete: a weird string or not a (non-empty) string at all. */
export type HostileTaskId = { readonly kind: 'string'; readonly value: string } | { readonly kind: 'invalid'; readonly value: unknown };

export const hostileTaskIdArb: fc.Arbitrary<HostileTaskId> = fc.oneof(
  weirdStringArb.map((value) => ({ kind: 'string' as const, value })),
  fc.oneof(junkArb, fc.constant('')).map((value) => ({ kind: 'invalid' as const, value })),
);

/** tools/call params whose task augmentation is malformed, and what the error must mention. */
export interface HostileCall {
  readonly label: string;
  readonly params: Rec;
  readonly codes: readonly number[];
  readonly mentions?: RegExp;
}

/** keepAlive / ttl values that are wrong: wrong type or negative. */
const badDurationArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  fc.integer({ min: -1_000_000_000, max: -1 }),
);

const notObjectArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 30 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
);

export const hostileCallArb: fc.Arbitrary<HostileCall> = fc.oneof(
  notObjectArb.map((meta) => ({
    label: '_meta is not an object',
    params: { _meta: meta },
    codes: [INVALID_REQUEST, INVALID_PARAMS],
  })),
  fc.tuple(notObjectArb, fc.dictionary(fc.string({ maxLength: 8 }), junkArb, { maxKeys: 3 })).map(([task, extra]) => ({
    label: `_meta["${SEP_TASK}"] is not an object`,
    params: { _meta: { ...extra, [SEP_TASK]: task } },
    codes: [INVALID_PARAMS],
    mentions: /task metadata|modelcontextprotocol\.io\/task/i,
  })),
  fc.tuple(fc.oneof(junkArb, fc.constant('')), fc.option(junkArb, { nil: undefined })).map(([taskId, keepAlive]) => ({
    label: 'SEP-1686 taskId is not a non-empty string',
    params: { _meta: { [SEP_TASK]: keepAlive === undefined ? { taskId } : { taskId, keepAlive } } },
    codes: [INVALID_PARAMS],
    mentions: /task ?id/i,
  })),
  fc.tuple(fc.oneof(fc.uuid(), weirdStringArb), badDurationArb).map(([taskId, keepAlive]) => ({
    label: 'SEP-1686 keepAlive is wrong',
    params: { _meta: { [SEP_TASK]: { taskId, keepAlive } } },
    codes: [INVALID_PARAMS],
    mentions: /keep ?alive/i,
  })),
  notObjectArb.map((task) => ({
    label: 'params.task is not an object',
    params: { task },
    codes: [INVALID_PARAMS],
    mentions: /task/i,
  })),
  badDurationArb.map((ttl) => ({
    label: 'params.task.ttl is wrong',
    params: { task: { ttl } },
    codes: [INVALID_PARAMS],
    mentions: /ttl/i,
  })),
  fc.tuple(notObjectArb, badDurationArb).map(([meta, ttl]) => ({
    label: '_meta junk and a bad params.task together',
    params: { _meta: meta, task: { ttl } },
    codes: [INVALID_REQUEST, INVALID_PARAMS],
  })),
);

/** tasks/list cursors no server issued. */
export const bogusCursorArb: fc.Arbitrary<unknown> = fc.oneof(
  weirdStringArb,
  fc.uint8Array({ minLength: 0, maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  fc.string({ minLength: 10_000, maxLength: 20_000 }),
  junkArb,
);

/** Method names no MCP server implements (including prototype-pollution names and near misses). */
export const unknownMethodArb: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ maxLength: 40, unit: 'grapheme' }),
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'tasks/', 'tasks/get ', 'TASKS/GET', 'tasks/get/x', 'tools/call/..', 'rpc.discover'),
    fc.string({ minLength: 300, maxLength: 1_000 }),
  )
  .filter((method) => !KNOWN_METHODS.has(method) && !method.startsWith('notifications/'));

/** Request ids that nobody sent (the harness numbers from 1 and never gets near 10^9). */
export const nobodysIdArb: fc.Arbitrary<JsonRpcId> = fc.oneof(
  fc.integer({ min: 1_000_000_000, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.string({ maxLength: 300 }).map((s) => `nobody:${s}`),
);

// -- raw duplicate-id floods -------------------------------------------------------------------

/**
 * stdio: writes `message` straight to the server's stdin, bypassing the wire's "id already used"
 * guard. Reaches into the harness' StdioWire (its `child` field is TypeScript-private only); the
 * responses still arrive through the wire and are recorded in `wire.inbound`.
 */
export function writeRawStdio(wire: Wire, message: Rec): void {
  const child = (wire as unknown as { child?: ChildProcessWithoutNullStreams }).child;
  if (child === undefined) throw new Error('writeRawStdio: not a stdio wire');
  child.stdin.write(`${JSON.stringify(message)}\n`);
}

/** HTTP: POSTs one JSON-RPC request in session `sessionId` and returns every JSON-RPC message of the reply. */
export async function postRaw(url: string, sessionId: string, message: Rec, timeoutMs = ANSWER_TIMEOUT_MS): Promise<unknown[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.includes('text/event-stream')) {
    return text
      .replace(/\r\n/g, '\n')
      .split('\n\n')
      .map((block) =>
        block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n'),
      )
      .filter((data) => data.trim() !== '')
      .map((data): unknown => JSON.parse(data));
  }
  if (contentType.includes('application/json')) return [JSON.parse(text) as unknown];
  throw new Error(`POST answered ${res.status} with content-type '${contentType}': ${text.slice(0, 300)}`);
}
