/**
 * No secret leaves the process (issue 42, item 1). Two nodes run with every feature on, in one
 * NATS task space reached through a `nats://user:pass@host` URL (the credentials in it must log
 * in): an authenticated one with every token there is (`--auth-token`, `MCP_TASKS_AUTH_TOKENS`,
 * `--operator-token`, `--inspect-token`, `--inspect-operator`), OpenTelemetry, Prometheus, the
 * inspector, push and the audit log; and an anonymous one, where a session id and an anonymous
 * 2026-07-28 task id work as credentials. After a few requests (tasks on 2025-11-25 and
 * 2026-07-28, a webhook with a secret and a secret query string, a refused look-up), everything a
 * reader can get is collected: the scrape, every OTLP batch (resource, spans, metrics, logs), the
 * nodes' stderr, the inspector's API (as an operator, and as anyone on the anonymous node),
 * `mcp-tasks status --json` over NATS and HTTP, and the errors of a failing NATS login. None of
 * the secrets is in any of it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shortened } from '../../runtime/secrets.js';
import { pollUntil } from '../integration/harness/cluster.js';
import { extWire, isTerminal } from '../integration/harness/ext-wire.js';
import { inspectorUrlFrom } from '../integration/harness/inspector.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { startReceiver } from '../integration/harness/otlp-receiver.js';
import { CLI_PATH, REPO_ROOT, spawnHttpServer, spawnServe, type HttpServerProcess } from '../integration/harness/process.js';
import { metricsUrlIn } from '../integration/harness/prometheus.js';
import { startReceiver as startWebhookReceiver, statuses } from '../integration/harness/webhook-receiver.js';

/** A fresh random secret, recognisable in a failure message. */
const secret = (name: string): string => `${name}-${randomBytes(12).toString('hex')}`;

const S = {
  natsPass: secret('nats-pass'),
  authToken: secret('auth-token'),
  envAuthToken: secret('env-auth-token'),
  operatorToken: secret('operator-token'),
  inspectToken: secret('inspect-token'),
  inspectOperator: secret('inspect-operator'),
  pushSecret: secret('push-secret'),
  webhookQuery: secret('webhook-query'),
  wrongNatsPass: secret('wrong-nats-pass'),
};
const NATS_USER = 'mcp-node';
const PUSH = 'io.github.mcp-task-actors/push';
const TaskResult = z.object({ task: z.object({ taskId: z.string(), status: z.string() }) }).loose();
const TaskState = z.object({ taskId: z.string(), status: z.string() }).loose();

/** `mcp-tasks <args>` from dist/: its exit code and everything it wrote. */
function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT, timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** An SDK client of its own session, with `headers` on every request. */
async function sdkSession(url: string, headers: Record<string, string>): Promise<{ client: Client; sessionId: string; close(): Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'no-secret-leaves', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId!, close: () => client.close() };
}

/** A task-augmented `tools/call sleep` (2025-11-25), polled to its end. */
async function sleepTask(client: Client, meta: Record<string, unknown> = {}): Promise<string> {
  const created = await client.request({ method: 'tools/call', params: { name: 'sleep', arguments: { ms: 30 }, task: { ttl: 60_000 }, _meta: meta } }, TaskResult);
  const { taskId } = created.task;
  await pollUntil('the task to end', () => client.request({ method: 'tasks/get', params: { taskId } }, TaskState), (t) => t.status === 'completed');
  return taskId;
}

/** Every inspector API answer: the list, each task's detail, the cluster view, the operator view. */
async function inspectorApi(base: string, headers: Record<string, string>): Promise<string> {
  const get = async (path: string): Promise<string> => (await fetch(new URL(path, base), { headers })).text();
  const list = await get('/api/tasks');
  const keys = (JSON.parse(list) as { tasks: { key: string }[] }).tasks.map((t) => t.key);
  const details = await Promise.all(keys.map((k) => get(`/api/tasks/${encodeURIComponent(k)}`)));
  return [await get('/'), list, ...details, await get('/api/cluster'), await get('/api/operator')].join('\n');
}

