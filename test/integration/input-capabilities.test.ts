/**
 * A question goes only to a requester that can answer it: `ask_name` (elicitation) and `summarize`
 * (sampling) run as tasks for a requester that did not declare the capability they need end
 * `failed` at once, with a message naming the capability, never `input_required`, and nothing is
 * sent to the requester. On every dialect (SEP-1686, 2025-11-25 with `initialize`'s capabilities,
 * 2026-07-28 with the creating request's own), served by SDK v1 and SDK v2, on the memory backend
 * and on a NATS front node whose worker node runs the work (it decides from the task's record).
 * The requesters: a raw JSON-RPC session that records every request the server sends it, the raw
 * stateless 2026-07-28 wire, and the real SDK v1 `Client` (whose fallback request handler would
 * see any request it has no handler for).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesTask } from './harness/cluster.js';
import { extWire, isTerminal, WITH_EXT } from './harness/ext-wire.js';
import { attachInteractiveHttpWire } from './harness/http-wire.js';
import { ok, sleep, type Rec } from './harness/json.js';
import { startFrontWorker, stopSharedNats } from './harness/nats-front-worker.js';
import { assertCliBuilt, spawnHttpServer } from './harness/process.js';
import { connectSdkClientTo } from './harness/sdk-client.js';
import { create2025, createSep, TERMINAL_SEP, type Dialect } from './harness/task-calls.js';
import type { InteractiveWire } from './harness/types.js';

const FLAGS = ['--poll-frequency', '100'];
const TEXT = 'The quick brown fox jumps over the lazy dog.';

/** Each demo tool that asks, what it needs, and client capabilities that declare everything but that. */
const ASKERS = [
  { tool: 'ask_name', args: {}, method: 'elicitation/create', capability: 'elicitation', others: { sampling: {} } },
  { tool: 'summarize', args: { text: TEXT }, method: 'sampling/createMessage', capability: 'sampling', others: { elicitation: {} } },
] as const;

const refusal = (capability: string): string => `The requester did not declare the '${capability}' capability, so this task cannot ask it`;

interface Served {
  readonly url: string;
  stderr(): string;
  /** Every node's audit lines so far (`--audit` is on stderr by default). */
  log(): string;
  close(): Promise<void>;
}

const memory = async (flags: readonly string[]): Promise<Served> => {
  const server = await spawnHttpServer(flags);
  return { ...server, log: () => server.stderr() };
};
const nats = async (flags: readonly string[]): Promise<Served> => {
  const pair = await startFrontWorker(flags);
  return { ...pair, log: () => pair.front.stderr() + pair.worker.stderr() };
};

/** Where the tasks run, and the session dialects its SDK serves (SDK v2 serves no SEP-1686). */
const SETUPS: readonly { name: string; dialects: readonly Dialect[]; start(): Promise<Served> }[] = [
  { name: 'memory, SDK v1', dialects: ['sep-1686', '2025-11-25'], start: () => memory(FLAGS) },
  { name: 'memory, SDK v2', dialects: ['2025-11-25'], start: () => memory(['--sdk', 'v2', ...FLAGS]) },
  { name: 'NATS front node + worker node, SDK v1', dialects: ['sep-1686', '2025-11-25'], start: () => nats(FLAGS) },
];

/** Polls `read` (tasks/get) until the task is terminal: every status seen, in order, and the last answer. */
async function untilEnded(read: () => Promise<Rec>, what: string, diag: () => string): Promise<{ seen: string[]; last: Rec }> {
  const seen: string[] = [];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const last = await read();
    seen.push(String(last['status']));
    if (TERMINAL_SEP.includes(String(last['status']))) return { seen, last };
    if (Date.now() > deadline) throw new Error(`${what} did not end within 10 s; statuses seen: ${JSON.stringify(seen)}\n${diag()}`);
    await sleep(25);
  }
}

/**
 * Every status the task went through, from the audit's `task.status` lines (a poll of tasks/get
 * can miss a status held for a moment): waited for until its terminal line is there.
 */
async function statusHistory(served: Served, taskId: string): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const moves = served
      .log()
      .split('\n')
      .filter((line) => line.includes('"event":"task.status"'))
      .map((line) => JSON.parse(line) as Rec)
      // An anonymous 2026-07-28 task's id is a bearer handle: audit lines name it shortened.
      .filter((line) => namesTask(line, taskId))
      .map((line) => String(line['to']));
    if (moves.some((s) => TERMINAL_SEP.includes(s))) return moves;
    if (Date.now() > deadline) throw new Error(`no terminal task.status line for ${taskId} within 5 s; seen: ${JSON.stringify(moves)}`);
    await sleep(25);
  }
}

afterAll(stopSharedNats);

