/**
 * A hostile (or broken) MCP server over Streamable HTTP, in the test's own process, for the
 * command line's tests: it speaks just enough 2025-11-25 (`initialize`, `tools/list`,
 * task-augmented `tools/call`, `tasks/get`, `tasks/result`, plain calls answered as an event
 * stream with progress) to be followed by `mcp-tasks call`, and puts terminal escape sequences
 * in everything it sends; it may suggest absurd poll intervals, answer about another task, flood
 * progress, or refuse every request with 401.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Every sequence a server could use on a terminal: CSI (clear the screen, move the cursor), OSC
 * 52 (write the clipboard), OSC 0 (set the title), OSC 8 (a link), DCS, BEL, CR, and the C1 forms
 * of CSI and OSC, DEL, a newline that forges a stderr line, and U+2028.
 */
export const HOSTILE =
  'x\x1b[2J\x1b[H\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1bPq#0;2;0;0;0\x1b\\\x07\r' +
  '\u009b2J\u009d0;c1-title\u009c\u007f\nmcp-tasks call: task t1 ended completed\u2028end';

/** How the server misbehaves. */
export interface HostileOptions {
  /** The id of the task `tools/call` creates. @default a hostile id with ESC, a newline and U+2028 */
  readonly taskId?: string;
  /** The poll interval every task answer suggests, ms. @default 50 */
  readonly pollInterval?: number;
  /** The id `tasks/get` answers with (another task than the one asked). @default the id asked */
  readonly answerTaskId?: string;
  /** `tasks/get` answers `completed` from this poll on (1-based); `Infinity` keeps the task working. @default 2 */
  readonly completeAtPoll?: number;
  /** Progress notifications the plain tool `flood` sends before its result. @default 0 */
  readonly flood?: number;
  /** Refuses every request with this HTTP status and a JSON-RPC error body. */
  readonly refuse?: 401 | 403;
}

/** A running hostile server. */
export interface HostileServer {
  readonly url: string;
  /** The times (`Date.now()`) of every `tasks/get`. */
  readonly polls: number[];
  /** Resolves with the time (`Date.now()`) the first task was created (`tools/call` of `task`). */
  readonly created: Promise<number>;
  /** Resolves once the `flood` tool's answer is written out (its last byte handed to the socket). */
  readonly flooded: Promise<void>;
  close(): Promise<void>;
}

type Message = { jsonrpc: '2.0'; id?: string | number; method: string; params?: Record<string, unknown> };

const DEFAULT_TASK_ID = 'task\x1b[31m-1\nmcp-tasks call: forged line\u2028';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

// What `GET /status` of `mcp-tasks serve` answers, with hostile names in it.
function statusReport(taskId: string): Record<string, unknown> {
  const node = { nodeId: `node ${HOSTILE}`, role: 'both', host: `host ${HOSTILE}`, pid: 1, security: null, up: true, lastSeen: 0, tasksRun: 1, running: 1, handlers: [`tool ${HOSTILE}`] };
  return { nodes: [node], leases: [{ taskKey: taskId, nodeId: node.nodeId, expiresAt: 0, expired: false }], durable: [], counts: { [`working${HOSTILE}`]: 1 } };
}

/**
 * Starts the hostile server on a free loopback port.
 *
 * @example
 * ```ts
 * const server = await startHostileServer({ pollInterval: 1e-9 });
 * try { await runCall([server.url, 'task']); } finally { await server.close(); }
 * ```
 */
export async function startHostileServer(options: HostileOptions = {}): Promise<HostileServer> {
  const taskId = options.taskId ?? DEFAULT_TASK_ID;
  const polls: number[] = [];
  let createdAt!: (at: number) => void;
  const created = new Promise<number>((resolve) => (createdAt = resolve));
  let floodDone!: () => void;
  const flooded = new Promise<void>((resolve) => (floodDone = resolve));
  const task = (status: string, id = taskId): Record<string, unknown> => ({
    taskId: id,
    status,
    statusMessage: status === 'completed' ? null : `working ${HOSTILE}`,
    pollInterval: options.pollInterval ?? 50,
    ttl: 60_000,
    createdAt: new Date(0).toISOString(),
    lastUpdatedAt: new Date().toISOString(),
  });

  const answer = (message: Message, res: ServerResponse): void => {
    const reply = (result: unknown): void => json(res, 200, { jsonrpc: '2.0', id: message.id, result });
    const params = message.params ?? {};
    switch (message.method) {
      case 'initialize':
        return reply({
          protocolVersion: '2025-11-25',
          capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
          serverInfo: { name: 'hostile', version: '0.0.1' },
        });
      case 'tools/list':
        return reply({
          tools: [
            { name: 'task', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
            { name: 'plain', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
            { name: 'flood', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
            { name: 'boom', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
          ],
        });
      case 'tools/call': {
        if (params['name'] === 'task') {
          createdAt(Date.now());
          return reply({ task: task('working') });
        }
        if (params['name'] === 'boom') return json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `bad arguments ${HOSTILE}` } });
        // A plain call answered as an event stream: progress (hostile, or a flood), then the result.
        const token = (params['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
        const count = params['name'] === 'flood' ? (options.flood ?? 0) : 3;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        let sent = 0;
        const pump = (): void => {
          while (sent < count) {
            sent++;
            const message = sent === count ? 'last of the flood' : `${params['name'] === 'flood' ? 'flood' : HOSTILE} ${sent}`;
            const note = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: sent, total: count, message } };
            if (!res.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`)) return void res.once('drain', pump);
          }
          const result = { content: [{ type: 'text', text: `result ${HOSTILE}` }], structuredContent: { said: HOSTILE } };
          res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`, () => {
            if (params['name'] === 'flood') floodDone();
          });
        };
        return pump();
      }
      case 'tasks/get': {
        polls.push(Date.now());
        const done = polls.length >= (options.completeAtPoll ?? 2);
        return reply(task(done ? 'completed' : 'working', options.answerTaskId ?? String(params['taskId'])));
      }
      case 'tasks/list':
        return reply({ tasks: [task('working')] });
      case 'tasks/result':
        return reply({ content: [{ type: 'text', text: `result ${HOSTILE}` }], structuredContent: { said: HOSTILE } });
      default:
        return json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no ${message.method}` } });
    }
  };

  const server = createServer((req, res) => {
    void (async () => {
      if (options.refuse !== undefined) {
        return json(res, options.refuse, { jsonrpc: '2.0', error: { code: -32001, message: `Unauthorized ${HOSTILE}` }, id: null });
      }
      if (req.method === 'GET' && req.url === '/status') return json(res, 200, statusReport(taskId));
      // No standalone stream: the SDK takes 405 as "this server has none".
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(await readBody(req)) as Message;
      if (message.id === undefined) return void res.writeHead(202).end();
      answer(message, res);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    polls,
    created,
    flooded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
