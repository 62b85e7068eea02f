/**
 * `--inspect PORT [--inspect-host HOST] [--inspect-token T] [--inspect-results]
 * [--inspect-operator TOKEN=NAME]… [--inspect-max-streams N]` of `mcp-tasks serve`: the inspector web page beside the
 * server, whatever its transport or backend.
 *
 * @module
 */
import type { StatusSource } from '../http/status-endpoint.js';
import { parseAuthTokens } from '../http/auth.js';
import type { Logger } from '../../runtime/logger.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { validOperators } from '../inspector/access.js';
import { attachInspector, DEFAULT_MAX_STREAMS } from '../inspector/attach-inspector.js';
import type { Inspector } from '../inspector/inspector.types.js';
import { cliLogger, log } from '../log.js';

/** The `parseArgs` option specs of the inspector flags. */
export const INSPECT_FLAG_SPECS = {
  inspect: { type: 'string' },
  'inspect-host': { type: 'string' },
  'inspect-token': { type: 'string' },
  'inspect-results': { type: 'boolean' },
  'inspect-operator': { type: 'string', multiple: true },
  'inspect-max-streams': { type: 'string' },
} as const;

/**
 * Help lines of the inspector flags, for `SERVE_HELP`.
 *
 * @example
 * ```ts
 * const help = `Inspector:\n${INSPECT_FLAGS_HELP}`;
 * ```
 */
export const INSPECT_FLAGS_HELP = `Inspector (a web page of every task, live; with --nats, the whole cluster's):
  --inspect PORT             serve it at http://HOST:PORT/ (PORT 0 picks a free port)
  --inspect-host HOST        address to bind (default 127.0.0.1); any other than loopback needs the token
  --inspect-token T          the token requests must carry (?token= or Authorization: Bearer); generated
                             and printed when bound off loopback without one [MCP_TASKS_INSPECT_TOKEN]
  --inspect-results          also show what tasks produced (results, the questions asked); by default
                             only metadata
  --inspect-operator TOKEN=NAME
                             an operator who may cancel any task from the page, with 'Authorization:
                             Bearer TOKEN' (also grants reading); each action is audited with NAME.
                             Repeatable [MCP_TASKS_INSPECT_OPERATORS=TOKEN=NAME,...]. Default none:
                             the page offers no action
  --inspect-max-streams N    most live pages (event streams) served at once; one more gets 503 with
                             Retry-After (default ${DEFAULT_MAX_STREAMS})`;

type InspectFlagValues = {
  readonly inspect?: string | undefined;
  readonly 'inspect-host'?: string | undefined;
  readonly 'inspect-token'?: string | undefined;
  readonly 'inspect-results'?: boolean | undefined;
  readonly 'inspect-operator'?: readonly string[] | undefined;
  readonly 'inspect-max-streams'?: string | undefined;
};

/** What the node gives the inspector beside its runtime. */
export interface InspectorWiring {
  /** Makes where the cluster view reads (NATS: the task space's status); the process's runtime without. */
  readonly status?: (() => StatusSource) | undefined;
  /** The node's audit logger (`--audit`); without, operator actions go to the CLI's log. */
  readonly audit?: Logger | null | undefined;
  /** The requesters' tokens (`--auth-token`): no inspector token may be one of them. */
  readonly requesterTokens?: Readonly<Record<string, string>> | undefined;
  /** Browser origins besides the inspector's own page an action may come from (`--allowed-origin`). */
  readonly allowedOrigins?: readonly string[] | undefined;
}


/**
 * Starts the inspector when `--inspect` is given, and logs where it is (with a generated token in
 * the URL: the operator must be able to open it; a token the operator gave is never logged).
 *
 * @param runtime - the served runtime; call this before any task is created, so that every
 *   task's timeline is complete
 * @param values - the parsed flags
 * @param env - the environment (`MCP_TASKS_INSPECT_TOKEN`, `MCP_TASKS_INSPECT_OPERATORS`)
 * @param wiring - the cluster status source and the audit logger of the node
 * @returns the inspector, or `undefined` without `--inspect`
 * @throws Error for a bad port, a bad operator, a bad `--inspect-max-streams`, inspector flags without `--inspect`, or a port in use
 * @example
 * ```ts
 * const inspector = await startInspector(runtime, values, process.env, { audit: runtimeOptions.audit?.logger });
 * // on shutdown
 * await inspector?.close();
 * ```
 */
export async function startInspector(runtime: TaskRuntime, values: InspectFlagValues, env: NodeJS.ProcessEnv, wiring: InspectorWiring = {}): Promise<Inspector | undefined> {
  if (values.inspect === undefined) {
    const stray = (['inspect-host', 'inspect-token', 'inspect-results', 'inspect-operator', 'inspect-max-streams'] as const).find((f) => values[f] !== undefined);
    if (stray) throw new Error(`--${stray} needs --inspect PORT`);
    return undefined;
  }
  // Number('') is 0 (any free port): an empty value is a mistake, not a choice.
  const port = values.inspect.trim() === '' ? Number.NaN : Number(values.inspect);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--inspect expects a port number, got '${values.inspect}'`);
  const maxStreams = values['inspect-max-streams'] === undefined ? undefined : Number(values['inspect-max-streams']);
  if (maxStreams !== undefined && !(Number.isInteger(maxStreams) && maxStreams >= 1)) {
    throw new Error(`--inspect-max-streams expects a whole number of at least 1, got '${values['inspect-max-streams']}'`);
  }
  const token = values['inspect-token'] ?? env['MCP_TASKS_INSPECT_TOKEN'];
  const operators = parseAuthTokens(values['inspect-operator'] ?? [], env['MCP_TASKS_INSPECT_OPERATORS'], { name: '--inspect-operator', shape: 'TOKEN=NAME', env: 'MCP_TASKS_INSPECT_OPERATORS' });
  try {
    validOperators(operators, token);
  } catch (error) {
    throw new Error(`--inspect-operator: ${(error as Error).message}`);
  }
  // A requester holding an inspector token would read every task, or act on them: never the same.
  const requesters = wiring.requesterTokens ?? {};
  if (token !== undefined && Object.hasOwn(requesters, token)) throw new Error('--inspect-token must differ from every --auth-token: a requester would read every task');
  if (Object.keys(operators).some((t) => Object.hasOwn(requesters, t))) throw new Error('--inspect-operator: a token must differ from every --auth-token: a requester is not an operator');
  const inspector = await attachInspector(runtime, {
    port,
    ...(values['inspect-host'] !== undefined && { host: values['inspect-host'] }),
    ...(token !== undefined && { token }),
    showResults: values['inspect-results'] === true,
    operators,
    // Operator actions are always written somewhere: with `--audit off` (or none), to the CLI's own log.
    audit: wiring.audit ?? cliLogger,
    logger: cliLogger,
    ...(wiring.status && { status: wiring.status() }),
    ...(maxStreams !== undefined && { maxStreams }),
    ...(wiring.allowedOrigins !== undefined && wiring.allowedOrigins.length > 0 && { allowedOrigins: wiring.allowedOrigins }),
  });
  const operatorNames = [...new Set(Object.values(operators))];
  // A generated token is logged in the URL (the operator has no other way to learn it); a token the
  // operator gave is not: logs are shipped and kept where a secret should not be.
  const url = token === undefined ? inspector.url : inspector.url.replace(/\?token=[^#]*$/, '');
  log('info', `inspector at ${url}`, { url, tokenRequired: inspector.token !== null, tokenGiven: token !== undefined, results: values['inspect-results'] === true, operators: operatorNames });
  return inspector;
}
