/**
 * The stream of task events: one subject per task (`<prefix>.events.<taskKey>`), each event
 * published with message id `<taskKey>:<seq>` so a retried publish is dropped by the server's
 * dedup window instead of being stored twice.
 *
 * @module
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers, nanos, type NatsConnection } from '@nats-io/transport-node';
import { InvalidArgumentError } from '../../errors.js';
import { ensureStream } from './ensure-stream.js';
import { isTaskKey, nameFromPrefix } from './keys.js';

export { applyInOrder } from './apply-in-order.js';
export type { InOrderResult, Sequenced } from './apply-in-order.js';

/** Options of {@link EventStream.open}. */
export interface EventStreamOptions {
  /**
   * Subject prefix: events go to `<prefix>.events.<taskKey>`; the stream is `<prefix>_events`.
   * @default 'tasks'
   */
  readonly prefix?: string;
  /** Replicas of the stream. @default 1 */
  readonly replicas?: number;
  /** Storage of the stream. @default 'file' */
  readonly storage?: 'file' | 'memory';
  /**
   * How long the server remembers message ids for dedup, in ms.
   * @default 120000
   */
  readonly duplicateWindowMs?: number;
}

/** One stored task event. */
export interface TaskEventRecord<E> {
  /** Per-task sequence number (1, 2, 3, …). */
  readonly seq: number;
  readonly event: E;
  /** Sequence of the message in the stream (across all tasks). */
  readonly streamSeq: number;
}

/** Result of {@link EventStream.append}. */
export interface AppendResult {
  readonly streamSeq: number;
  /** True when the server had the message id already (a retry): nothing new was stored. */
  readonly duplicate: boolean;
}

interface Envelope<E> {
  readonly seq: number;
  readonly event: E;
}

