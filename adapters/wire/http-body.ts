/**
 * Reading request bodies, the same way on every HTTP front: a body larger than the endpoint's
 * limit is refused before it is all held, and the bytes of bodies still arriving are counted
 * node-wide, so that slow clients cannot together pin more memory than the operator allows (30
 * connections trickling 4 MiB each used to hold 126 MB for Node's 300 s request timeout). The time
 * a body may take is the server's `requestTimeout` (see `httpTimeouts`).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/** The largest request body read, by default: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The most bytes of unfinished request bodies held at once, by default: 64 MiB. */
export const DEFAULT_MAX_PENDING_BODY_BYTES = 64 * 1024 * 1024;

/** Why a body was not read. */
export class BodyRefusal extends Error {
  /**
   * @param status - the HTTP status to answer: 413 (this body is too large), 503 (too many bytes
   *   of other bodies are arriving now: a retry later may pass), 400 (the client went away)
   * @param limit - the limit's name, for the error's data
   */
  constructor(
    readonly status: 400 | 413 | 503,
    message: string,
    readonly limit: 'maxBodyBytes' | 'maxPendingBodyBytes' | null,
  ) {
    super(message);
    this.name = 'BodyRefusal';
  }
}

/**
 * The bytes of request bodies still arriving, across the endpoints that share it (one per node in
 * `mcp-tasks serve`).
 *
 * @example
 * ```ts
 * const pending = new PendingBodies(64 * 1024 * 1024);
 * const body = await readBody(req, { maxBytes: 4 << 20, pending });
 * ```
 */
export class PendingBodies {
  #held = 0;

  /** @param max - the most bytes held at once; `null`: no cap */
  constructor(readonly max: number | null) {}

  /** Bytes held now. */
  get held(): number {
    return this.#held;
  }

  /** Takes `n` more bytes, or returns false when that would go over the cap. */
  take(n: number): boolean {
    if (this.max !== null && this.#held + n > this.max) return false;
    this.#held += n;
    return true;
  }

  give(n: number): void {
    this.#held -= n;
  }
}

/**
 * After a refusal, how much more of the body is read and dropped (held nowhere) before the
 * connection is cut: 64 MiB, within 10 s. Closing a socket whose client is still sending makes the
 * kernel reset it, and a reset discards the answer the client has not read yet ("fetch failed"
 * instead of the 413 that says what was wrong). Reading the rest lets the answer arrive, and
 * leaves the connection usable for the next request; the bounds stop a client that never ends.
 */
export const REFUSED_BODY_DRAIN = { bytes: 64 * 1024 * 1024, ms: 10_000 } as const;

/**
 * Reads a whole request body.
 *
 * A refused body (413, 503) is not destroyed: its rest is read and dropped, within
 * {@link REFUSED_BODY_DRAIN}, so that the caller's answer reaches the client whole. Callers answer
 * the refusal without `Connection: close` (Node would close under a client still sending); a
 * client that asked for the connection to close (`Connection: close`, HTTP/1.0) is closed by Node
 * right after the answer, so its refusal is thrown once its body has been read instead.
 *
 * @param options - `maxBytes`: the largest body accepted; `pending`: the node's count of bytes arriving
 * @throws BodyRefusal 413 past `maxBytes`, 503 when the node holds too many unfinished bytes, 400
 *   when the client went away (or the server's request timeout cut it) before the end
 * @example
 * ```ts
 * const body = await readBody(req, { maxBytes: 4 * 1024 * 1024, pending });
 * ```
 */
export function readBody(req: IncomingMessage, options: { readonly maxBytes: number; readonly pending: PendingBodies }): Promise<Buffer> {
  const { maxBytes, pending } = options;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (): void => {
      req.off('data', onData).off('end', onEnd).off('close', onGone).off('error', onGone);
      pending.give(size);
    };
    const refuse = (refusal: BodyRefusal): void => {
      settle();
      chunks.length = 0;
      const drained = drainRefused(req);
      if (closedAfterAnswer(req)) void drained.then(() => reject(refusal));
      else reject(refusal);
    };
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) return refuse(new BodyRefusal(413, `Request body is larger than ${maxBytes} bytes (maxBodyBytes; raise it with --max-body-bytes N)`, 'maxBodyBytes'));
      if (!pending.take(chunk.length)) {
        return refuse(new BodyRefusal(503, `Server busy: more than ${pending.max} bytes of request bodies are arriving at once (maxPendingBodyBytes, --max-pending-body-bytes); retry shortly`, 'maxPendingBodyBytes'));
      }
      size += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      const body = Buffer.concat(chunks, size);
      settle();
      resolve(body);
    };
    const onGone = (): void => {
      settle();
      reject(new BodyRefusal(400, 'The request body did not arrive whole (the client went away, or it took longer than the request timeout)', null));
    };
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    if (req.destroyed) return onGone();
    req.on('data', onData).on('end', onEnd).on('close', onGone).on('error', onGone);
    // A request paused before (by middleware) would not flow for a 'data' listener alone.
    req.resume();
  });
}

/** Whether Node closes the connection once the answer is written: the client asked it to. */
function closedAfterAnswer(req: IncomingMessage): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  if (/(?:^|,)\s*close\s*(?:,|$)/.test(connection)) return true;
  return req.httpVersionMajor === 1 && req.httpVersionMinor === 0 && !/(?:^|,)\s*keep-alive\s*(?:,|$)/.test(connection);
}

/**
 * Reads and drops the rest of a refused body, within {@link REFUSED_BODY_DRAIN}; past it, cuts the
 * connection. Resolves once the body has ended, the connection has closed, or it was cut.
 */
function drainRefused(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  const socket = req.socket;
  return new Promise((resolve) => {
    let dropped = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done);
      // Once answered, Node no longer ends this request when its connection closes: the socket says so.
      socket?.off('close', done);
      resolve();
    };
    const cut = (): void => {
      done();
      socket?.destroy();
    };
    const onData = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > REFUSED_BODY_DRAIN.bytes) cut();
    };
    const timer = setTimeout(cut, REFUSED_BODY_DRAIN.ms).unref();
    req.on('data', onData).once('end', done).once('close', done);
    socket?.once('close', done);
  });
}
