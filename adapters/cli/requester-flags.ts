/**
 * The flags `mcp-tasks call` and `mcp-tasks tasks` share to reach a server (`--http URL` or
 * `--stdio "COMMAND"`, `--header`, `--session-id`, `--dialect`, `--poll`), read without loading
 * an SDK (the help texts use them).
 *
 * @module
 */
import type { DialectChoice } from '../wire/task-call.types.js';

/** The `parseArgs` specs of the shared flags. */
export const CONNECTION_FLAG_SPECS = {
  http: { type: 'string' },
  stdio: { type: 'string' },
  header: { type: 'string', multiple: true },
  'session-id': { type: 'string' },
  dialect: { type: 'string' },
  poll: { type: 'string' },
} as const;

/** The help lines of the shared flags. */
export const CONNECTION_FLAGS_HELP = `  --http URL               a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp
  --stdio "COMMAND"        start the server as a child process and talk over stdio
  --header 'Name: value'   send this HTTP header with every request (repeatable), e.g.
                           --header 'Authorization: Bearer TOKEN'
  --session-id ID          with --http: join this existing MCP session (the one 'call --detach'
                           printed) instead of starting a new one
  --dialect D              auto (default: what the server declares: 2026-07-28, else 2025-11-25,
                           else sep-1686, else a plain call), sep-1686, 2025-11-25 or 2026-07-28
  --poll MS                polling interval until the server suggests one (default 500)`;

/** Where and how to reach the server, parsed from the flags. */
export interface ConnectionSettings {
  readonly target: { readonly kind: 'http'; readonly url: URL } | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] };
  readonly headers: Readonly<Record<string, string>>;
  readonly sessionId: string | undefined;
  readonly dialect: DialectChoice;
  readonly pollFrequency: number;
  /** The server as a sentence names it: its URL, or the command that starts it. */
  readonly where: string;
}

const DIALECTS: readonly DialectChoice[] = ['auto', 'sep-1686', '2025-11-25', '2026-07-28'];

/** Splits a command line on spaces, honouring simple single and double quotes. */
export function splitCommand(command: string): string[] {
  const parts = command.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  return parts.map((p) => (/^(["']).*\1$/.test(p) ? p.slice(1, -1) : p));
}

/** A usage error: exit 2, its message printed as is. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Reads the shared flags.
 *
 * @param values - `parseArgs` values holding {@link CONNECTION_FLAG_SPECS}
 * @param url - a URL given as a positional argument instead of `--http`
 * @throws UsageError naming the flag that is wrong
 * @example
 * ```ts
 * const settings = connectionSettings({ http: 'http://127.0.0.1:3000/mcp', header: ['Authorization: Bearer t'] });
 * ```
 */
export function connectionSettings(
  values: { http?: string; stdio?: string; header?: string[]; 'session-id'?: string; dialect?: string; poll?: string },
  url?: string,
): ConnectionSettings {
  const http = values.http ?? url;
  if ((http === undefined) === (values.stdio === undefined)) throw new UsageError('give the server as exactly one of --http URL (or a URL argument) and --stdio "COMMAND"');
  const dialect = (values.dialect ?? 'auto') as DialectChoice;
  if (!DIALECTS.includes(dialect)) throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got '${values.dialect}'`);
  const pollFrequency = values.poll === undefined ? 500 : Number(values.poll);
  if (!(pollFrequency > 0)) throw new UsageError(`--poll expects a positive number of ms, got '${values.poll}'`);
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon < 1) throw new UsageError(`--header expects 'Name: value', got '${header}'`);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  if (values.stdio !== undefined) {
    if (values['session-id'] !== undefined) throw new UsageError('--session-id needs --http: a stdio server has one connection, its own');
    if (values.header !== undefined) throw new UsageError('--header needs --http: stdio has no headers');
    if (dialect === '2026-07-28') throw new UsageError('--dialect 2026-07-28 needs --http: the command line speaks that wire over HTTP only');
    const [command, ...args] = splitCommand(values.stdio);
    if (!command) throw new UsageError('--stdio needs a command');
    return { target: { kind: 'stdio', command, args }, headers, sessionId: undefined, dialect, pollFrequency, where: `the server started by "${values.stdio}"` };
  }
  let parsed: URL;
  try {
    parsed = new URL(http!);
  } catch {
    throw new UsageError(`'${http}' is not a URL (e.g. http://127.0.0.1:3000/mcp)`);
  }
  return { target: { kind: 'http', url: parsed }, headers, sessionId: values['session-id'], dialect, pollFrequency, where: parsed.href };
}