function checkSeq(seq: number, name: string, min: number): void {
  if (!Number.isSafeInteger(seq) || seq < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}, got ${seq}`);
}

function checkKey(taskKey: string): void {
  if (!isTaskKey(taskKey)) throw new InvalidArgumentError(`not a task key (use taskKey()): '${taskKey}'`);
}

/** The message id of a task's event: a task id may be used again after its task is gone, and the generation keeps the ids apart. */
function messageId(taskKey: string, seq: number, generation: number | undefined): string {
  return generation === undefined ? `${taskKey}:${seq}` : `${taskKey}:${generation}:${seq}`;
}

/**
 * Appends and reads per-task events.
 *
 * @typeParam E - the JSON shape of an event
 * @example
 * ```ts
 * const events = await EventStream.open<TaskEvent>(nc, { prefix: 'tasks' });
 * await events.append(key, 1, { type: 'task.start' });
 * const all = await events.read(key, 1);
 * ```
 */
export class EventStream<E = unknown> {
  /** Stream name. */
  readonly stream: string;
  /** Subject prefix of the events (`<prefix>.events`). */
  readonly subjectPrefix: string;
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;

  private constructor(stream: string, subjectPrefix: string, nc: NatsConnection, js: JetStreamClient, jsm: JetStreamManager) {
    this.stream = stream;
    this.subjectPrefix = subjectPrefix;
    this.#nc = nc;
    this.#js = js;
    this.#jsm = jsm;
  }

  /**
   * Creates the stream if it is missing and binds to it.
   *
   * @param nc - a connection from `connectNats`
   * @param options - prefix, replicas, storage, dedup window
   * @example
   * ```ts
   * const events = await EventStream.open(nc, { prefix: 'acme.tasks', replicas: 3 });
   * ```
   */
  static async open<E = unknown>(nc: NatsConnection, options: EventStreamOptions = {}): Promise<EventStream<E>> {
    const prefix = options.prefix ?? 'tasks';
    const stream = `${nameFromPrefix(prefix)}_events`;
    const subjectPrefix = `${prefix}.events`;
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, {
      name: stream,
      subjects: [`${subjectPrefix}.>`],
      storage: options.storage ?? 'file',
      num_replicas: options.replicas ?? 1,
      duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
    });
    return new EventStream<E>(stream, subjectPrefix, nc, jetstream(nc), jsm);
  }

  /**
   * The subject of a task's events.
   *
   * @param taskKey - the task's key (see `taskKey()`)
   * @example
   * ```ts
   * events.subject(key); // 'tasks.events.<owner>.<task>'
   * ```
   */
  subject(taskKey: string): string {
    return `${this.subjectPrefix}.${taskKey}`;
  }

  /**
   * Publishes event number `seq` of a task, with message id `<taskKey>:<seq>`: publishing the same
   * `(taskKey, seq)` again within the dedup window stores nothing and reports `duplicate`.
   *
   * @param taskKey - the task's key
   * @param seq - the event's per-task sequence number (from 1)
   * @param event - JSON-serializable event
   * @param generation - which incarnation of the task id (its message ids then include it)
   * @throws {@link InvalidArgumentError} for a malformed key or sequence
   * @example
   * ```ts
   * const { duplicate } = await events.append(key, 3, { type: 'task.complete' });
   * ```
   */
  async append(taskKey: string, seq: number, event: E, generation?: number): Promise<AppendResult> {
    checkKey(taskKey);
    checkSeq(seq, 'seq', 1);
    const envelope: Envelope<E> = { seq, event };
    const ack = await this.#js.publish(this.subject(taskKey), JSON.stringify(envelope), { msgID: messageId(taskKey, seq, generation) });
    return { streamSeq: ack.seq, duplicate: ack.duplicate };
  }

  /**
   * Publishes event number `seq` of a task like {@link EventStream.append}, without asking the
   * server to acknowledge it: for a writer that would ignore the answer anyway. No reply, no
   * request to track: about a tenth of a task's client CPU was spent on the replies of events
   * nobody waited for. Stored once (same message id); lost if the stream cannot take it then
   * (readers fill a gap from the record).
   *
   * @throws {@link InvalidArgumentError} for a malformed key or sequence
   * @example
   * ```ts
   * events.post(key, 3, { type: 'task.complete' });
   * ```
   */
  post(taskKey: string, seq: number, event: E, generation?: number): void {
    checkKey(taskKey);
    checkSeq(seq, 'seq', 1);
    const h = headers();
    h.set('Nats-Msg-Id', messageId(taskKey, seq, generation));
    this.#nc.publish(this.subject(taskKey), JSON.stringify({ seq, event } satisfies Envelope<E>), { headers: h });
  }

  /**
   * Removes every stored event of a task (when the task itself is removed).
   *
   * @param taskKey - the task's key
   * @example
   * ```ts
   * await events.purge(key); // or purge(key, seq): only what came before stream sequence `seq`
   * ```
   */
  async purge(taskKey: string, before?: number): Promise<void> {
    checkKey(taskKey);
    await this.#jsm.streams.purge(this.stream, before === undefined ? { filter: this.subject(taskKey) } : { filter: this.subject(taskKey), seq: before });
  }

  /**
   * Reads a task's events with `seq >= fromSeq`, in the order they were stored, through an ordered
   * consumer filtered on the task's subject. Stops at the task's last event at the time of the call.
   *
   * @param taskKey - the task's key
   * @param fromSeq - first per-task sequence wanted
   * @returns the events (feed them through `applyInOrder` to drop repeats and find gaps)
   * @example
   * ```ts
   * const result = applyInOrder(lastApplied, await events.read(key, lastApplied + 1));
   * ```
   */
  async read(taskKey: string, fromSeq = 1): Promise<TaskEventRecord<E>[]> {
    checkKey(taskKey);
    checkSeq(fromSeq, 'fromSeq', 1);
    const subject = this.subject(taskKey);
    const last = await this.#jsm.streams.getMessage(this.stream, { last_by_subj: subject });
    if (last === null) return [];
    const consumer = await this.#js.consumers.get(this.stream, { filter_subjects: subject });
    const messages = await consumer.consume();
    const out: TaskEventRecord<E>[] = [];
    try {
      for await (const m of messages) {
        const envelope = m.json<Envelope<E>>();
        if (envelope.seq >= fromSeq) out.push({ seq: envelope.seq, event: envelope.event, streamSeq: m.seq });
        // pending 0: nothing more on the subject right now (guards against a deleted last message)
        if (m.seq >= last.seq || m.info.pending === 0) break;
      }
    } finally {
      await messages.close();
      await consumer.delete().catch(() => undefined);
    }
    return out;
  }
}
