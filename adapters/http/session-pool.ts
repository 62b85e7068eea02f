/**
 * The SDK v1 endpoint's sessions: the ones this process serves with an SDK server of their own
 * (active), and the ones it keeps as a record only (parked). An SDK server and transport cost about
 * 100 KB, and a client that opens a session and goes quiet would hold them for the whole idle
 * timeout: a session with nothing in flight (no request, no open stream, no question awaiting the
 * client's answer) is parked after `parkAfterMs`, or at once when more than `maxActive` are active,
 * keeping only its record (a few hundred bytes); its next request takes it up again exactly as
 * another node of a cluster takes up a session it did not begin (`resumeSession`). Sessions, active
 * and parked, are capped at `maxSessions`, and those of one requester (a principal, or a peer
 * address when anonymous) at `maxPerRequester`: the table is this process's, and so is each share
 * of it (a session begun on another node counts here once taken up here).
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { SessionDirectory } from '../../runtime/backends/nats/session-store.js';
import { awaitsAnyResponse } from '../mcp-server/sdk-internals.js';
import { resumeSession, type SessionRecord } from './session-restore.js';
import { DEFAULT_MAX_SESSIONS_PER_REQUESTER, RequesterSessions, sessionRequester, type SessionShareRefusal } from '../wire/requester-sessions.js';

/** A session this process serves: its SDK transport and server, and its shared record. */
export interface Held {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly record: SessionRecord;
  /** When this node last refreshed the record's `lastSeen` in the directory. */
  touched: number;
  /** HTTP requests of the session being answered now (a GET stream counts until it closes). */
  inFlight: number;
  /** When its last request arrived or ended. */
  active: number;
}

/** Options of {@link SessionPool}. */
export interface SessionPoolOptions {
  readonly createServer: () => Server;
  /** Where sessions are shared with other nodes (NATS), or none. */
  readonly directory?: SessionDirectory<SessionRecord> | undefined;
  /** A session with no request for this long ends. */
  readonly idleMs: number;
  /** A session with nothing in flight for this long is parked; `null`: sessions are never parked. */
  readonly parkAfterMs: number | null;
  /** More sessions active than this: the idle ones are parked at once, the longest idle first. */
  readonly maxActive: number;
  /** The most sessions (active and parked) this process keeps; `null`: no cap. */
  readonly maxSessions: number | null;
  /** The most of those one requester keeps (see `requester-sessions.ts`); `null`: no cap. @default 100 */
  readonly maxPerRequester?: number | null;
}

/** Defaults of the pool's options, as `startHttpEndpoint` uses them. */
export const SESSION_DEFAULTS = { maxActive: 200, maxSessions: 5_000 } as const;

/**
 * The sessions of one endpoint.
 *
 * @example
 * ```ts
 * const pool = new SessionPool({ createServer, idleMs: 3_600_000, parkAfterMs: 5_000, maxActive: 200, maxSessions: 5_000 });
 * const held = await pool.get(sessionId);
 * ```
 */
export class SessionPool {
  readonly #o: SessionPoolOptions;
  readonly #active = new Map<string, Held>();
  /** Parked here (without a directory, the record lives nowhere else): the record, and when last used. */
  readonly #parked = new Map<string, { record: SessionRecord; seen: number }>();
  /** Ids of sessions parked while a directory keeps their record, and when last used. */
  readonly #parkedShared = new Map<string, number>();
  readonly #resuming = new Map<string, Promise<Held | undefined>>();
  readonly #sweeper: NodeJS.Timeout;
  /** Who keeps each session, active or parked: every requester's share. */
  readonly #shares: RequesterSessions;

  constructor(options: SessionPoolOptions) {
    this.#o = options;
    this.#shares = new RequesterSessions(options.maxPerRequester === undefined ? DEFAULT_MAX_SESSIONS_PER_REQUESTER : options.maxPerRequester);
    this.#sweeper = setInterval(() => this.sweep(Date.now()), Math.max(100, Math.min(1_000, options.parkAfterMs ?? 60_000, options.idleMs)));
    this.#sweeper.unref();
  }

  /** Sessions this process keeps, active and parked. */
  get size(): number {
    return this.#active.size + this.#parked.size + this.#parkedShared.size;
  }

  /** Sessions with an SDK server now. */
  get activeCount(): number {
    return this.#active.size;
  }

  /** Whether a new session may begin (under `maxSessions`). */
  hasRoom(): boolean {
    return this.#o.maxSessions === null || this.size < this.#o.maxSessions;
  }

  /** The refusal of `requester`'s new session when it keeps its share here already, else `null`. */
  refusalFor(requester: string): SessionShareRefusal | null {
    return this.#shares.refusal(requester);
  }

  /** Sessions `requester` keeps here now, active and parked. */
  countOf(requester: string): number {
    return this.#shares.count(requester);
  }

  /** The session if it has an SDK server here now (a relayed message is for a request one of those holds). */
  active(sessionId: string): Held | undefined {
    return this.#active.get(sessionId);
  }

