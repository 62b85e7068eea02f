/**
 * One logger for the library: both runtimes (memory, and NATS on a real nats-server) and the HTTP
 * endpoint write their lines to the `logger` they are given, the audit through the same one when
 * it names no other, and without a logger the library writes nothing to the process's stderr
 * (library code runs in the embedder's process: its stderr is not the library's).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { echoTool } from '../../adapters/cli/demo-tools.js';
import { createHttpHandler, startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';
import { createTaskRuntime, type TaskRuntime, type TaskRuntimeOptions } from '../../runtime/index.js';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { capturingLogger, type CapturedLine } from '../fixtures/capturing-logger.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { pollUntil } from './harness/cluster.js';
import { shortened } from '../../runtime/secrets.js';

const owner = { session: 's1', principal: 'alice' };

/** What the process's stderr was given while `run` ran. */
async function stderrDuring(run: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written;
}

/** Creates a task of the `quick` handler, retained `keepAlive` ms once it ends. */
const createOne = (runtime: TaskRuntime, taskId: string, keepAlive = 60_000): Promise<unknown> =>
  runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler: 'quick', params: {}, keepAlive });

/** A task that runs to `completed`. */
async function runOne(runtime: TaskRuntime, taskId: string): Promise<void> {
  await createOne(runtime, taskId);
  expect((await runtime.waitForOutcome(taskId, owner)).task.status).toBe('completed');
}

const messages = (lines: readonly CapturedLine[], taskId: string): string[] => lines.filter((l) => l.fields['taskId'] === taskId).map((l) => l.message);

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } } });
const post = (url: string): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: initialize });

describe('the memory runtime with a logger', () => {
  let runtime: TaskRuntime | undefined;
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
  });
  const start = (options: TaskRuntimeOptions): TaskRuntime => {
    runtime = createTaskRuntime(options);
    runtime.registerHandler('quick', async () => ({ ok: true }));
    return runtime;
  };

  it('should log a task\'s run, end and expiry to it, as a NATS worker does, naming the node', async () => {
    const logger = capturingLogger();
    // Retained 1 ms: it expires within the test (its outcome is not read: it may be gone by then).
    await createOne(start({ logger }), 't1', 1);
    await pollUntil('the expiry line', async () => messages(logger.lines, 't1'), (m) => m.includes('task expired'));
    expect(messages(logger.lines, 't1')).toEqual(['task run', 'task end', 'task expired']);
    expect(logger.lines.find((l) => l.message === 'task end')).toMatchObject({ level: 'info', fields: { node: 'local', status: 'completed', attempt: 1 } });
  });

  it('should write the audit through the same logger when the audit names none, apart with its own, and none with null', async () => {
    const logger = capturingLogger();
    await runOne(start({ logger, audit: { node: 'api-1' } }), 't1');
    expect(logger.lines.filter((l) => l.fields['event'] === 'task.created')).toEqual([
      expect.objectContaining({ level: 'info', message: 'task.created', fields: expect.objectContaining({ taskId: 't1', node: 'api-1', session: shortened('s1') }) }),
    ]);
    await runtime!.dispose();

    const node = capturingLogger();
    const apart = capturingLogger();
    await runOne(start({ logger: node, audit: { logger: apart } }), 't2');
    expect(apart.lines.map((l) => l.message)).toContain('task.created');
    expect(node.lines.filter((l) => 'event' in l.fields)).toEqual([]);
    expect(node.lines.map((l) => l.message)).toContain('task end');
    await runtime!.dispose();

    const quiet = capturingLogger();
    const counted = start({ logger: quiet, audit: { logger: null } });
    await runOne(counted, 't3');
    await expect(counted.get('nope', owner)).rejects.toThrow();
    expect(counted.security().totals.failedLookups).toBe(1);
    expect(quiet.lines.filter((l) => 'event' in l.fields)).toEqual([]);
  });

  it('should write nothing to stderr without a logger, audit on', async () => {
    const written = await stderrDuring(async () => {
      const r = start({ audit: {} });
      await runOne(r, 't1');
      await expect(r.get('nope', owner)).rejects.toThrow();
    });
    expect(written).toEqual([]);
  });
});