beforeAll(() => assertCliBuilt());

for (const setup of SETUPS) {
  describe(`a requester that cannot answer, on ${setup.name}`, () => {
    let served: Served | undefined;
    beforeAll(async () => {
      served = await setup.start();
    }, 40_000);
    afterAll(async () => {
      await served?.close();
    }, 30_000);
    const diag = (): string => served?.stderr() ?? '';

    for (const dialect of setup.dialects) {
      for (const asker of ASKERS) {
        it(`should end ${asker.tool} failed at once on ${dialect}, naming '${asker.capability}', never input_required, sending no ${asker.method}`, async () => {
          const wire: InteractiveWire = await attachInteractiveHttpWire(served!.url, diag, asker.others);
          try {
            const created = dialect === 'sep-1686' ? await createSep(wire, asker.tool, asker.args) : await create2025(wire, asker.tool, asker.args);
            // No tasks/result is opened: the task ends by itself, as nothing could ever answer it.
            const { seen, last } = await untilEnded(async () => ok(await wire.request('tasks/get', { taskId: created.taskId })), `${asker.tool} ${created.taskId}`, diag);
            expect(seen, `statuses seen: ${JSON.stringify(seen)}`).not.toContain('input_required');
            expect(last['status']).toBe('failed');
            if (dialect === '2025-11-25') {
              expect(String(last['statusMessage'])).toContain(refusal(asker.capability));
              const result = await wire.request('tasks/result', { taskId: created.taskId });
              expect(JSON.stringify(result)).toContain(refusal(asker.capability));
            } else {
              // SEP-1686: the original tools/call answers with the task's failure.
              expect(JSON.stringify(await wire.responseFor(created.requestId, 10_000))).toContain(refusal(asker.capability));
            }
            expect(wire.serverRequests.filter((r) => r.message.method === asker.method)).toEqual([]);
            expect(await statusHistory(served!, created.taskId)).toEqual(['working', 'failed']);
          } finally {
            await wire.close();
          }
        });
      }
    }

    for (const asker of ASKERS) {
      it(`should end ${asker.tool} failed at once on 2026-07-28 when the creating request did not declare '${asker.capability}'`, async () => {
        const ext = extWire(served!.url);
        const { taskId } = await ext.call(asker.tool, asker.args, { caps: { ...WITH_EXT, ...asker.others } });
        const seen: string[] = [];
        const ended = await ext.until(
          String(taskId),
          (t) => {
            seen.push(String(t['status']));
            return isTerminal(t);
          },
          10_000,
        );
        // The question would have been in tasks/get's inputRequests: it never is.
        expect(seen, `statuses seen: ${JSON.stringify(seen)}`).not.toContain('input_required');
        expect(ended).toMatchObject({ status: 'failed' });
        expect(ended['inputRequests']).toBeUndefined();
        expect(JSON.stringify(ended)).toContain(refusal(asker.capability));
        expect(await statusHistory(served!, String(taskId))).toEqual(['working', 'failed']);
      });
    }

    it('should never ask the real SDK Client that declared neither capability, and fail its 2025-11-25 ask_name with the reason', async () => {
      const client = new Client({ name: 'sdk-no-input', version: '0.0.0' }, { capabilities: {} });
      const unhandled: string[] = [];
      // Any request from the server this client has no handler for (an elicitation/create) lands here.
      client.fallbackRequestHandler = async (request) => {
        unhandled.push(request.method);
        throw new Error(`unexpected ${request.method}`);
      };
      const peer = await connectSdkClientTo({ url: served!.url, stderr: diag }, client);
      try {
        const statuses: string[] = [];
        let error: unknown;
        const stream = client.experimental.tasks.callToolStream({ name: 'ask_name', arguments: {} }, CallToolResultSchema, {
          task: { ttl: 60_000 },
          timeout: 10_000,
          signal: AbortSignal.timeout(10_000),
        });
        let taskId: string | undefined;
        for await (const message of stream) {
          if (message.type === 'taskCreated') taskId = message.task.taskId;
          else if (message.type === 'taskStatus') statuses.push(message.task.status);
          else if (message.type === 'error') error = message.error;
        }
        expect(statuses, `statuses seen: ${JSON.stringify(statuses)}`).not.toContain('input_required');
        // The SDK words the stream's error itself ("Task … failed"); the task says why.
        expect(error, diag()).toBeDefined();
        const task = await client.experimental.tasks.getTask(taskId!);
        expect(task).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining(refusal('elicitation')) as unknown });
        expect(unhandled).toEqual([]);
        expect(await statusHistory(served!, taskId!)).toEqual(['working', 'failed']);
      } finally {
        await peer.close();
      }
    });
  });
}
