/**
 * Core NATS messages of any size, for what nodes pass each other without storing it (a session's
 * client message relayed to the node that holds its request). A message is capped by the server's
 * `max_payload` (1 MiB by default): a larger payload goes out as numbered frames of one id, in
 * order (one publisher on one subject keeps its order), and is put back together by the receiver.
 * A message whose frames do not all arrive within {@link FRAME_WAIT_MS} is dropped; the bytes held
 * for unfinished messages are capped.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { headers, type Msg, type NatsConnection } from '@nats-io/transport-node';

/** Bytes per frame: well under the server's default max payload, headers included. */
export const FRAME_BYTES = 512 * 1024;
/** How long the frames of one message may take to arrive. */
export const FRAME_WAIT_MS = 30_000;
/** The most bytes of unfinished messages a receiver holds. */
export const MAX_PENDING_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Publishes `payload` on `subject`, in frames when it is larger than one.
 *
 * @example
 * ```ts
 * publishFramed(nc, subject, Buffer.from(JSON.stringify(envelope)));
 * ```
 */
export function publishFramed(nc: NatsConnection, subject: string, payload: Uint8Array): void {
  if (payload.length <= FRAME_BYTES) return nc.publish(subject, payload);
  const id = randomUUID();
  const count = Math.ceil(payload.length / FRAME_BYTES);
  for (let i = 0; i < count; i++) {
    const h = headers();
    h.set('Frame-Id', id);
    h.set('Frame', `${i}/${count}`);
    nc.publish(subject, payload.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES), { headers: h });
  }
}

interface Unfinished {
  readonly parts: Uint8Array[];
  readonly count: number;
  bytes: number;
  readonly timer: NodeJS.Timeout;
}

/**
 * Puts framed messages back together: give it every message of the subject; it returns the
 * payload of each whole message (a plain one at once, a framed one with its last frame).
 *
 * @example
 * ```ts
 * const frames = new FrameAssembler();
 * nc.subscribe(subject, { callback: (_e, msg) => { const whole = frames.take(msg); if (whole) handle(whole); } });
 * ```
 */
export class FrameAssembler {
  readonly #unfinished = new Map<string, Unfinished>();
  #held = 0;

  /** The payload `msg` completes, or `null` while its message is unfinished (or was dropped). */
  take(msg: Msg): Uint8Array | null {
    const id = msg.headers?.get('Frame-Id');
    if (!id) return msg.data;
    const [at, of] = (msg.headers?.get('Frame') ?? '').split('/').map(Number);
    if (!Number.isInteger(at) || !Number.isInteger(of) || at! < 0 || at! >= of!) return null;
    let message = this.#unfinished.get(id);
    if (message === undefined) {
      // Its first frame lost (or out of bounds): the rest can never make it whole.
      if (at !== 0) return null;
      message = { parts: [], count: of!, bytes: 0, timer: setTimeout(() => this.#drop(id), FRAME_WAIT_MS) };
      message.timer.unref();
      this.#unfinished.set(id, message);
    }
    if (at !== message.parts.length || this.#held + msg.data.length > MAX_PENDING_FRAME_BYTES) {
      this.#drop(id);
      return null;
    }
    message.parts.push(msg.data);
    message.bytes += msg.data.length;
    this.#held += msg.data.length;
    if (message.parts.length < message.count) return null;
    this.#drop(id);
    return Buffer.concat(message.parts);
  }

  /** Forgets every unfinished message. */
  clear(): void {
    for (const id of [...this.#unfinished.keys()]) this.#drop(id);
  }

  #drop(id: string): void {
    const message = this.#unfinished.get(id);
    if (!message) return;
    clearTimeout(message.timer);
    this.#held -= message.bytes;
    this.#unfinished.delete(id);
  }
}
