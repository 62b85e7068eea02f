/**
 * Raw HTTP requests of a 2025-11-25 session (initialize, a request in a session, DELETE) from a
 * chosen loopback address (another peer), for the tests of the per-requester session share.
 */
import { request } from 'node:http';
import { expect } from 'vitest';

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

/** What a raw request got: status, `Retry-After`, the session id given, the body as text. */
export interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly sessionId: string | undefined;
  readonly body: string;
}

/**
 * One HTTP request from `from` (a loopback address of its own: another peer), with a bearer token if given:
 * an `initialize` unless `method` or `body` says otherwise.
 *
 * @example
 * ```ts
 * const { sessionId } = await send(url, { from: '127.0.0.2' });
 * ```
 */
export function send(url: string, o: { method?: string; from?: string; token?: string; sessionId?: string; body?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  if (o.token) headers['authorization'] = `Bearer ${o.token}`;
  if (o.sessionId) headers['mcp-session-id'] = o.sessionId;
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'POST', headers, localAddress: o.from ?? '127.0.0.1' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const id = res.headers['mcp-session-id'];
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], sessionId: Array.isArray(id) ? id[0] : id, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body ?? (o.method === undefined ? INITIALIZE : undefined));
  });
}

/**
 * A 2025-11-25 `initialize`, from `from`, with a token if given.
 *
 * @example
 * ```ts
 * expect((await initialize(url, { token: 'token-a' })).status).toBe(200);
 * ```
 */
export const initialize = (url: string, o: { from?: string; token?: string } = {}): Promise<Answer> => send(url, o);

/**
 * Asserts that `answer` is the refusal of a requester past `maxSessionsPerRequester`.
 *
 * @example
 * ```ts
 * expectRefusedForShare(await initialize(url));
 * ```
 */
export function expectRefusedForShare(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toBe('60');
  const { error } = JSON.parse(answer.body) as { error: { code: number; message: string; data: unknown } };
  expect(error.code).toBe(-32029);
  expect(error.message).toContain('maxSessionsPerRequester');
  expect(error.message).toContain('--max-sessions-per-requester');
  expect(error.data).toEqual({ limit: 'maxSessionsPerRequester', retryAfterMs: 60_000 });
}

