/**
 * A node's NATS connection, as its log tells it: one `warn` when the connection drops and one
 * `info` when it is back, each naming the server without credentials. Between the two the node
 * reconnects by itself (see `connection.ts`); its waits ride the outage out and its requesters
 * are told the task store is unavailable.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { NodeLog } from './task-space.js';

/**
 * `server` as a log line may print it: no `user:pass@` (or token) before the host, no query or
 * fragment after it (where a URL may carry a secret).
 *
 * @param server - a server URL or `host:port`, as given or as nats.js reports it
 * @example
 * ```ts
 * serverForLog('nats://alice:s3cret@10.0.0.1:4222?x=1'); // 'nats://10.0.0.1:4222'
 * ```
 */
export function serverForLog(server: string): string {
  return server.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, '$1').replace(/[?#].*$/, '');
}

/**
 * Logs the drops and returns of `nc` until the returned function is called (or the connection
 * closes).
 *
 * @param nc - the node's connection
 * @param log - the node's log
 * @returns a function that stops following
 * @example
 * ```ts
 * const stop = logConnection(nc, log);
 * // … 'NATS connection lost' (warn), later 'NATS connection back' (info)
 * stop();
 * ```
 */
export function logConnection(nc: NatsConnection, log: NodeLog): () => void {
  const statuses = nc.status() as AsyncIterable<{ readonly type: string; readonly server?: string }> & { stop?: () => void };
  let lostAt: number | null = null;
  void (async () => {
    try {
      for await (const status of statuses) {
        if (status.type === 'disconnect' && lostAt === null) {
          lostAt = Date.now();
          log('warn', 'NATS connection lost: reconnecting; the task store is unavailable meanwhile', { server: serverForLog(status.server ?? '') });
        } else if (status.type === 'reconnect' && lostAt !== null) {
          log('info', 'NATS connection back', { server: serverForLog(status.server ?? ''), downMs: Date.now() - lostAt });
          lostAt = null;
        }
      }
    } catch {
      // The connection closed: nothing more to follow.
    }
  })();
  return () => statuses.stop?.();
}
