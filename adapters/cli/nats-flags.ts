/**
 * NATS connection and layout options from command-line flags and the environment (flags win),
 * shared by `serve` and `status`.
 *
 * @module
 */
import { natsUrlCredentials, type NatsConnectionOptions } from '../../runtime/backends/nats/connection.js';

/** The `parseArgs` option specs of every NATS flag. */
export const NATS_FLAG_SPECS = {
  nats: { type: 'string' },
  'nats-token': { type: 'string' },
  'nats-user': { type: 'string' },
  'nats-pass': { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-ca': { type: 'string' },
  'nats-cert': { type: 'string' },
  'nats-key': { type: 'string' },
  'nats-prefix': { type: 'string' },
  'nats-replicas': { type: 'string' },
} as const;

/** Help lines of the NATS flags. */
export const NATS_FLAGS_HELP = `NATS (env var in brackets; the flag wins):
  --nats URL[,URL...]        NATS server(s); nats://USER:PASS@HOST or nats://TOKEN@HOST logs in with
                             those (never printed) [MCP_TASKS_NATS_URL]
  --nats-token TOKEN         token authentication [MCP_TASKS_NATS_TOKEN]
  --nats-user USER           user/password authentication [MCP_TASKS_NATS_USER]
  --nats-pass PASS           [MCP_TASKS_NATS_PASS]
  --nats-creds FILE          credentials file (JWT + nkey) [MCP_TASKS_NATS_CREDS]
  --nats-ca FILE             CA certificate to verify the server (TLS) [MCP_TASKS_NATS_CA]
  --nats-cert FILE           client certificate (mutual TLS) [MCP_TASKS_NATS_CERT]
  --nats-key FILE            client key (mutual TLS) [MCP_TASKS_NATS_KEY]
  --nats-prefix P            subject prefix and stream/bucket name stem (default tasks) [MCP_TASKS_NATS_PREFIX]
  --nats-replicas N          replicas of every stream and bucket: 1, 3 or 5 (default 1) [MCP_TASKS_NATS_REPLICAS]
`;

type NatsFlagValues = { readonly [K in keyof typeof NATS_FLAG_SPECS]?: string | undefined };

/** Connection and layout taken from flags and environment. */
export interface NatsSettings {
  readonly connection: NatsConnectionOptions;
  readonly prefix: string;
  readonly replicas: number;
}

/**
 * Reads the NATS settings, or `null` when no server is named (the memory backend).
 *
 * @param values - parsed flags
 * @param env - the environment
 * @throws Error for a malformed replica count
 * @example
 * ```ts
 * const nats = natsSettings(values, process.env);
 * if (nats) runtime = await createNatsTaskRuntime({ nats: nats.connection, prefix: nats.prefix });
 * ```
 */
export function natsSettings(values: NatsFlagValues, env: NodeJS.ProcessEnv): NatsSettings | null {
  const pick = (flag: keyof typeof NATS_FLAG_SPECS, variable: string): string | undefined => {
    const v = values[flag] ?? env[variable];
    return v === undefined || v === '' ? undefined : v;
  };
  const url = pick('nats', 'MCP_TASKS_NATS_URL');
  if (url === undefined) return null;
  // Credentials written into a URL log in (unless given apart) and are never printed: the
  // settings carry the servers without them.
  const inUrl = natsUrlCredentials(url.split(',').map((u) => u.trim()).filter((u) => u !== ''));
  const connection: { -readonly [K in keyof NatsConnectionOptions]: NatsConnectionOptions[K] } = { servers: inUrl.servers };
  const given = { token: pick('nats-token', 'MCP_TASKS_NATS_TOKEN'), user: pick('nats-user', 'MCP_TASKS_NATS_USER'), pass: pick('nats-pass', 'MCP_TASKS_NATS_PASS') };
  const apart = given.token !== undefined || given.user !== undefined || given.pass !== undefined;
  const { token, user, pass } = apart ? given : inUrl;
  const creds = pick('nats-creds', 'MCP_TASKS_NATS_CREDS');
  const ca = pick('nats-ca', 'MCP_TASKS_NATS_CA');
  const cert = pick('nats-cert', 'MCP_TASKS_NATS_CERT');
  const key = pick('nats-key', 'MCP_TASKS_NATS_KEY');
  if (token !== undefined) connection.token = token;
  if (user !== undefined) connection.user = user;
  if (pass !== undefined) connection.pass = pass;
  if (creds !== undefined) connection.credsFile = creds;
  if (ca !== undefined || cert !== undefined || key !== undefined) {
    connection.tls = { ...(ca !== undefined && { caFile: ca }), ...(cert !== undefined && { certFile: cert }), ...(key !== undefined && { keyFile: key }) };
  }
  const replicasText = pick('nats-replicas', 'MCP_TASKS_NATS_REPLICAS') ?? '1';
  const replicas = Number(replicasText);
  if (![1, 3, 5].includes(replicas)) throw new Error(`--nats-replicas expects 1, 3 or 5, got '${replicasText}'`);
  return { connection, prefix: pick('nats-prefix', 'MCP_TASKS_NATS_PREFIX') ?? 'tasks', replicas };
}
