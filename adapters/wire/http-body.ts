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
 * Reads a whole request body.
 *
 * @param options - `maxBytes`: the largest body accepted; `pending`: the node's count of bytes arriving
 * @throws BodyRefusal 413 past `maxBytes`, 503 when the node holds too many unfinished bytes, 400
 *   when the client went away (or the server's request timeout cut it) before the end
 * @example
 * ```ts
 * const body = await readBody(req, { maxBytes: 4 * 1024 * 1024, pending });
 * ```
 */
export async function readBody(req: IncomingMessage, options: { readonly maxBytes: number; readonly pending: PendingBodies }): Promise<Buffer> {
  const { maxBytes, pending } = options;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const bytes = (chunk as Buffer).length;
      if (size + bytes > maxBytes) throw new BodyRefusal(413, `Request body is larger than ${maxBytes} bytes (maxBodyBytes; raise it with --max-body-bytes N)`, 'maxBodyBytes');
      if (!pending.take(bytes)) {
        throw new BodyRefusal(503, `Server busy: more than ${pending.max} bytes of request bodies are arriving at once (maxPendingBodyBytes, --max-pending-body-bytes); retry shortly`, 'maxPendingBodyBytes');
      }
      size += bytes;
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof BodyRefusal) throw error;
    throw new BodyRefusal(400, 'The request body did not arrive whole (the client went away, or it took longer than the request timeout)', null);
  } finally {
    pending.give(size);
  }
  return Buffer.concat(chunks, size);
}
