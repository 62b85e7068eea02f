/**
 * Black-box `input_required` flows (elicitation and sampling requests a task sends back to its
 * requester), in both wire dialects, written once and run over every transport.
 *
 * - SEP-1686 (/work/shared/specs/sep-1686-tasks.md §4.4, §4.7, §4.8): the input request travels
 *   over the still-open task-augmented tools/call, carrying `_meta["modelcontextprotocol.io/related-task"]`.
 * - 2025-11-25 (/work/shared/specs/spec-2025-11-25-tasks.mdx "Input Required Status"): the requester
 *   sees `input_required` with tasks/get and calls tasks/result; the request travels over that
 *   call, carrying `_meta["io.modelcontextprotocol/related-task"]`.
 *
 * The client is a raw JSON-RPC wire that declares `{ elicitation: {}, sampling: {} }` and answers
 * the server's requests by hand (connectInteractiveStdio / connectInteractiveHttp in harness/).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  isRecord,
  type ConnectInteractive,
  type InteractiveWire,
  type JSONRPCNotification,
  type JSONRPCResponse,
  type JsonRpcId,
  type ServerRequestEntry,
} from './harness/types.js';
import { sleep, type Rec, metaOf, ok } from './harness/json.js';
import { createSep } from './harness/task-calls.js';

type Dialect = 'sep-1686' | '2025-11-25';

const SEP_TASK = 'modelcontextprotocol.io/task';
const SEP_RELATED = 'modelcontextprotocol.io/related-task';
const RELATED_2025 = 'io.modelcontextprotocol/related-task';
const TERMINAL = ['completed', 'failed', 'cancelled'];
const POLL = 100;
const ASK_NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const CANNED = 'A canned one-sentence summary from the test model.';


function relatedKey(dialect: Dialect): string {
  return dialect === 'sep-1686' ? SEP_RELATED : RELATED_2025;
}



function textOf(result: Rec): string {
  const content = result['content'];
  if (!Array.isArray(content)) throw new Error(`result without content: ${JSON.stringify(result)}`);
  const first: unknown = content[0];
  if (!isRecord(first) || first['type'] !== 'text' || typeof first['text'] !== 'string') {
    throw new Error(`result without a leading text block: ${JSON.stringify(result)}`);
  }
  return first['text'];
}

async function status(wire: InteractiveWire, taskId: string): Promise<string> {
  const state = ok(await wire.request('tasks/get', { taskId }));
  const s = state['status'];
  if (typeof s !== 'string') throw new Error(`tasks/get without a string status: ${JSON.stringify(state)}`);
  return s;
}

/** Polls tasks/get until `wanted`; returns every status seen, in order. */
async function pollStatus(wire: InteractiveWire, taskId: string, wanted: (s: string) => boolean, what: string, timeoutMs = 5_000): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await status(wire, taskId);
    seen.push(s);
    if (wanted(s)) return seen;
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not become ${what} within ${timeoutMs} ms; statuses seen: ${JSON.stringify(seen)}`);
    await sleep(25);
  }
}

/** A few tasks/get over ~`ms` milliseconds; returns the statuses. */
async function sampleStatus(wire: InteractiveWire, taskId: string, ms = 200, every = 50): Promise<string[]> {
  const seen: string[] = [];
  for (let t = 0; t < ms; t += every) {
    seen.push(await status(wire, taskId));
    await sleep(every);
  }
  seen.push(await status(wire, taskId));
  return seen;
}

function cancelledFor(id: JsonRpcId): (n: JSONRPCNotification) => boolean {
  return (n) => n.method === 'notifications/cancelled' && isRecord(n.params) && n.params['requestId'] === id;
}

/** A running task and the channel its input requests should arrive on. */
interface Started {
  readonly taskId: string;
  /** The task-augmented tools/call. */
  readonly callId: JsonRpcId;
  /** SEP-1686: the tools/call; 2025-11-25: the tasks/result the requester opened. */
  readonly channelId: JsonRpcId;
  /** The HTTP stream label the input request must arrive on. */
  readonly channelOrigin: string;
  /** How many server requests the wire had seen before the task started. */
  readonly mark: number;
}

/**
 * Starts `tool` as a task in `dialect`. For 2025-11-25 it follows the spec's requester flow: poll
 * tasks/get until input_required, then call tasks/result (left open).
 */
async function startInputTask(wire: InteractiveWire, dialect: Dialect, tool: string, args: Rec): Promise<Started> {
  const mark = wire.serverRequests.length;
  if (dialect === 'sep-1686') {
    const taskId = randomUUID();
    const callId = wire.sendRequestNoWait('tools/call', { name: tool, arguments: args, _meta: { [SEP_TASK]: { taskId } } });
    return { taskId, callId, channelId: callId, channelOrigin: 'POST tools/call (sse)', mark };
  }
  const callId = wire.sendRequestNoWait('tools/call', { name: tool, arguments: args, task: { ttl: 60_000 } });
  const created = ok(await wire.responseFor(callId, 5_000));
  const task = created['task'];
  if (!isRecord(task) || typeof task['taskId'] !== 'string') throw new Error(`not a CreateTaskResult: ${JSON.stringify(created)}`);
  const taskId = task['taskId'];
  // "When the requestor encounters the input_required status, it SHOULD preemptively call tasks/result."
  const seen = await pollStatus(wire, taskId, (s) => s === 'input_required' || TERMINAL.includes(s), 'input_required');
  expect(seen.at(-1), `2025-11-25 task ${tool} should wait for input before any tasks/result; statuses: ${JSON.stringify(seen)}`).toBe('input_required');
  const channelId = wire.sendRequestNoWait('tasks/result', { taskId });
  return { taskId, callId, channelId, channelOrigin: 'POST tasks/result (sse)', mark };
}

/**
 * The first `method` request the server sent after `started` began (tests on one wire run one at
 * a time and answer their own requests). Matching by method rather than by related-task key keeps a
 * missing key a clear assertion failure (expectDelivery) instead of a timeout.
 */
function nextInputRequest(wire: InteractiveWire, started: Started, method: string): Promise<ServerRequestEntry> {
  return wire.waitForServerRequest((r) => r.message.method === method && wire.serverRequests.indexOf(r) >= started.mark, 5_000);
}

/** The final result of the task: the tools/call response (SEP-1686) or the open tasks/result (2025-11-25). */
async function finalResponse(wire: InteractiveWire, started: Started): Promise<JSONRPCResponse> {
  return wire.responseFor(started.channelId, 10_000);
}

/** Asserts where and how the input request was delivered. */
function expectDelivery(wire: InteractiveWire, entry: ServerRequestEntry, dialect: Dialect, started: Started): void {
  const related = metaOf(entry.message.params)?.[relatedKey(dialect)];
  expect(related, `${entry.message.method} must carry _meta["${relatedKey(dialect)}"]`).toEqual({ taskId: started.taskId });
  if (wire.transport === 'http') {
    expect(entry.origin, `${entry.message.method} must travel on the ${started.channelOrigin} stream`).toBe(started.channelOrigin);
  } else {
    expect(entry.origin).toBe('stdout');
  }
}

// ---------------------------------------------------------------------------
// server bookkeeping: one server process (and client session) per describe block
// ---------------------------------------------------------------------------

function useWire(connect: ConnectInteractive, capabilities?: Rec): () => InteractiveWire {
  let pending: Promise<InteractiveWire> | undefined;
  let wire: InteractiveWire | undefined;
  let reported = 0;
  const start = (): Promise<InteractiveWire> => {
    pending ??= connect({ flags: ['--poll-frequency', String(POLL)], ...(capabilities !== undefined && { capabilities }) });
    pending.catch(() => undefined);
    return pending;
  };
  beforeAll(async () => {
    wire = await start();
  });
  afterAll(async () => {
    const w = wire ?? (await pending?.catch(() => undefined));
    await w?.close();
  });
  afterEach(() => {
    if (wire === undefined) return;
    const fresh = wire.violations.slice(reported);
    reported = wire.violations.length;
    expect(fresh, 'protocol violations seen on the wire').toEqual([]);
  });
  return () => {
    if (wire === undefined) throw new Error('server not connected');
    return wire;
  };
}

// ---------------------------------------------------------------------------
// the flows
// ---------------------------------------------------------------------------

export function defineInputRequiredFlows(name: string, connect: ConnectInteractive): void {
  describe(`input_required over ${name}`, () => {
    for (const dialect of ['sep-1686', '2025-11-25'] as const) {
      describe(`${dialect} with a client declaring elicitation + sampling`, () => {
        const server = useWire(connect);

        it('should take ask_name through input_required and back, and complete with "Hello, <name>"', async () => {
          const wire = server();
          const started = await startInputTask(wire, dialect, 'ask_name', {});
          const ask = await nextInputRequest(wire, started, 'elicitation/create');
          expectDelivery(wire, ask, dialect, started);
          const params = ask.message.params ?? {};
          expect(params['message']).toBe('What is your name?');
          expect(params['requestedSchema']).toMatchObject(ASK_NAME_SCHEMA);

          // While the elicitation is unanswered the task is input_required, and the result is not out yet.
          const waiting = await pollStatus(wire, started.taskId, (s) => s !== 'working', 'input_required', 2_000);
          expect(waiting.at(-1), `statuses before the answer: ${JSON.stringify(waiting)}`).toBe('input_required');
          const held = await sampleStatus(wire, started.taskId);
          expect(held, 'stays input_required while the elicitation is unanswered').toEqual(held.map(() => 'input_required'));
          expect(wire.responseReceived(started.channelId), 'no final result while input is pending').toBe(false);

          await wire.answer(ask.message.id, { action: 'accept', content: { name: 'Ada Lovelace' } });
          const after = await pollStatus(wire, started.taskId, (s) => s !== 'input_required', 'out of input_required', 3_000);
          expect(['working', 'completed'], `status after the answer: ${JSON.stringify(after)}`).toContain(after.at(-1));

          const result = ok(await finalResponse(wire, started));
          expect(textOf(result)).toBe('Hello, Ada Lovelace');
          expect(result['isError'] ?? false).toBe(false);
          expect(metaOf(result)?.[relatedKey(dialect)]).toEqual({ taskId: started.taskId });

          const tail = await pollStatus(wire, started.taskId, (s) => TERMINAL.includes(s), 'terminal');
          expect(tail.at(-1)).toBe('completed');
          expect(tail, 'never input_required again after the answer').not.toContain('input_required');
          // exactly one elicitation for this task
          expect(wire.serverRequests.slice(started.mark).filter((r) => r.message.method === 'elicitation/create')).toHaveLength(1);
          if (dialect === 'sep-1686') {
            // the result stays retrievable with tasks/result
            expect(textOf(ok(await wire.request('tasks/result', { taskId: started.taskId })))).toBe('Hello, Ada Lovelace');
          }
        });

        it('should end ask_name with the tool error "No name given (decline)" when the user declines', async () => {
          const wire = server();
          const started = await startInputTask(wire, dialect, 'ask_name', {});
          const ask = await nextInputRequest(wire, started, 'elicitation/create');
          await wire.answer(ask.message.id, { action: 'decline' });
          const result = ok(await finalResponse(wire, started));
          expect(textOf(result)).toBe('No name given (decline)');
          expect(result['isError']).toBe(true);
          const final = (await pollStatus(wire, started.taskId, (s) => TERMINAL.includes(s), 'terminal')).at(-1);
          // SEP-1686: a tool-level error still completes the task; 2025-11-25: isError fails it.
          expect(final).toBe(dialect === 'sep-1686' ? 'completed' : 'failed');
        });

        it("should return the requester model's text from summarize (sampling/createMessage)", async () => {
          const wire = server();
          const input = `The quick brown fox jumps over the lazy dog (${dialect}, ${wire.transport}).`;
          const started = await startInputTask(wire, dialect, 'summarize', { text: input });
          const sample = await nextInputRequest(wire, started, 'sampling/createMessage');
          expectDelivery(wire, sample, dialect, started);
          const params = sample.message.params ?? {};
          expect(JSON.stringify(params['messages'])).toContain('quick brown fox');
          expect(params['maxTokens']).toBe(200);
          const waiting = await pollStatus(wire, started.taskId, (s) => s !== 'working', 'input_required', 2_000);
          expect(waiting.at(-1)).toBe('input_required');
          expect(wire.responseReceived(started.channelId)).toBe(false);

          await wire.answer(sample.message.id, {
            role: 'assistant',
            model: 'canned-test-model',
            content: { type: 'text', text: CANNED },
            stopReason: 'endTurn',
          });
          const result = ok(await finalResponse(wire, started));
          expect(textOf(result)).toBe(CANNED);
          expect(result['isError'] ?? false).toBe(false);
          expect(metaOf(result)?.[relatedKey(dialect)]).toEqual({ taskId: started.taskId });
          expect((await pollStatus(wire, started.taskId, (s) => TERMINAL.includes(s), 'terminal')).at(-1)).toBe('completed');
        });

        it('should cancel during input_required, withdraw the elicitation, ignore a late answer and keep serving', async () => {
          const wire = server();
          const started = await startInputTask(wire, dialect, 'ask_name', {});
          const ask = await nextInputRequest(wire, started, 'elicitation/create');
          expect((await pollStatus(wire, started.taskId, (s) => s !== 'working', 'input_required', 2_000)).at(-1)).toBe('input_required');

          if (dialect === 'sep-1686') {
            // §4.8.1 / §4.8.5: notifications/cancelled for the task-augmented request's id.
            await wire.notify('notifications/cancelled', { requestId: started.callId, reason: 'user gave up' });
          } else {
            const cancelled = ok(await wire.request('tasks/cancel', { taskId: started.taskId }));
            expect(cancelled['status'], 'tasks/cancel answers with the cancelled task').toBe('cancelled');
          }
          const seen = await pollStatus(wire, started.taskId, (s) => TERMINAL.includes(s), 'cancelled', 3_000);
          expect(seen.at(-1)).toBe('cancelled');

          // The pending elicitation is withdrawn: notifications/cancelled for its request id.
          const withdrawn = await wire.waitForNotification(cancelledFor(ask.message.id), 3_000);
          expect(withdrawn.params?.['requestId']).toBe(ask.message.id);

          if (dialect === '2025-11-25') {
            // tasks/result was blocked on the task; now that it is terminal it must answer (result or error).
            const final = await wire.responseFor(started.channelId, 5_000);
            expect(final.id).toBe(started.channelId);
          }

          // A late answer is disregarded (§4.8.5): the task stays cancelled, nothing else is asked.
          const requestsBefore = wire.serverRequests.length;
          await wire.answer(ask.message.id, { action: 'accept', content: { name: 'Too Late' } });
          // Messages are handled in the order they arrive: by the time a ping sent after the late
          // answer is answered, the server has dealt with that answer.
          ok(await wire.request('ping', {}));
          expect(await status(wire, started.taskId)).toBe('cancelled');
          const tr = await wire.request('tasks/result', { taskId: started.taskId }, { timeoutMs: 5_000 });
          expect(JSON.stringify(tr), 'no result made from the late answer').not.toContain('Too Late');
          expect(wire.serverRequests.length).toBe(requestsBefore);

          // The server still serves: a plain call, and a fresh input flow on the same connection.
          const echo = ok(await wire.request('tools/call', { name: 'echo', arguments: { text: 'still here' } }));
          expect(textOf(echo)).toBe('still here');
          const next = await startInputTask(wire, dialect, 'ask_name', {});
          const nextAsk = await nextInputRequest(wire, next, 'elicitation/create');
          expectDelivery(wire, nextAsk, dialect, next);
          await wire.answer(nextAsk.message.id, { action: 'accept', content: { name: 'Grace' } });
          expect(textOf(ok(await finalResponse(wire, next)))).toBe('Hello, Grace');
        });
      });

      describe(`${dialect} with a client declaring no elicitation / sampling capability`, () => {
        const server = useWire(connect, {});

        /** Starts ask_name as a task; for 2025-11-25 also opens tasks/result, over which input would travel. */
        async function startAskName(wire: InteractiveWire): Promise<{ taskId: string; channelId: JsonRpcId; asked: () => ServerRequestEntry[] }> {
          const mark = wire.serverRequests.length;
          const asked = (): ServerRequestEntry[] => wire.serverRequests.slice(mark).filter((r) => r.message.method === 'elicitation/create');
          if (dialect === 'sep-1686') {
            // Waits for notifications/tasks/created: over HTTP a tasks/get sent at once can overtake the
            // tools/call on another connection and find no task yet.
            const { taskId, requestId } = await createSep(wire, 'ask_name', {});
            return { taskId, channelId: requestId, asked };
          }
          const created = ok(await wire.request('tools/call', { name: 'ask_name', arguments: {}, task: { ttl: 60_000 } }));
          const task = created['task'];
          if (!isRecord(task) || typeof task['taskId'] !== 'string') throw new Error(`not a CreateTaskResult: ${JSON.stringify(created)}`);
          return { taskId: task['taskId'], channelId: wire.sendRequestNoWait('tasks/result', { taskId: task['taskId'] }), asked };
        }

        it('should end ask_name failed when the elicitation cannot be done (the client refuses it)', async () => {
          const wire = server();
          const { taskId, channelId, asked } = await startAskName(wire);
          // Behaves like a client without an elicitation handler, should the request reach it at all.
          const refusing = wire
            .waitForServerRequest((r) => asked().includes(r), 5_000)
            .then((r) => wire.answerError(r.message.id, { code: -32601, message: 'Method not found' }))
            .catch(() => undefined);
          const seen = await pollStatus(wire, taskId, (s) => TERMINAL.includes(s), 'terminal', 5_000);
          expect(seen.at(-1), `statuses: ${JSON.stringify(seen)}`).toBe('failed');
          const final = await wire.responseFor(channelId, 5_000);
          expect(final.error, `the final response should be a JSON-RPC error: ${JSON.stringify(final)}`).toBeDefined();
          void refusing;
        });

        it('should not send elicitation/create to a client that did not declare the elicitation capability', async () => {
          const wire = server();
          const { taskId, channelId, asked } = await startAskName(wire);
          // This client (wrongly) answers anyway, so only the server's own capability check can keep the
          // request off the wire (MCP lifecycle: only use capabilities that were negotiated).
          const answering = wire
            .waitForServerRequest((r) => asked().includes(r), 5_000)
            .then((r) => wire.answer(r.message.id, { action: 'accept', content: { name: 'Undeclared' } }))
            .catch(() => undefined);
          const seen = await pollStatus(wire, taskId, (s) => TERMINAL.includes(s), 'terminal', 5_000);
          const final = await wire.responseFor(channelId, 5_000);
          const sent = asked();
          expect(
            { elicitationsSent: sent.length, finalStatus: seen.at(-1), finalResponse: final.error !== undefined ? 'error' : textOf(ok(final)) },
            'the client declared no elicitation capability: no elicitation/create may be sent, and the task must fail',
          ).toEqual({ elicitationsSent: 0, finalStatus: 'failed', finalResponse: 'error' });
          void answering;
        });
      });
    }
  });
}
