/**
 * The real `@modelcontextprotocol/sdk` Client, declaring `{ elicitation: {}, sampling: {} }` with
 * handlers for both, runs `ask_name` and `summarize` as 2025-11-25 tasks through
 * `client.experimental.tasks.callToolStream` against the server CLI, over stdio and Streamable HTTP.
 * The SDK polls tasks/get, sees input_required, calls tasks/result, and answers the input request
 * that arrives over it (spec-2025-11-25-tasks.mdx "Input Required Status").
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCustomSdkHttp, connectCustomSdkStdio, type ConnectCustomSdk, type SdkPeer } from './harness/sdk-client.js';
import type { Rec } from './harness/json.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const SEP_RELATED = 'modelcontextprotocol.io/related-task';
const CANNED = 'The canned model says: foxes jump.';
const FLAGS = ['--poll-frequency', '100'];


interface Seen {
  readonly method: string;
  readonly params: Rec;
  readonly meta: Rec | undefined;
  /** tasks/get status of the related task, asked from inside the handler (before answering). */
  readonly statusWhileAsked: string | undefined;
}

/** A client that answers elicitation with a name and sampling with a canned text, recording what it was asked. */
function inputClient(): { client: Client; seen: Seen[] } {
  const client = new Client({ name: 'sdk-input-test', version: '0.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  const seen: Seen[] = [];
  const record = async (method: string, params: Rec): Promise<void> => {
    const meta = typeof params['_meta'] === 'object' && params['_meta'] !== null ? (params['_meta'] as Rec) : undefined;
    const related = meta?.[RELATED] as { taskId?: unknown } | undefined;
    let statusWhileAsked: string | undefined;
    if (typeof related?.taskId === 'string') {
      statusWhileAsked = (await client.experimental.tasks.getTask(related.taskId)).status;
    }
    seen.push({ method, params, meta, statusWhileAsked });
  };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    await record(request.method, request.params);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    await record(request.method, request.params);
    return { role: 'assistant', model: 'canned-test-model', content: { type: 'text', text: CANNED }, stopReason: 'endTurn' };
  });
  return { client, seen };
}

interface StreamOutcome {
  created: Task | undefined;
  statuses: string[];
  result: CallToolResult | undefined;
  error: unknown;
}

async function runStream(client: Client, name: string, args: Rec): Promise<StreamOutcome> {
  const outcome: StreamOutcome = { created: undefined, statuses: [], result: undefined, error: undefined };
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
    timeout: 10_000,
    // callToolStream polls until terminal; bound it so a task that never needs input fails fast.
    signal: AbortSignal.timeout(8_000),
  });
  for await (const message of stream) {
    if (message.type === 'taskCreated') outcome.created = message.task;
    else if (message.type === 'taskStatus') outcome.statuses.push(message.task.status);
    else if (message.type === 'result') outcome.result = message.result;
    else outcome.error = message.error;
  }
  return outcome;
}

function firstText(result: CallToolResult | undefined): string | undefined {
  const first = result?.content[0];
  return first?.type === 'text' ? first.text : undefined;
}

function defineSdkInputFlows(name: string, connect: ConnectCustomSdk): void {
  describe(`SDK Client with elicitation + sampling over ${name} (2025-11-25 callToolStream)`, () => {
    const { client, seen } = inputClient();
    let peer: SdkPeer | undefined;
    let connecting: Promise<SdkPeer> | undefined;
    beforeAll(async () => {
      connecting = connect(client, FLAGS);
      peer = await connecting;
    });
    afterAll(async () => {
      await (peer ?? (await connecting?.catch(() => undefined)))?.close();
    });

    it('should complete ask_name with "Hello, Ada", answering the elicitation that came over tasks/result', async () => {
      const before = seen.length;
      const out = await runStream(client, 'ask_name', {});
      expect(out.error, `stream error: ${String(out.error)}`).toBeUndefined();
      const taskId = out.created?.taskId;
      expect(typeof taskId).toBe('string');
      expect(firstText(out.result)).toBe('Hello, Ada');
      expect(out.result?.isError ?? false).toBe(false);
      expect(out.result?._meta?.[RELATED]).toEqual({ taskId });
      expect(out.statuses, 'the SDK saw input_required before calling tasks/result').toContain('input_required');

      const asked = seen.slice(before);
      expect(asked.map((s) => s.method)).toEqual(['elicitation/create']);
      const ask = asked[0]!;
      expect(ask.params['message']).toBe('What is your name?');
      expect(ask.meta?.[RELATED], 'the elicitation carries the 2025-11-25 related-task key').toEqual({ taskId });
      expect(ask.meta?.[SEP_RELATED]).toBeUndefined();
      expect(ask.statusWhileAsked, 'tasks/get while the elicitation is unanswered').toBe('input_required');
      expect((await client.experimental.tasks.getTask(taskId!)).status).toBe('completed');
    });

    it("should complete summarize with the requester model's text, answering sampling/createMessage", async () => {
      const before = seen.length;
      const out = await runStream(client, 'summarize', { text: 'The quick brown fox jumps over the lazy dog.' });
      expect(out.error, `stream error: ${String(out.error)}`).toBeUndefined();
      const taskId = out.created?.taskId;
      expect(firstText(out.result)).toBe(CANNED);
      expect(out.statuses).toContain('input_required');
      const asked = seen.slice(before);
      expect(asked.map((s) => s.method)).toEqual(['sampling/createMessage']);
      const sample = asked[0]!;
      expect(JSON.stringify(sample.params['messages'])).toContain('quick brown fox');
      expect(sample.meta?.[RELATED], 'the sampling request carries the 2025-11-25 related-task key').toEqual({ taskId });
      expect(sample.statusWhileAsked).toBe('input_required');
      expect((await client.experimental.tasks.getTask(taskId!)).status).toBe('completed');
    });
  });
}

defineSdkInputFlows('stdio', connectCustomSdkStdio);
defineSdkInputFlows('streamable HTTP', connectCustomSdkHttp);
