/**
 * The live streams of the inspector (`GET /api/events`): Server-Sent Events to every open page,
 * each stream starting with a full snapshot, then every change as it happens. Each stream has its
 * own state (its query): a broadcast is shaped per stream, and the streams' `counts` follow changes
 * at most once per interval. With thousands of tasks and dozens of pages, work per change must not
 * grow with the streams: a broadcast writes each distinct frame's text once, and a paced tick reads
 * once for every stream due.
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
}

/**
 * An event streams get after changes, at most every `intervalMs` (their `counts`), so one event
 * covers a burst of changes. At each tick `make` gets the states of every stream a change touched
 * and resolves to what each of them gets: it reads once for all of them, and returns the same
 * object for streams that get the same data, whose frame is then made once.
 */
export interface PacedEvent<S> {
  readonly event: string;
  readonly intervalMs: number;
  make(states: readonly S[]): Promise<(state: S) => unknown>;
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
 * Every open event stream, with its state `S`, and a heartbeat comment on each every `heartbeatMs`;
 * at most `maxStreams` open at once.
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
  readonly #maxStreams: number;
  /** Streams a change touched since the last paced tick; the tick due, and when the last one ran. */
  readonly #due = new Set<Client<S>>();
  #tick: NodeJS.Timeout | null = null;
  #tickedAt = 0;
  /** Whether a tick's `make` is still reading: the next tick waits for it, so counts never go back in time. */
  #making = false;
  #closed = false;

  constructor(heartbeatMs: number, paced?: PacedEvent<S>, maxStreams = Number.POSITIVE_INFINITY) {
    this.#paced = paced;
    this.#maxStreams = maxStreams;
    this.#heartbeat = setInterval(() => {
      for (const client of this.#clients) this.#write(client, ': heartbeat\n\n');
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  /**
   * Starts a stream on `res`: the headers, then `first()` (the snapshot), then every broadcast.
   * Broadcasts made while `first()` runs are held and sent after it, so that the snapshot, taken
   * after the stream joined, misses nothing.
   *
   * @returns `false`, having written nothing, when `maxStreams` are open already (the caller refuses)
   */
  async open(res: ServerResponse, state: S, first: () => Promise<string>): Promise<boolean> {
    // Closed (the inspector is stopping): the stream ends at once, and the page reconnects elsewhere or later.
    if (this.#closed) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' }).end(JSON.stringify({ error: 'Service Unavailable: the inspector is closing' }));
      return true;
    }
    // Checked and joined in one synchronous step: concurrent requests cannot both take the last place.
    if (this.#clients.size >= this.#maxStreams) return false;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // A reverse proxy (nginx) would otherwise buffer the stream and delay every update.
      'x-accel-buffering': 'no',
    });
    const client: Client<S> = { res, state, held: [] };
    this.#clients.add(client);
    res.once('close', () => this.#forget(client));
    // `retry`: reconnect soon after the server restarts.
    res.write('retry: 2000\n\n');
    let snapshot: string;
    try {
      snapshot = await first();
    } catch {
      this.#drop(client);
      return true;
    }
    // Gone while the snapshot was made (the client left, the hub closed): nothing more to write.
    if (!this.#clients.has(client)) return true;
    const held = client.held ?? [];
    client.held = null;
    this.#write(client, snapshot);
    for (const text of held) this.#write(client, text);
    return true;
  }

  /**
   * Sends one named event to every stream: `data`, or what `data(state)` makes of each stream's
   * state (the same object for streams that get the same data: its frame is made once). Then,
   * with a paced event, schedules it for every stream.
   */
  broadcast(event: string, data: unknown): void {
    if (this.#clients.size === 0) return;
    const shape = typeof data === 'function' ? (data as (state: S) => unknown) : () => data;
    const frames = new Map<unknown, string>();
    for (const client of this.#clients) {
      this.#send(client, framed(frames, event, shape(client.state)));
      this.#due.add(client);
    }
    this.#pace();
  }

  /** How many streams are open. */
  get size(): number {
    return this.#clients.size;
  }

  /** Ends every stream and the heartbeat. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    if (this.#tick !== null) clearTimeout(this.#tick);
    for (const client of this.#clients) this.#drop(client);
  }

  // The paced event once its interval since the last tick has passed: one timer for every stream.
  #pace(): void {
    const paced = this.#paced;
    if (!paced || this.#tick !== null || this.#making || this.#closed) return;
    const wait = Math.max(0, this.#tickedAt + paced.intervalMs - Date.now());
    this.#tick = setTimeout(() => {
      this.#tick = null;
      this.#tickedAt = Date.now();
      const due = [...this.#due];
      this.#due.clear();
      this.#making = true;
      void paced
        .make(due.map((c) => c.state))
        .then(
          (shape) => {
            const frames = new Map<unknown, string>();
            for (const client of due) if (this.#clients.has(client)) this.#send(client, framed(frames, paced.event, shape(client.state)));
          },
          // Unreadable now (the runtime is closing): the next change schedules another.
          () => undefined,
        )
        .finally(() => {
          this.#making = false;
          // Changes made while it read: their tick, now that this one's counts are out.
          if (this.#due.size > 0) this.#pace();
        });
    }, wait);
  }

  // After the snapshot, or held until it went out.
  #send(client: Client<S>, text: string): void {
    if (client.held) client.held.push(text);
    else this.#write(client, text);
  }

  #write(client: Client<S>, text: string): void {
    if (client.res.writableLength > MAX_QUEUED_BYTES) return this.#drop(client);
    client.res.write(text);
  }

  #forget(client: Client<S>): void {
    this.#clients.delete(client);
    this.#due.delete(client);
  }

  #drop(client: Client<S>): void {
    this.#forget(client);
    client.res.end();
  }
}

// The frame of `data`, made once per distinct object over one broadcast or tick.
function framed(frames: Map<unknown, string>, event: string, data: unknown): string {
  let text = frames.get(data);
  if (text === undefined) frames.set(data, (text = frame(event, data)));
  return text;
}
