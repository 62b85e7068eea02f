/**
 * Connecting a node to NATS: fail fast (with the URLs in the error) when no server answers at
 * start-up, but once connected, reconnect forever, because a node that gave up on NATS after a
 * server restart would silently stop serving its tasks.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { urlCredentials } from '../../secrets.js';
import { NatsUnavailableError } from './errors.js';

/** TLS settings of a NATS connection (file paths or PEM text). */
export interface NatsTlsOptions {
  /** CA certificate file (PEM) to verify the server with. */
  readonly caFile?: string;
  /** Client certificate file (PEM), for mutual TLS. */
  readonly certFile?: string;
  /** Client key file (PEM), for mutual TLS. */
  readonly keyFile?: string;
  /**
   * Verify the server certificate.
   * @default true
   */
  readonly rejectUnauthorized?: boolean;
  /**
   * Start TLS before the NATS INFO exchange (the server must set `handshake_first`).
   * @default false
   */
  readonly handshakeFirst?: boolean;
}

/** Options of {@link connectNats}. */
export interface NatsConnectionOptions {
  /**
   * One or more server URLs (`nats://host:port`, `tls://host:port`). Credentials written into a
   * URL (`nats://user:pass@host`, `nats://token@host`) log in when no `token`/`user`/`pass` is
   * given, and are never printed.
   * @default 'nats://127.0.0.1:4222'
   */
  readonly servers?: string | readonly string[];
  /** Client name shown in server monitoring. @default 'mcp-task-actors' */
  readonly name?: string;
  /** Token authentication. */
  readonly token?: string;
  /** User for user/password authentication (with {@link NatsConnectionOptions.pass}). */
  readonly user?: string;
  /** Password for user/password authentication. */
  readonly pass?: string;
  /** Path of a `.creds` file (JWT + nkey seed) for decentralized authentication. */
  readonly credsFile?: string;
  /** TLS settings; when set, the connection requires TLS. */
  readonly tls?: NatsTlsOptions;
  /**
   * Milliseconds to wait for the first connection (TCP + handshake) per server.
   * @default 5000
   */
  readonly connectTimeoutMs?: number;
  /**
   * Milliseconds between reconnect attempts after a connection loss.
   * @default 1000
   */
  readonly reconnectTimeWaitMs?: number;
}

/** {@link NatsConnectionOptions} with every default applied. */
export interface ResolvedNatsConnectionOptions {
  readonly servers: readonly string[];
  readonly name: string;
  readonly connectTimeoutMs: number;
  readonly reconnectTimeWaitMs: number;
  readonly token: string | undefined;
  readonly user: string | undefined;
  readonly pass: string | undefined;
  readonly credsFile: string | undefined;
  readonly tls: NatsTlsOptions | undefined;
}

/**
 * Applies defaults to {@link NatsConnectionOptions}.
 *
 * @param options - the caller's options
 * @example
 * ```ts
 * resolveNatsConnectionOptions({}).servers; // ['nats://127.0.0.1:4222']
 * ```
 */
export function resolveNatsConnectionOptions(options: NatsConnectionOptions = {}): ResolvedNatsConnectionOptions {
  const given = options.servers === undefined ? ['nats://127.0.0.1:4222'] : typeof options.servers === 'string' ? [options.servers] : [...options.servers];
  const { servers, token, user, pass } = natsUrlCredentials(given);
  // Options given apart win over credentials written into a URL.
  const explicit = options.token !== undefined || options.user !== undefined || options.pass !== undefined;
  return {
    servers,
    name: options.name ?? 'mcp-task-actors',
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    reconnectTimeWaitMs: options.reconnectTimeWaitMs ?? 1_000,
    token: explicit ? options.token : token,
    user: explicit ? options.user : user,
    pass: explicit ? options.pass : pass,
    credsFile: options.credsFile,
    tls: options.tls,
  };
}

/**
 * Server URLs without the credentials written into them (`nats://user:pass@host`,
 * `nats://token@host`), and those credentials (the first URL's that has any): the client ignores
 * them in a URL, and every error and log line names the servers, so they are taken out and used
 * as the connection's user and password, or token.
 *
 * @example
 * ```ts
 * natsUrlCredentials(['nats://alice:s3cret@10.0.0.1:4222']); // { servers: ['nats://10.0.0.1:4222'], user: 'alice', pass: 's3cret', token: undefined }
 * ```
 */
export function natsUrlCredentials(urls: readonly string[]): { servers: string[]; token: string | undefined; user: string | undefined; pass: string | undefined } {
  let found: { token?: string; user?: string; pass?: string } | undefined;
  const servers = urls.map((u) => {
    const { url, ...credentials } = urlCredentials(u);
    if (found === undefined && Object.keys(credentials).length > 0) found = credentials;
    return url;
  });
  return { servers, token: found?.token, user: found?.user, pass: found?.pass };
}

/** Maps resolved options onto the client's own option object. */
async function toClientOptions(o: ResolvedNatsConnectionOptions): Promise<NodeConnectionOptions> {
  const opts: NodeConnectionOptions = {
    servers: [...o.servers],
    name: o.name,
    timeout: o.connectTimeoutMs,
    // The first connect is tried once per server and fails fast; after that, never give up.
    waitOnFirstConnect: false,
    maxReconnectAttempts: -1,
    reconnectTimeWait: o.reconnectTimeWaitMs,
    // An Error (with its stack) built per request for async traces costs ~30% of a node's CPU.
    noAsyncTraces: true,
  };
  if (o.token !== undefined) opts.token = o.token;
  if (o.user !== undefined) opts.user = o.user;
  if (o.pass !== undefined) opts.pass = o.pass;
  if (o.credsFile !== undefined) opts.authenticator = credsAuthenticator(await readFile(o.credsFile));
  if (o.tls !== undefined) {
    const tls: NonNullable<NodeConnectionOptions['tls']> = {};
    if (o.tls.caFile !== undefined) tls.caFile = o.tls.caFile;
    if (o.tls.certFile !== undefined) tls.certFile = o.tls.certFile;
    if (o.tls.keyFile !== undefined) tls.keyFile = o.tls.keyFile;
    if (o.tls.rejectUnauthorized !== undefined) tls.rejectUnauthorized = o.tls.rejectUnauthorized;
    if (o.tls.handshakeFirst !== undefined) tls.handshakeFirst = o.tls.handshakeFirst;
    opts.tls = tls;
  }
  return opts;
}

/**
 * Connects to NATS. The first connection fails fast; a later loss is retried forever.
 *
 * @param options - servers, credentials, TLS and timeouts
 * @returns the live connection (close it with `drain()` or `close()`)
 * @throws {@link NatsUnavailableError} naming the URL(s) when no server answers within the
 *   connect timeout, or the handshake or authentication fails (the client's error is the `cause`)
 * @example
 * ```ts
 * const nc = await connectNats({ servers: ['nats://10.0.0.1:4222', 'nats://10.0.0.2:4222'], token: 's3cret' });
 * try { … } finally { await nc.drain(); }
 * ```
 */
export async function connectNats(options: NatsConnectionOptions = {}): Promise<NatsConnection> {
  const resolved = resolveNatsConnectionOptions(options);
  let clientOptions: NodeConnectionOptions;
  try {
    clientOptions = await toClientOptions(resolved);
  } catch (e) {
    throw new NatsUnavailableError(resolved.servers, `cannot read credentials: ${messageOf(e)}`, { cause: e });
  }
  try {
    return await connect(clientOptions);
  } catch (e) {
    throw new NatsUnavailableError(resolved.servers, messageOf(e), { cause: e });
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
