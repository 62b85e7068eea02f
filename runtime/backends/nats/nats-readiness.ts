/**
 * Whether a NATS node can take work (its readiness probe): connected to a server, and the task
 * space's streams and buckets there. The connection is followed through its status events (a
 * probe must answer at once, not wait for a request to time out); the streams are listed at most
 * once per `STREAMS_TTL_MS`, bounded by `STREAMS_TIMEOUT_MS`.
 *
 * @module
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { nameFromPrefix } from './keys.js';

/** How long a listing of the streams is trusted. */
const STREAMS_TTL_MS = 1_000;

/** How long a listing may take before the probe says JetStream did not answer. */
const STREAMS_TIMEOUT_MS = 1_500;

/**
 * Follows one node's connection and the task space's streams.
 *
 * @example
 * ```ts
 * const readiness = await NatsReadiness.start(nc, 'tasks');
 * await readiness.reasons(); // [] when ready
 * readiness.close();
 * ```
 */
export class NatsReadiness {
  readonly #nc: NatsConnection;
  /** The task space's streams (KV buckets are streams too) as they were when the node joined. */
  readonly #expected: readonly string[];
  readonly #stem: string;
  #connected = true;
  /** The connection's status events, stopped by `close`. */
  readonly #statuses: AsyncIterable<{ readonly type: string }> & { stop?: () => void };
  #listing: { readonly at: number; readonly reasons: Promise<string[]> } | null = null;

  private constructor(nc: NatsConnection, stem: string, expected: readonly string[]) {
    this.#nc = nc;
    this.#stem = stem;
    this.#expected = expected;
    this.#statuses = nc.status();
    void this.#follow();
  }

  /**
   * Starts following `nc`, noting the streams of the task space at `prefix` there now (call it
   * once the node has opened them all).
   *
   * @example
   * ```ts
   * const readiness = await NatsReadiness.start(nc, layout.prefix);
   * ```
   */
  static async start(nc: NatsConnection, prefix: string): Promise<NatsReadiness> {
    const stem = nameFromPrefix(prefix);
    return new NatsReadiness(nc, stem, await listStreams(nc, stem));
  }

  /** Why the node cannot take work now, one line each (empty: it can). */
  async reasons(): Promise<string[]> {
    if (this.#nc.isClosed()) return ['nats: the connection is closed'];
    if (!this.#connected) return ['nats: disconnected from the server (reconnecting)'];
    const now = Date.now();
    if (this.#listing === null || now - this.#listing.at > STREAMS_TTL_MS) this.#listing = { at: now, reasons: this.#missing() };
    return this.#listing.reasons;
  }

  /** Stops following the connection. */
  close(): void {
    this.#statuses.stop?.();
  }

  async #missing(): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), STREAMS_TIMEOUT_MS)));
    try {
      const present = await Promise.race([listStreams(this.#nc, this.#stem), late]);
      if (present === null) return [`nats: JetStream did not answer within ${STREAMS_TIMEOUT_MS} ms`];
      const missing = this.#expected.filter((name) => !present.includes(name));
      return missing.length === 0 ? [] : [`nats: the task space's streams are missing: ${missing.join(', ')}`];
    } catch (error) {
      return [`nats: JetStream could not list the streams: ${error instanceof Error ? error.message : String(error)}`];
    } finally {
      clearTimeout(timer);
    }
  }

  async #follow(): Promise<void> {
    try {
      for await (const status of this.#statuses) {
        if (status.type === 'disconnect') this.#connected = false;
        else if (status.type === 'reconnect') {
          this.#connected = true;
          this.#listing = null;
        }
      }
    } catch {
      // The connection closed: `isClosed` says so from now on.
    }
  }
}

/** The streams of the task space named `stem` (its own, and its KV buckets'). */
async function listStreams(nc: NatsConnection, stem: string): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const names: string[] = [];
  for await (const name of jsm.streams.names()) if (name.startsWith(`${stem}_`) || name.startsWith(`KV_${stem}_`)) names.push(name);
  return names;
}
