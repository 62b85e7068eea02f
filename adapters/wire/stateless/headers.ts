/**
 * SEP-2243 routing headers: `Mcp-Method` names the method and `Mcp-Name` its target (tool name,
 * resource uri, task id), so that gateways can route without reading bodies. A server checks that
 * they tell the truth, or a gateway and the server would act on different requests.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import { RequestMetaKey, StatelessCode, StatelessError } from './wire.js';

/** Request headers as Node gives them (lower-cased names). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The body field `Mcp-Name` must mirror, per method. */
function nameField(method: string): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel') return 'taskId';
  return undefined;
}

/** A header value with optional whitespace trimmed, `=?base64?…?=` decoded (for non-ASCII names). */
function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined) return undefined;
  const encoded = /^=\?base64\?(.*)\?=$/i.exec(value);
  return encoded ? Buffer.from(encoded[1] ?? '', 'base64').toString('utf8') : value;
}

/**
 * Checks `Mcp-Method` and `Mcp-Name` against the body (case-sensitive), and `MCP-Protocol-Version`
 * against the version in `_meta` when both are sent (they must name the same version, or the
 * transport and the server would speak different protocols).
 *
 * @throws StatelessError -32020 (HTTP 400) when a header is missing or disagrees with the body
 * @example
 * ```ts
 * checkRoutingHeaders({ 'mcp-method': 'tasks/get', 'mcp-name': 't1' }, 'tasks/get', { taskId: 't1' }); // ok
 * ```
 */
export function checkRoutingHeaders(headers: RequestHeaders, method: string, params: Record<string, unknown>): void {
  const sentMethod = headerValue(headers, 'mcp-method');
  if (sentMethod !== method) {
    const shown = sentMethod === undefined ? 'missing' : `'${sentMethod}'`;
    throw new StatelessError(StatelessCode.headerMismatch, `Header mismatch: Mcp-Method ${shown} != method '${method}'`, 400);
  }
  const sentVersion = headerValue(headers, 'mcp-protocol-version');
  const metaVersion = (params['_meta'] as Record<string, unknown> | undefined)?.[RequestMetaKey.protocolVersion];
  if (sentVersion !== undefined && typeof metaVersion === 'string' && sentVersion !== metaVersion) {
    throw new StatelessError(StatelessCode.headerMismatch, `Header mismatch: MCP-Protocol-Version '${sentVersion}' != _meta protocol version '${metaVersion}'`, 400);
  }
  const field = nameField(method);
  const target = field === undefined ? undefined : params[field];
  if (field === undefined || typeof target !== 'string') return;
  const sentName = headerValue(headers, 'mcp-name');
  if (sentName !== target) {
    const shown = sentName === undefined ? 'missing' : `'${sentName}'`;
    throw new StatelessError(StatelessCode.headerMismatch, `Header mismatch: Mcp-Name ${shown} != params.${field} '${target}'`, 400);
  }
}
