/**
 * The live streams of the inspector (`GET /api/events`): Server-Sent Events to every open page,
 * each stream starting with a full snapshot, then every change as it happens.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

/**
 * Bytes a stream may have queued before it is dropped. A page that cannot keep up (a suspended
 * tab, a slow link) would otherwise make the server buffer without bound; dropped, its
 * `EventSource` reconnects and starts over from a fresh snapshot, which loses nothing.
 */
export const MAX_QUEUED_BYTES = 1024 * 1024;

interface Client {
  readonly res: ServerResponse;
  /** Events that arrived before the snapshot went out, sent right after it. */
  held: string[] | null;
}

/**
 * One `event:`/`data:` frame. JSON text has no raw line breaks, so one `data:` line always holds it.
 *
 * @example
 * ```ts
 * res.write(frame('removed', { key })); // 'event: removed\ndata: {"key":"..."}\n\n'
 * ```
 */
export function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Every open event stream, and a heartbeat comment on each every `heartbeatMs`.
 *
 * @example
 * ```ts
 * const hub = new EventHub(15_000);
 * await hub.open(res, async () => frame('snapshot', { tasks: await observer.list() }));
 * hub.broadcast('removed', { key });
 * ```
 */
export class EventHub {
  readonly #clients = new Set<Client>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(heartbeatMs: number) {
    this.#heartbeat = setInterval(() => {
      for (const client of this.#clients) this.#write(client, ': heartbeat\n\n');
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  /**
   * Starts a stream on `res`: the headers, then `first()` (the snapshot), then every broadcast.
   * Broadcasts made while `first()` runs are held and sent after it, so that the snapshot, taken
   * after the stream joined, misses nothing.
   */
  async open(res: ServerResponse, first: () => Promise<string>): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // A reverse proxy (nginx) would otherwise buffer the stream and delay every update.
      'x-accel-buffering': 'no',
    });
    const client: Client = { res, held: [] };
    this.#clients.add(client);
    res.once('close', () => this.#clients.delete(client));
    // `retry`: reconnect soon after the server restarts.
    res.write('retry: 2000\n\n');
    let snapshot: string;
    try {
      snapshot = await first();
    } catch {
      this.#drop(client);
      return;
    }
    const held = client.held ?? [];
    client.held = null;
    this.#write(client, snapshot);
    for (const text of held) this.#write(client, text);
  }

  /** Sends one named event to every stream. */
  broadcast(event: string, data: unknown): void {
    if (this.#clients.size === 0) return;
    const text = frame(event, data);
    for (const client of this.#clients) {
      if (client.held) client.held.push(text);
      else this.#write(client, text);
    }
  }

  /** How many streams are open. */
  get size(): number {
    return this.#clients.size;
  }

  /** Ends every stream and the heartbeat. */
  close(): void {
    clearInterval(this.#heartbeat);
    for (const client of this.#clients) this.#drop(client);
  }

  #write(client: Client, text: string): void {
    if (client.res.writableLength > MAX_QUEUED_BYTES) return this.#drop(client);
    client.res.write(text);
  }

  #drop(client: Client): void {
    this.#clients.delete(client);
    client.res.end();
  }
}
