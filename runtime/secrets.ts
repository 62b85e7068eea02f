/**
 * What is secret in a node, in one place, and the helpers that keep it in the process. Everything
 * that prints or exports (log lines, the audit log, spans and their resource, `/metrics`, the
 * inspector, `mcp-tasks status`, error messages) takes secrets through these helpers:
 *
 * - the values of the flags and variables in {@link SECRET_SETTINGS} (tokens, passwords);
 * - credentials written into a URL (`nats://user:pass@host`) and a URL's query string (a webhook
 *   receiver's secret often rides there): {@link redactedUrl};
 * - push secrets (never printed at all: nothing here shows them, nothing needs to);
 * - session ids: whoever presents one is that session's requester when no principal is bound, so
 *   outside the process a session id is only ever shown {@link shortened} ({@link shownSession});
 * - ids of tasks that belong to no requester (anonymous 2026-07-28 tasks): the id is a bearer
 *   handle, so it is shown shortened too ({@link shownTaskId}).
 *
 * The shortened form is the inspector's: the first 8 characters and an ellipsis, enough to tell
 * values apart and match them with each other across spans, logs and the page, not enough to use.
 *
 * @module
 */
import type { TaskOwner } from '../machines/index.js';
import { ANONYMOUS_OWNER } from './task-identity.js';

/**
 * The command-line flags whose values are secrets, with the `MCP_TASKS_*` variable each also reads.
 * Telemetry never exports the command line (see `serve --otel`), and nothing logs these values.
 *
 * @example
 * ```ts
 * const flags = SECRET_SETTINGS.map((s) => s.flag); // ['--auth-token', …]
 * ```
 */
export const SECRET_SETTINGS: readonly { readonly flag: string; readonly env: string }[] = Object.freeze([
  { flag: '--auth-token', env: 'MCP_TASKS_AUTH_TOKENS' },
  { flag: '--operator-token', env: 'MCP_TASKS_OPERATOR_TOKEN' },
  { flag: '--inspect-token', env: 'MCP_TASKS_INSPECT_TOKEN' },
  { flag: '--inspect-operator', env: 'MCP_TASKS_INSPECT_OPERATORS' },
  { flag: '--nats-token', env: 'MCP_TASKS_NATS_TOKEN' },
  { flag: '--nats-pass', env: 'MCP_TASKS_NATS_PASS' },
  // The URL itself is not secret, but credentials may be written into it.
  { flag: '--nats', env: 'MCP_TASKS_NATS_URL' },
]);

/** Characters of a shortened value that stay visible. */
const SHOWN = 8;

/**
 * A credential-equivalent value, shortened: its first characters and an ellipsis (a value of 8
 * characters or fewer shows none of them).
 *
 * @example
 * ```ts
 * shortened('6f1c2a9b-0d4e-4c1f-9a7b-3e2d1c0b9a88'); // '6f1c2a9b…'
 * ```
 */
export function shortened(value: string): string {
  return value.length <= SHOWN ? '…' : `${value.slice(0, SHOWN)}…`;
}

/**
 * Whether tasks of `owner` are reachable by their id alone (the anonymous 2026-07-28 requester):
 * their ids are bearer handles.
 *
 * @example
 * ```ts
 * bearerOwner(ANONYMOUS_OWNER); // true
 * bearerOwner({ session: 's1', principal: null }); // false
 * ```
 */
export function bearerOwner(owner: TaskOwner): boolean {
  return owner.session === ANONYMOUS_OWNER.session && owner.principal === null;
}

/**
 * A task id as it may leave the process: shortened when it is a bearer handle, else as it is.
 *
 * @example
 * ```ts
 * log('info', 'task end', { taskId: shownTaskId(record.context.taskId, record.context.owner) });
 * ```
 */
export function shownTaskId(taskId: string, owner: TaskOwner): string {
  return bearerOwner(owner) ? shortened(taskId) : taskId;
}

/**
 * A session id as it may leave the process: always shortened. Without a principal it is the
 * requester's only credential; with one it opens nothing alone, but telemetry and logs do not
 * know which, and the shortened form matches the inspector's. The anonymous 2026-07-28 owner's
 * session (a fixed label, no id) and `null` stay as they are.
 *
 * @example
 * ```ts
 * shownSession('6f1c2a9b-0d4e-4c1f-9a7b-3e2d1c0b9a88'); // '6f1c2a9b…'
 * shownSession(null); // null
 * ```
 */
export function shownSession<S extends string | null | undefined>(session: S): S {
  if (session === null || session === undefined || session === ANONYMOUS_OWNER.session) return session;
  return shortened(session) as S;
}

/**
 * Credentials written into a URL's userinfo: `user:pass@` gives a user and a password,
 * `token@` (no password) a token, as NATS reads them. Percent-escapes are decoded.
 *
 * @returns the URL without its userinfo, and what it carried
 * @example
 * ```ts
 * urlCredentials('nats://alice:s3cret@10.0.0.1:4222'); // { url: 'nats://10.0.0.1:4222', user: 'alice', pass: 's3cret' }
 * urlCredentials('nats://t0ken@10.0.0.1:4222'); // { url: 'nats://10.0.0.1:4222', token: 't0ken' }
 * ```
 */
export function urlCredentials(url: string): { url: string; user?: string; pass?: string; token?: string } {
  // Up to the last `@` of the authority: a password may hold an unencoded `@` (`p@ss`).
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@(.*)$/is.exec(url);
  if (match === null) return { url };
  const [, scheme, userinfo, rest] = match as unknown as [string, string, string, string];
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const colon = userinfo.indexOf(':');
  const stripped = `${scheme}${rest}`;
  if (colon < 0) return userinfo === '' ? { url: stripped } : { url: stripped, token: decode(userinfo) };
  return { url: stripped, user: decode(userinfo.slice(0, colon)), pass: decode(userinfo.slice(colon + 1)) };
}

/**
 * A URL as it may be printed: without userinfo (credentials), and with its query string and
 * fragment replaced by `?…` / `#…` (a webhook receiver's secret often rides in the query).
 * Text that is no URL is shown {@link shortened}.
 *
 * @example
 * ```ts
 * redactedUrl('https://u:p@hooks.example.com/t?sig=abc'); // 'https://hooks.example.com/t?…'
 * redactedUrl('nats://alice:s3cret@10.0.0.1:4222'); // 'nats://10.0.0.1:4222'
 * ```
 */
export function redactedUrl(url: string): string {
  const { url: bare } = urlCredentials(url);
  const query = bare.search(/[?#]/);
  if (/^[a-z][a-z0-9+.-]*:\/\/[^\s]*$/is.test(bare)) {
    if (query < 0) return bare;
    return `${bare.slice(0, query)}${bare[query] === '?' ? '?…' : '#…'}`;
  }
  return shortened(url);
}
