/**
 * Session records shared by every node of a task space: a Streamable HTTP session begun on one
 * node (its `Mcp-Session-Id`, the client's capabilities) is known to all, so behind a load
 * balancer any node accepts the session's next request and scopes tasks to it as the first did.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { chunkBytesFor, eraseChunked, getChunked, putChunked } from './chunked-kv.js';
import { bucketStream } from './erase.js';
import { hashToken, nameFromPrefix } from './keys.js';
import { FrameAssembler, publishFramed } from './relay-frames.js';
import { StoreUnavailableError } from '../../errors.js';
import { STORE_RETRY_AFTER_MS } from '../../core/store-outage.js';
import { isNatsTransient } from './transient.js';

/**
 * A directory of sessions: what an HTTP endpoint needs to share its sessions.
 *
 * @typeParam T - the JSON record kept per session
 */
export interface SessionDirectory<T = unknown> {
  /** Records a new session (before its first reply, so no other node can miss it). */
  remember(sessionId: string, record: T): Promise<void>;
  /** The session's record, or `null` when no node began it (or it was closed). */
  recall(sessionId: string): Promise<T | null>;
  /** Forgets a session closed by its client. */
  forget(sessionId: string): Promise<void>;
  /**
   * Passes a client message this node cannot place (an answer to another node's request, a
   * cancel of another node's request) to every other node serving the session.
   */
  relay?(sessionId: string, message: unknown): void;
  /** Receives messages other nodes relayed; returns the unsubscribe. */
  onRelay?(handler: (sessionId: string, message: unknown) => void): () => void;
}

/**
 * Opens the `<prefix>_sessions` bucket as a {@link SessionDirectory}.
 *
 * @param nc - a connection
 * @param layout - prefix, replicas, storage of the task space
 * @example
 * ```ts
 * const sessions = await openSessionStore(runtime.connection, { prefix: 'tasks', replicas: 1, storage: 'file' });
 * await startHttpEndpoint({ port: 3000, sessions, createServer });
 * ```
 */
export async function openSessionStore<T = unknown>(
  nc: NatsConnection,
  layout: { readonly prefix: string; readonly replicas: number; readonly storage: 'file' | 'memory' },
): Promise<SessionDirectory<T>> {
  const kv: KV = await ensureBucket(nc, `${nameFromPrefix(layout.prefix)}_sessions`, {
    history: 1,
    replicas: layout.replicas,
    storage: layout.storage,
    allow_direct: false,
  });
  const sessions = bucketStream(`${nameFromPrefix(layout.prefix)}_sessions`);
  const jsm = await jetstreamManager(nc);
  const subject = `${layout.prefix}.sessions.relay`;
  const self = randomUUID();
  // A record holds the client's initialize capabilities and info: as large as a request body.
  const chunkBytes = chunkBytesFor(nc.info?.max_payload);
  return {
    relay(sessionId, message) {
      // Any size the endpoint took (an answer of megabytes): framed past one message.
      publishFramed(nc, subject, Buffer.from(JSON.stringify({ from: self, sessionId, message }), 'utf8'));
    },
    onRelay(handler) {
      const frames = new FrameAssembler();
      const sub = nc.subscribe(subject, {
        callback: (error, msg) => {
          if (error) return;
          const whole = frames.take(msg);
          if (whole === null) return;
          try {
            const relayed = JSON.parse(Buffer.from(whole).toString('utf8')) as { from: string; sessionId: string; message: unknown };
            if (relayed.from !== self && typeof relayed.sessionId === 'string') handler(relayed.sessionId, relayed.message);
          } catch {
            // not a relay envelope
          }
        },
      });
      return () => {
        sub.unsubscribe();
        frames.clear();
      };
    },
    async remember(sessionId, record) {
      await outageTold(() => putChunked(kv, hashToken(sessionId), JSON.stringify({ sessionId, record }), chunkBytes));
    },
    async recall(sessionId) {
      const json = await outageTold(() => getChunked(kv, hashToken(sessionId)));
      if (json === null) return null;
      const stored = JSON.parse(json) as { sessionId: string; record: T };
      // The key is a hash: compare the id itself, so no collision can ever join two sessions.
      return stored.sessionId === sessionId ? stored.record : null;
    },
    async forget(sessionId) {
      // Not a KV purge: its marker would stay in the stream for every session ever closed.
      await outageTold(() => eraseChunked(jsm, sessions, hashToken(sessionId)));
    },
  };
}

/**
 * A directory call that NATS could not answer (a timeout, a lost connection: the backend's own
 * list) becomes the runtime's `StoreUnavailableError`, which every HTTP front answers 503 with
 * -32031 and a retry hint, as a task call in the same outage gets; anything else stays as it is.
 */
async function outageTold<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isNatsTransient(error)) throw new StoreUnavailableError(STORE_RETRY_AFTER_MS, { cause: error });
    throw error;
  }
}
