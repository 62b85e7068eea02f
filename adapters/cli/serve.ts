/**
 * `mcp-tasks serve`: the demo server on the embedded (in-memory) backend, over stdio or
 * Streamable HTTP.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { createTaskRuntime, type TaskRuntimeOptions } from '../../runtime/index.js';
import { createTaskServer } from '../mcp-server/index.js';
import { demoDefinitions } from './demo-tools.js';
import { startHttpEndpoint } from './http-endpoint.js';
import { log } from './log.js';
import { JsonRpcStdioTransport } from './stdio-transport.js';

/** Help text of `mcp-tasks serve`. */
export const SERVE_HELP = `Usage: mcp-tasks serve (--stdio | --http PORT) [options]

Serves the demo tools (sleep, long_job, fail, echo, ask_name, summarize), the prompt "greeting" and the resource
"demo://report" as an MCP server whose requests may run as tasks (SEP-1686 and 2025-11-25).

Transport (one of):
  --stdio                    JSON-RPC over stdin/stdout (logs go to stderr)
  --http PORT                Streamable HTTP at http://HOST:PORT/mcp (PORT 0 picks a free port)
  --host HOST                address to bind with --http (default 127.0.0.1)
  --session-idle-timeout MS  close an HTTP session after this long without a request (default 3600000)

Tasks:
  --default-keep-alive MS    retention after a task ends when the requester asks none (default 300000)
  --max-keep-alive MS        the receiver's maximum keepAlive; 'unlimited' allows any (default 3600000)
  --poll-frequency MS        suggested polling interval reported to requesters (default 1000)
  --page-size N              tasks per tasks/list page (default 20)

  -h, --help                 show this help
`;

function number(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} expects a non-negative number, got '${value}'`);
  return n;
}

/**
 * Runs `serve` with the given arguments until the process is stopped.
 *
 * @param argv - arguments after `serve`
 * @throws Error for unknown or malformed options
 * @example
 * ```ts
 * await serve(['--http', '3000']);
 * ```
 */
export async function serve(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'string' },
      host: { type: 'string' },
      'default-keep-alive': { type: 'string' },
      'max-keep-alive': { type: 'string' },
      'poll-frequency': { type: 'string' },
      'page-size': { type: 'string' },
      'session-idle-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  if (values.stdio === (values.http !== undefined)) throw new Error('serve needs exactly one of --stdio or --http PORT');

  const runtimeOptions: TaskRuntimeOptions = {};
  const defaultKeepAlive = number('default-keep-alive', values['default-keep-alive']);
  if (defaultKeepAlive !== undefined) runtimeOptions.defaultKeepAlive = defaultKeepAlive;
  const maxKeepAlive = values['max-keep-alive'];
  if (maxKeepAlive !== undefined) {
    runtimeOptions.maxKeepAlive = maxKeepAlive === 'unlimited' ? null : number('max-keep-alive', maxKeepAlive)!;
  }
  const pollFrequency = number('poll-frequency', values['poll-frequency']);
  if (pollFrequency !== undefined) runtimeOptions.pollFrequency = pollFrequency;
  const pageSize = number('page-size', values['page-size']);
  if (pageSize !== undefined) runtimeOptions.pageSize = pageSize;

  const runtime = createTaskRuntime(runtimeOptions);
  const info = { name: 'mcp-tasks', version: '0.1.0' };
  const makeServer = () => createTaskServer(info, { runtime, ...demoDefinitions });

  if (values.stdio) {
    const server = makeServer();
    server.onerror = (error) => log('warn', 'protocol error', { error: String(error) });
    const transport = new JsonRpcStdioTransport();
    transport.onclose = () => void runtime.dispose().then(() => process.exit(0));
    process.stdin.on('end', () => void runtime.dispose().then(() => process.exit(0)));
    await server.connect(transport);
    log('info', 'mcp-tasks serving MCP on stdio', { backend: 'memory' });
    return;
  }

  const port = number('http', values.http)!;
  const sessionIdleMs = number('session-idle-timeout', values['session-idle-timeout']);
  const endpoint = await startHttpEndpoint({
    port,
    ...(values.host !== undefined && { host: values.host }),
    ...(sessionIdleMs !== undefined && { sessionIdleMs }),
    createServer: makeServer,
  });
  log('info', `mcp-tasks serving MCP (Streamable HTTP) at ${endpoint.url}`, { url: endpoint.url, backend: 'memory' });
  const stop = (): void => {
    void endpoint.close().then(() => runtime.dispose()).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