describe('no secret leaves the process', () => {
  let nats: NatsServer;
  let otlp: Awaited<ReturnType<typeof startReceiver>>;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let authed: HttpServerProcess;
  let anonymous: HttpServerProcess;
  let anonymousV2: HttpServerProcess;
  let natsUrl: string;

  beforeAll(async () => {
    nats = await startNatsServer({ args: ['--user', NATS_USER, '--pass', S.natsPass] });
    natsUrl = `nats://${NATS_USER}:${S.natsPass}@127.0.0.1:${nats.port}`;
    otlp = await startReceiver();
    hooks = await startWebhookReceiver(statuses(200));
    // The nodes this file spawns inherit these (each test file runs in its own process).
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
      MCP_TASKS_AUTH_TOKENS: `${S.envAuthToken}=carol`,
    });
    authed = await spawnHttpServer([
      '--nats', natsUrl,
      '--otel',
      '--metrics-port', '0',
      '--inspect', '0',
      '--inspect-token', S.inspectToken,
      '--inspect-operator', `${S.inspectOperator}=bob`,
      '--inspect-results',
      '--auth-token', `${S.authToken}=alice`,
      '--operator-token', S.operatorToken,
      '--push-allow', `${hooks.base}/hooks/`,
      '--audit', 'stderr',
    ]);
    delete process.env['MCP_TASKS_AUTH_TOKENS'];
    // Without --auth-token: the session id and an anonymous 2026-07-28 task id are credentials.
    anonymous = await spawnHttpServer(['--nats', natsUrl, '--nats-prefix', 'anon', '--otel', '--inspect', '0', '--audit', 'stderr']);
    // SDK v2 serves 2026-07-28 through the SDK's own transport, traced apart from the dispatcher.
    anonymousV2 = await spawnHttpServer(['--sdk', 'v2', '--otel', '--audit', 'stderr']);
  }, 60_000);
  afterAll(async () => {
    await authed?.close();
    await anonymous?.close();
    await anonymousV2?.close();
    await hooks?.close();
    await otlp?.close();
    await nats?.stop();
  });

  it('should find no secret in the scrape, the OTLP batches, stderr, the inspector, status or a failed login', async () => {
    // The authenticated node: a task with a webhook (secret, secret query string), a refused look-up.
    const alice = await sdkSession(authed.url, { authorization: `Bearer ${S.authToken}` });
    const webhook = `${hooks.base}/hooks/a?key=${S.webhookQuery}`;
    const pushed = await sleepTask(alice.client, { [PUSH]: { url: webhook, secret: S.pushSecret } });
    await alice.client.request({ method: 'tasks/get', params: { taskId: 'no-such-task' } }, TaskState).catch(() => undefined);
    const carol = await sdkSession(authed.url, { authorization: `Bearer ${S.envAuthToken}` });
    await sleepTask(carol.client);
    await pollUntil('the webhook delivery', async () => hooks.requests.length, (n) => n >= 1);
    const ext = extWire(authed.url);
    const extTask = await ext.call('sleep', { ms: 20 }, { headers: { authorization: `Bearer ${S.authToken}` } });
    expect(extTask['taskId']).toEqual(expect.any(String));

    // The anonymous node: a session, and a task reachable by its id alone.
    const anon = await sdkSession(anonymous.url, {});
    const sessionTask = await sleepTask(anon.client);
    const anonExt = extWire(anonymous.url);
    const bearer = String((await anonExt.call('sleep', { ms: 20 }))['taskId']);
    await anonExt.until(bearer, isTerminal);
    const v2Ext = extWire(anonymousV2.url);
    const bearerV2 = String((await v2Ext.call('sleep', { ms: 20 }))['taskId']);
    await v2Ext.until(bearerV2, isTerminal);
    const credentials = { session: anon.sessionId, bearer, 'SDK v2 bearer': bearerV2 };

    // What a reader gets: the scrape (no auth on /metrics) …
    const metricsUrl = metricsUrlIn(authed.stderr())!;
    const scrape = await (await fetch(metricsUrl)).text();
    expect(scrape).toContain('target_info');
    // … the inspectors, as an operator on the authenticated node and as anyone on the anonymous one …
    const authedInspector = new URL(inspectorUrlFrom(authed.stderr())!).origin;
    const inspectorAsOperator = [
      await inspectorApi(authedInspector, { authorization: `Bearer ${S.inspectToken}` }),
      await inspectorApi(authedInspector, { authorization: `Bearer ${S.inspectOperator}` }),
    ].join('\n');
    expect(inspectorAsOperator).toContain(pushed);
    const inspectorAnonymous = await inspectorApi(new URL(inspectorUrlFrom(anonymous.stderr())!).href, {});
    // … `mcp-tasks status`, over NATS (credentials in the URL) and over HTTP …
    const statusRuns = [
      await cli(['status', '--nats', natsUrl, '--json']),
      await cli(['status', '--nats', natsUrl, '--nats-prefix', 'anon', '--json']),
      await cli(['status', '--http', authed.url, '--operator-token', S.operatorToken, '--json']),
      await cli(['status', '--nats', natsUrl]),
    ];
    for (const run of statusRuns.slice(0, 3)) expect(run.code, run.stderr).toBe(0);
    // … and what a failing NATS login says, from status and from serve.
    const wrongUrl = `nats://${NATS_USER}:${S.wrongNatsPass}@127.0.0.1:${nats.port}`;
    const failedStatus = await cli(['status', '--nats', wrongUrl, '--json']);
    const failedServe = spawnServe(['--http', '0', '--nats', wrongUrl]);
    const failedCode = await new Promise<number | null>((resolve) => failedServe.child.once('exit', resolve));
    expect(failedCode).not.toBe(0);
    expect(`${failedStatus.stdout}${failedStatus.stderr}`).toMatch(/Authorization Violation/i);
    expect(failedServe.tail.toString()).toMatch(/Authorization Violation/i);

    // The OTLP batches: spans of both nodes, metrics of the anonymous one (the authenticated one's
    // go to its Prometheus reader), all flushed by a SIGTERM.
    await pollUntil('spans of both nodes', async () => otlp.spans, (spans) => [authed.pid, anonymous.pid, anonymousV2.pid].every((pid) => spans.some((s) => s.resource['process.pid'] === pid)), { timeoutMs: 15_000 });
    await alice.close();
    await carol.close();
    await anon.close();
    await authed.close();
    await anonymous.close();
    await anonymousV2.close();
    const batches = otlp.bodies.map((b) => b.text).join('\n');
    expect(otlp.bodies.some((b) => b.path === '/v1/metrics')).toBe(true);

    // The process's identity is there, its command line is not.
    const resource = otlp.spans.find((s) => s.resource['process.pid'] === authed.pid)!.resource;
    expect(resource).toMatchObject({ 'service.name': 'mcp-tasks', 'service.version': '0.1.0', 'process.runtime.name': 'nodejs' });
    expect(Object.keys(resource).filter((k) => /command|executable/.test(k))).toEqual([]);
    // On the anonymous node spans name the session and the bearer task, shortened.
    const anonSpans = otlp.spans.filter((s) => s.resource['process.pid'] === anonymous.pid);
    expect(anonSpans.some((s) => s.attributes['mcp.session.id'] === shortened(credentials.session))).toBe(true);
    expect(anonSpans.some((s) => s.attributes['mcp_task_actors.task.id'] === shortened(bearer))).toBe(true);
    expect(anonSpans.some((s) => s.attributes['mcp_task_actors.task.id'] === sessionTask)).toBe(true);
    const v2Spans = otlp.spans.filter((s) => s.resource['process.pid'] === anonymousV2.pid);
    expect(v2Spans.some((s) => s.attributes['mcp_task_actors.task.id'] === shortened(bearerV2))).toBe(true);

    const everything: Record<string, string> = {
      scrape,
      otlp: batches,
      'authenticated stderr': authed.stderr(),
      'anonymous stderr': anonymous.stderr(),
      'anonymous SDK v2 stderr': anonymousV2.stderr(),
      'inspector (operator)': inspectorAsOperator,
      'inspector (anonymous node)': inspectorAnonymous,
      status: statusRuns.map((r) => `${r.stdout}\n${r.stderr}`).join('\n'),
      'failed login (status)': `${failedStatus.stdout}\n${failedStatus.stderr}`,
      'failed login (serve)': failedServe.tail.toString(),
    };
    const leaks: string[] = [];
    for (const [where, text] of Object.entries(everything)) {
      for (const [name, value] of Object.entries(S)) if (text.includes(value)) leaks.push(`${name} in ${where}`);
      for (const [name, value] of Object.entries(credentials)) if (text.includes(value)) leaks.push(`the anonymous node's ${name} id in ${where}`);
    }
    expect(leaks).toEqual([]);
  }, 90_000);
});
