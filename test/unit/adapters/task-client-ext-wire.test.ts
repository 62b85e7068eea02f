/**
 * The requester's 2026-07-28 wire: the flat task it reads (`pollIntervalMs`, `ttlMs`, a JSON-RPC
 * `error` object, `inputRequests`), the envelope every request carries, and how a server's
 * JSON-RPC error comes back (with its code). A recording dispatch stands in for the network here;
 * the integration test `task-client-v2-ext` runs the same code against real servers.
 */
import { describe, expect, it } from 'vitest';
import { ExtensionPeer, RawRpcError, type RawDispatch } from '../../../adapters/wire/task-client.ext-peer.js';
import { TaskWire, toRequesterTask } from '../../../adapters/wire/task-client.wire.js';

describe('toRequesterTask on 2026-07-28 tasks', () => {
  it('reads pollIntervalMs, ttlMs and the message of a JSON-RPC error', () => {
    const task = toRequesterTask({ taskId: 't1', status: 'failed', pollIntervalMs: 250, ttlMs: 60_000, error: { code: -32603, message: 'rate limited' } });
    expect(task).toEqual({ taskId: 't1', status: 'failed', statusMessage: null, pollFrequency: 250, retention: 60_000, error: 'rate limited' });
  });

  it('keeps the input requests of an input_required task, and refuses one without a method', () => {
    const asked = { k1: { method: 'elicitation/create', params: { message: 'Name?' } } };
    expect(toRequesterTask({ taskId: 't1', status: 'input_required', inputRequests: asked }).inputRequests).toEqual(asked);
    expect(toRequesterTask({ taskId: 't1', status: 'working', inputRequests: asked })).not.toHaveProperty('inputRequests');
    expect(() => toRequesterTask({ taskId: 't1', status: 'input_required', inputRequests: { k1: { params: {} } } })).toThrow(/Input request 'k1'/);
  });
});

describe('ExtensionPeer and TaskWire on 2026-07-28', () => {
  function recording(answers: Record<string, Awaited<ReturnType<RawDispatch>>>) {
    const sent: { method: string; params?: Record<string, unknown> }[] = [];
    const dispatch: RawDispatch = async (request) => {
      sent.push(request);
      const answer = answers[request.method];
      if (answer === undefined) throw new Error(`unexpected ${request.method}`);
      return answer;
    };
    return { sent, dispatch };
  }
  const framing = { clientInfo: { name: 'agent', version: '2.0.0' }, clientCapabilities: { elicitation: {} } };

  it('frames every request with the version, client info and capabilities, the tasks extension declared', async () => {
    const { sent, dispatch } = recording({ 'tasks/get': { kind: 'result', result: { resultType: 'complete', taskId: 't1', status: 'working' } } });
    await new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28').getTask('t1');
    expect(sent[0]?.params).toEqual({
      taskId: 't1',
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '2.0.0' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    });
  });

  it('throws a server error with its JSON-RPC code', async () => {
    const { dispatch } = recording({ 'tasks/get': { kind: 'error', error: { code: -32602, message: 'Task not found' } } });
    const error = await new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28').getTask('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RawRpcError);
    expect(error).toMatchObject({ code: -32602, message: 'tasks/get: Task not found' });
  });

  it('sends the handler answers in one tasks/update, keyed as asked', async () => {
    const { sent, dispatch } = recording({ 'tasks/update': { kind: 'result', result: { resultType: 'complete' } } });
    const wire = new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28', async (request, { key }) => ({ action: 'accept', content: { key, method: request.method } }));
    const keys = await wire.answerInput('t1', { a: { method: 'elicitation/create' }, b: { method: 'elicitation/create' } }, new AbortController().signal);
    expect(keys).toEqual(['a', 'b']);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.params?.['inputResponses']).toEqual({
      a: { action: 'accept', content: { key: 'a', method: 'elicitation/create' } },
      b: { action: 'accept', content: { key: 'b', method: 'elicitation/create' } },
    });
  });

  it('gives up on a call that keeps asking for input before it decides, after a bounded number of rounds', async () => {
    const asking = { kind: 'result' as const, result: { resultType: 'input_required', inputRequests: { k: { method: 'elicitation/create', params: {} } } } };
    const { sent, dispatch } = recording({ 'tools/call': asking });
    const wire = new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28', async () => ({ action: 'decline' }));
    const error = await wire.callExt({ name: 'loop' }, new AbortController().signal, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'request_failed', message: expect.stringMatching(/still asked for input after 8 rounds/) });
    expect(sent).toHaveLength(8);
    expect(sent[1]?.params?.['inputResponses']).toEqual({ k: { action: 'decline' } });
  });

  it('stops a round before any task once the requester stops asking, even when the handler ignores its signal', async () => {
    const asking = { kind: 'result' as const, result: { resultType: 'input_required', inputRequests: { k: { method: 'elicitation/create', params: {} } } } };
    const { sent, dispatch } = recording({ 'tools/call': asking });
    const stop = new AbortController();
    const deaf = new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28', () => (stop.abort(), new Promise<never>(() => undefined)));
    await expect(deaf.callExt({ name: 'ask' }, new AbortController().signal, stop.signal)).rejects.toMatchObject({ code: 'aborted' });
    expect(sent).toHaveLength(1);
  });

  it('reports a handler that throws as input_failed, naming the request', async () => {
    const asking = { kind: 'result' as const, result: { resultType: 'input_required', inputRequests: { k: { method: 'elicitation/create', params: {} } } } };
    const { dispatch } = recording({ 'tools/call': asking });
    const wire = new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28', () => Promise.reject(new Error('user closed the dialog')));
    await expect(wire.callExt({ name: 'ask' }, new AbortController().signal, new AbortController().signal)).rejects.toMatchObject({
      code: 'input_failed',
      message: "onInputRequest failed on 'k' (elicitation/create): user closed the dialog",
    });
  });

  it('reads a completed task result from tasks/get, without the discriminator, and a cancel from the task after it', async () => {
    const { sent, dispatch } = recording({
      'tasks/get': { kind: 'result', result: { resultType: 'complete', taskId: 't1', status: 'completed', result: { resultType: 'complete', content: [] } } },
      'tasks/cancel': { kind: 'result', result: { resultType: 'complete' } },
    });
    const wire = new TaskWire(new ExtensionPeer(dispatch, framing), '2026-07-28');
    await expect(wire.getResult('t1', new AbortController().signal)).resolves.toEqual({ content: [] });
    await expect(wire.cancelTask('t1')).resolves.toMatchObject({ status: 'completed' });
    expect(sent.map((r) => r.method)).toEqual(['tasks/get', 'tasks/cancel', 'tasks/get']);
  });
});