  /**
   * The session, taken up again when parked here or begun on another node; `undefined` when unknown or ended.
   *
   * @param peer - the address the request came from: an anonymous session begun on another node counts against it here
   */
  get(sessionId: string, peer?: string): Held | Promise<Held | undefined> | undefined {
    const held = this.#active.get(sessionId);
    if (held) return held;
    if (!this.#parked.has(sessionId) && !this.#o.directory) return undefined;
    // Concurrent first requests share one take-up (one server).
    let taking = this.#resuming.get(sessionId);
    if (!taking) {
      taking = this.#takeUp(sessionId, peer).finally(() => this.#resuming.delete(sessionId));
      this.#resuming.set(sessionId, taking);
    }
    return taking;
  }

  /** A session begun here (its initialize answered), counted against `requester` (see `sessionRequester`). */
  add(sessionId: string, held: Held, requester: string): void {
    this.#active.set(sessionId, held);
    this.#shares.add(sessionId, requester);
    this.#parkIfCrowded();
  }

  /** A request of the session begins; the returned function ends it. */
  enter(held: Held): () => void {
    held.inFlight++;
    held.active = Date.now();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      held.inFlight--;
      held.active = Date.now();
    };
  }

  /** Sets up a new transport so that its close removes its session (but not when it was parked). */
  track(transport: StreamableHTTPServerTransport): void {
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.#active.get(id)?.transport === transport) this.#end(id);
    };
  }

  /** Ends idle sessions and parks quiet ones. */
  sweep(now: number): void {
    const { idleMs, parkAfterMs, directory } = this.#o;
    for (const [id, held] of this.#active) {
      if (held.inFlight > 0) continue;
      if (now - held.active >= idleMs) {
        this.#end(id);
        void held.transport.close();
        // Idle everywhere (no node refreshed it either): the session ends for the whole cluster.
        void directory?.recall(id).then((r) => (r && now - (r.lastSeen ?? 0) >= idleMs ? directory.forget(id) : undefined)).catch(() => undefined);
      } else if (parkAfterMs !== null && now - held.active >= parkAfterMs) this.#park(id, held);
    }
    for (const [id, parked] of this.#parked) if (now - parked.seen >= idleMs) this.#end(id);
    for (const [id, seen] of this.#parkedShared) if (now - seen >= idleMs) this.#end(id);
  }

  /** A session ends here: forgotten, active or parked, and its requester's share is free. */
  #end(sessionId: string): void {
    this.#active.delete(sessionId);
    this.#parked.delete(sessionId);
    this.#parkedShared.delete(sessionId);
    this.#shares.remove(sessionId);
  }

  /** Closes every session's transport and forgets them all. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const open = [...this.#active.values()];
    this.#active.clear();
    this.#parked.clear();
    this.#parkedShared.clear();
    this.#shares.clear();
    await Promise.allSettled(open.map((s) => s.transport.close()));
  }

  async #takeUp(sessionId: string, peer: string | undefined): Promise<Held | undefined> {
    const { idleMs, directory } = this.#o;
    const local = this.#parked.get(sessionId);
    const record = local?.record ?? (await directory?.recall(sessionId)) ?? null;
    // A session idle past the timeout (on every node) has ended, wherever it began.
    const seen = local?.seen ?? record?.lastSeen ?? Date.now();
    if (!record || Date.now() - seen >= idleMs) return undefined;
    const resumed = await resumeSession(sessionId, record, this.#o.createServer, (t) => this.track(t));
    this.#parked.delete(sessionId);
    this.#parkedShared.delete(sessionId);
    const held: Held = { ...resumed, record, touched: Date.now(), inFlight: 0, active: Date.now() };
    this.#active.set(sessionId, held);
    // Parked here: counted already. Begun on another node: counted here from now on.
    this.#shares.add(sessionId, sessionRequester(record.principal ?? null, peer));
    this.#parkIfCrowded();
    return held;
  }

  /** Parks a session with nothing in flight: its server goes, its record stays. */
  #park(sessionId: string, held: Held): void {
    // A question of the server the client has not answered yet needs this very server.
    if (held.inFlight > 0 || awaitsAnyResponse(held.server)) return;
    this.#active.delete(sessionId);
    if (this.#o.directory) this.#parkedShared.set(sessionId, held.active);
    else this.#parked.set(sessionId, { record: held.record, seen: held.active });
    // Removed from the active map first: its transport's close is not the session's end.
    void held.server.close().catch(() => undefined);
  }

  /** Over `maxActive`: the longest idle sessions with nothing in flight are parked at once. */
  #parkIfCrowded(): void {
    if (this.#o.parkAfterMs === null) return;
    const excess = this.#active.size - this.#o.maxActive;
    if (excess <= 0) return;
    const idle = [...this.#active].filter(([, h]) => h.inFlight === 0).sort((a, b) => a[1].active - b[1].active);
    for (const [id, held] of idle.slice(0, excess)) this.#park(id, held);
  }
}