describe('the NATS runtime with a logger (real nats-server)', () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('should log its node lines to it, and nothing to stderr without one', async () => {
    const logger = capturingLogger();
    const logged = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix: 'logged', nodeId: 'logged-1', logger, audit: {} });
    try {
      logged.registerHandler('quick', async () => ({ ok: true }));
      await runOne(logged, 't1');
      await pollUntil('the task end line', async () => messages(logger.lines, 't1'), (m) => m.includes('task end'));
      expect(logger.lines.find((l) => l.message === 'task end' && l.fields['taskId'] === 't1')).toMatchObject({ level: 'info', fields: { node: 'logged-1', status: 'completed' } });
      // The audit, naming no logger of its own, through the runtime's.
      expect(logger.lines.find((l) => l.fields['event'] === 'task.created')).toMatchObject({ fields: { taskId: 't1', node: 'logged-1' } });
    } finally {
      await logged.dispose();
    }

    const written = await stderrDuring(async () => {
      const silent = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix: 'silent', nodeId: 'silent-1', audit: {} });
      try {
        silent.registerHandler('quick', async () => ({ ok: true }));
        await runOne(silent, 't1');
        await expect(silent.get('nope', owner)).rejects.toThrow();
      } finally {
        await silent.dispose();
      }
    });
    expect(written).toEqual([]);
  });
});

describe('startHttpEndpoint and createHttpHandler with a logger', () => {
  let endpoint: HttpEndpoint | undefined;
  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
  });
  const failing = (): never => {
    throw new Error('boom in createServer');
  };

  it('should log the path of a failed request without its query (a read token may ride there)', async () => {
    const logger = capturingLogger();
    endpoint = await startHttpEndpoint({ port: 0, createServer: failing, logger });
    expect((await post(`${endpoint.url}?token=s3cret-read-token`)).status).toBe(500);
    expect(logger.lines.map((l) => l.fields['target'])).toEqual(['/mcp?…']);
    expect(JSON.stringify(logger.lines)).not.toContain('s3cret-read-token');
  });

  it('should log a request that failed with 500 to it', async () => {
    const logger = capturingLogger();
    endpoint = await startHttpEndpoint({ port: 0, createServer: failing, logger });
    const res = await post(endpoint.url);
    expect(res.status).toBe(500);
    expect(logger.lines).toEqual([
      { level: 'error', message: 'http request failed', fields: expect.objectContaining({ front: 'mcp', method: 'POST', target: '/mcp', error: 'boom in createServer' }) },
    ]);
  });

  it('should answer 500 and write nothing to stderr without one, on either entry point', async () => {
    const written = await stderrDuring(async () => {
      endpoint = await startHttpEndpoint({ port: 0, createServer: failing });
      expect((await post(endpoint.url)).status).toBe(500);
      const handler = await createHttpHandler({ createServer: failing });
      const { createServer } = await import('node:http');
      const server = createServer((req, res) => void handler(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as { port: number };
        expect((await post(`http://127.0.0.1:${port}/mcp`)).status).toBe(500);
      } finally {
        await handler.close();
        server.close();
      }
    });
    expect(written).toEqual([]);
  });

  it('should serve as before with a logger that writes nothing for a good request', async () => {
    const logger = capturingLogger();
    const runtime = createTaskRuntime();
    endpoint = await startHttpEndpoint({ port: 0, createServer: () => createTaskServer({ name: 't', version: '0' }, { runtime, tools: [echoTool] }), logger });
    const res = await post(endpoint.url);
    expect(res.status).toBe(200);
    await res.text();
    expect(logger.lines).toEqual([]);
    await runtime.dispose();
  });
});
