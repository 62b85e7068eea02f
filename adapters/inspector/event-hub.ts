/**
 * The live streams of the inspector (`GET /api/events`): Server-Sent Events to every open page,
 * each stream starting with a full snapshot, then every change as it happens. Each stream has its
 * own state (its query): a broadcast is shaped per stream, and a stream's `counts` follow changes
 * at most once per interval.
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

interface Client<S> {
  readonly res: ServerResponse;
  readonly state: S;
  /** Events that arrived before the snapshot went out, sent right after it. */
  held: string[] | null;
  /** When its last paced event was sent (epoch ms), and the one due, if any. */
  pacedAt: number;
  paced: NodeJS.Timeout | null;
}

/**
 * An event a stream gets after changes, at most every `intervalMs` (its `counts`): `make` reads
 * what it carries for that stream's state when it is due, so one event covers a burst of changes.
 */
export interface PacedEvent<S> {
  readonly event: string;
  readonly intervalMs: number;
  make(state: S): Promise<unknown>;
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
 * Every open event stream, with its state `S`, and a heartbeat comment on each every `heartbeatMs`.
 *
 * @example
 * ```ts
 * const hub = new EventHub<TaskQuery>(15_000);
 * await hub.open(res, query, async () => frame('snapshot', await page(query)));
 * hub.broadcast('removed', { key });
 * ```
 */
export class EventHub<S = undefined> {
  readonly #clients = new Set<Client<S>>();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #paced: PacedEvent<S> | undefined;

  constructor(heartbeatMs: number, paced?: PacedEvent<S>) {
    this.#paced = paced;
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
  async open(res: ServerResponse, state: S, first: () => Promise<string>): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // A reverse proxy (nginx) would otherwise buffer the stream and delay every update.
      'x-accel-buffering': 'no',
    });
    const client: Client<S> = { res, state, held: [], pacedAt: 0, paced: null };
    this.#clients.add(client);
    res.once('close', () => this.#forget(client));
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

  /**
   * Sends one named event to every stream: `data`, or what `data(state)` makes of each stream's
   * state. Then, with a paced event, schedules it on each stream.
   */
  broadcast(event: string, data: unknown): void {
    if (this.#clients.size === 0) return;
    const shared = typeof data === 'function' ? null : frame(event, data);
    // Streams whose state makes the same data (the same object) share one frame: serialising the
    // same task once per open page was most of a broadcast's cost with dozens of pages open.
    const frames = new Map<unknown, string>();
    const frameOf = (value: unknown): string => {
      let text = frames.get(value);
      if (text === undefined) frames.set(value, (text = frame(event, value)));
      return text;
    };
    for (const client of this.#clients) {
      const text = shared ?? frameOf((data as (state: S) => unknown)(client.state));
      if (client.held) client.held.push(text);
      else this.#write(client, text);
      this.#pace(client);
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

  // The paced event once its interval since the last has passed; one timer per stream at most.
  #pace(client: Client<S>): void {
    const paced = this.#paced;
    if (!paced || client.paced !== null) return;
    const wait = Math.max(0, client.pacedAt + paced.intervalMs - Date.now());
    client.paced = setTimeout(() => {
      // Cleared first: a change while `make` reads schedules the next one, so none is missed.
      client.paced = null;
      client.pacedAt = Date.now();
      void paced.make(client.state).then(
        (data) => {
          if (this.#clients.has(client)) this.#write(client, frame(paced.event, data));
        },
        // Unreadable now (the runtime is closing): the next change schedules another.
        () => undefined,
      );
    }, wait);
  }

  #write(client: Client<S>, text: string): void {
    if (client.res.writableLength > MAX_QUEUED_BYTES) return this.#drop(client);
    client.res.write(text);
  }

  #forget(client: Client<S>): void {
    this.#clients.delete(client);
    if (client.paced !== null) clearTimeout(client.paced);
  }

  #drop(client: Client<S>): void {
    this.#forget(client);
    client.res.end();
  }
}
