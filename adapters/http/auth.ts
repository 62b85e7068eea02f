/**
 * Who sends an HTTP request: the principal that tasks and sessions are bound to (SEP-1686 §8.1).
 * Without an authenticator every request is anonymous and a task is bound to its session alone.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { HttpAuthenticator } from './http.types.js';

export type { HttpAuthenticator } from './http.types.js';

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * An authenticator for static bearer tokens, each naming its principal.
 *
 * Tokens are kept as SHA-256 digests, so a memory dump does not reveal them and the look-up does
 * not compare secrets character by character.
 *
 * @param tokens - token → principal
 * @throws Error for an empty token or principal
 * @example
 * ```ts
 * const authenticate = bearerTokens({ 's3cret-a': 'alice', 's3cret-b': 'bob' });
 * await startHttpEndpoint({ port: 3000, authenticate, createServer });
 * ```
 */
export function bearerTokens(tokens: Readonly<Record<string, string>>): HttpAuthenticator {
  const principals = new Map<string, string>();
  for (const [token, principal] of Object.entries(tokens)) {
    if (token === '' || principal === '') throw new Error('a bearer token and its principal must both be non-empty');
    principals.set(digest(token), principal);
  }
  return (req) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const principal = match ? principals.get(digest(match[1]!)) : undefined;
    return principal === undefined ? undefined : { token: match![1]!, clientId: principal, scopes: [] };
  };
}

/**
 * Reads `TOKEN=PRINCIPAL` pairs from `--auth-token` flags and the comma-separated
 * `MCP_TASKS_AUTH_TOKENS` variable (or any flag of the same shape, named in the errors:
 * `--inspect-operator TOKEN=NAME`).
 *
 * @param flag - the flag the errors name, with the shape of its value, and the variable named for a pair that came from it
 * @throws Error for a pair without `=`, an empty side, or one token given twice
 * @example
 * ```ts
 * parseAuthTokens(['s3cret-a=alice'], 's3cret-b=bob'); // { 's3cret-a': 'alice', 's3cret-b': 'bob' }
 * ```
 */
export function parseAuthTokens(
  flags: readonly string[],
  env: string | undefined,
  flag: { readonly name: string; readonly shape: string; readonly env?: string } = { name: '--auth-token', shape: 'TOKEN=PRINCIPAL', env: 'MCP_TASKS_AUTH_TOKENS' },
): Record<string, string> {
  const tokens: Record<string, string> = {};
  // Each pair with where it came from: an error names the flag or the variable the operator wrote.
  const pairs = [...flags.map((pair) => ({ pair, from: flag.name })), ...(env ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '').map((pair) => ({ pair, from: flag.env ?? flag.name }))];
  for (const { pair, from } of pairs) {
    const at = pair.lastIndexOf('=');
    const token = pair.slice(0, at);
    const principal = pair.slice(at + 1);
    if (at <= 0 || principal === '') throw new Error(`${from} expects ${flag.shape}, got '${pair.replace(/.(?=.{4})/g, '*')}'`);
    if (Object.hasOwn(tokens, token)) throw new Error(`${from}: one token is given twice`);
    tokens[token] = principal;
  }
  return tokens;
}
