/**
 * The large parts of a task record, kept apart from it. A record is one KV message, read by every
 * `tasks/get` and carried by some events, and NATS caps a message (`max_payload`, 1 MiB by
 * default): a task's params, its input requests and their answers, its failure's detail and its
 * checkpoint may each be far larger (up to `maxRequestBytes`, `maxResultBytes`, or without bound
 * for what a handler writes). So a record whose JSON is over {@link RECORD_BUDGET_BYTES} has its
 * largest parts ("slots") moved out, largest first, until it is within: each to the results
 * bucket under `<taskKey>.p<order>.<id>` (in chunks when large, see `chunked-kv.ts`), its place in
 * the record left `null` (an answer: `{ result: null }`), and `record.payloads` naming it.
 *
 * - `id` hashes the slot's name with its JSON: a write tried again stores the same value under the
 *   same key, and no two slots share one (so a slot's value is erased safely once it is gone).
 * - `order` names the task's incarnation: removing a task purges `<taskKey>.p<order>.>`, never a
 *   later task's under the same id, and a create that failed purges exactly what it stored.
 * - A slot's value never changes once set, except a checkpoint's, whose slot is named by its
 *   sequence: a new checkpoint is a new slot, and the old one's value is erased with its entry.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { TaskRecord } from './task-record.js';

/** A record over this many bytes of JSON has its largest parts moved out (see the module doc). */
export const RECORD_BUDGET_BYTES = 64 * 1024;

/** A part smaller than this stays in the record: moving it would cost a read and save nothing. */
const MIN_SLOT_BYTES = 1024;

/** One part of a record that may be kept apart. */
interface Slot {
  readonly name: string;
  readonly value: unknown;
  /** The record with this part replaced by `value`. */
  with(record: TaskRecord, value: unknown): TaskRecord;
}

/** What a moved slot's place in the record holds. */
function placeholderOf(name: string): unknown {
  return name.endsWith(':answer') ? { result: null } : null;
}

function inputSlot(inputId: string, part: 'params' | 'answer', value: unknown): Slot {
  return {
    name: `input:${inputId}:${part}`,
    value,
    with: (r, v) => ({ ...r, inputs: r.inputs.map((i) => (i.inputId === inputId ? { ...i, [part]: v } : i)) }),
  };
}

/** Every part of `record` that may be kept apart. */
function slotsOf(record: TaskRecord): Slot[] {
  const slots: Slot[] = [{ name: 'failure', value: record.failure, with: (r, v) => ({ ...r, failure: v }) }];
  if (record.work !== null) slots.push({ name: 'params', value: record.work.params, with: (r, v) => ({ ...r, work: { ...r.work!, params: v } }) });
  const checkpoint = record.checkpoint;
  if (checkpoint) slots.push({ name: `checkpoint:${checkpoint.seq}`, value: checkpoint.state, with: (r, v) => ({ ...r, checkpoint: { ...r.checkpoint!, state: v } }) });
  for (const input of record.inputs) {
    slots.push(inputSlot(input.inputId, 'params', input.params));
    if (input.answer !== undefined) slots.push(inputSlot(input.inputId, 'answer', input.answer));
  }
  return slots;
}

/**
 * The key of a moved part in the results bucket.
 *
 * @example
 * ```ts
 * payloadKey(key, record.order, record.payloads!['params']!); // '<owner>.<task>.p12.<id>'
 * ```
 */
export function payloadKey(taskKey: string, order: number, id: string): string {
  return `${taskKey}.p${order}.${id}`;
}

/**
 * The subject tree, in the results bucket, of every part moved out of one incarnation's records.
 *
 * @example
 * ```ts
 * await eraseSubject(jsm, results.stream, results.subject(payloadTree(key, order)));
 * ```
 */
export function payloadTree(taskKey: string, order: number): string {
  return `${taskKey}.p${order}.>`;
}

function bytesOf(json: string): number {
  return json.length * 3 <= RECORD_BUDGET_BYTES ? json.length : Buffer.byteLength(json);
}

/** A record ready to write: its JSON, and the parts to store first (by id). */
export interface PlannedRecord {
  readonly record: TaskRecord;
  readonly json: string;
  readonly store: ReadonlyMap<string, string>;
  /** Ids of moved parts the record no longer names (a replaced checkpoint's): erase once written. */
  readonly dropped: readonly string[];
}

/**
 * Plans the write of `record`: within the budget, as it is; over it, with its largest parts moved
 * out until it is within (or none is left to move). Entries of `record.payloads` whose slot is
 * gone are dropped.
 *
 * @example
 * ```ts
 * const plan = planRecord(next);
 * for (const [id, json] of plan.store) await putChunked(results, payloadKey(key, next.order, id), json);
 * await kv.update(key, plan.json, revision);
 * ```
 */
export function planRecord(record: TaskRecord): PlannedRecord {
  // Most records have nothing apart and are small: one stringify, as any write makes, and no more.
  let slots: Slot[] | null = null;
  let { payloads } = record;
  let dropped: string[] = [];
  if (payloads !== undefined) {
    slots = slotsOf(record);
    const live = new Set(slots.map((s) => s.name));
    const kept = Object.entries(payloads).filter(([name]) => live.has(name));
    if (kept.length < Object.keys(payloads).length) {
      const keptIds = new Set(kept.map(([, id]) => id));
      dropped = Object.values(payloads).filter((id) => !keptIds.has(id));
      payloads = Object.fromEntries(kept);
      record = { ...record, payloads };
    }
  }
  let json = JSON.stringify(record);
  let size = bytesOf(json);
  const store = new Map<string, string>();
  if (size <= RECORD_BUDGET_BYTES) return { record, json, store, dropped };
  const candidates = (slots ?? slotsOf(record))
    .filter((s) => payloads?.[s.name] === undefined)
    .map((s) => ({ slot: s, json: JSON.stringify(s.value ?? null) }))
    .map((c) => ({ ...c, bytes: Buffer.byteLength(c.json) }))
    .filter((c) => c.bytes >= MIN_SLOT_BYTES)
    .sort((a, b) => b.bytes - a.bytes);
  const moved: Record<string, string> = { ...payloads };
  for (const c of candidates) {
    if (size <= RECORD_BUDGET_BYTES) break;
    const id = createHash('sha256').update(`${c.slot.name}\u0000${c.json}`, 'utf8').digest('base64url');
    store.set(id, c.json);
    moved[c.slot.name] = id;
    record = c.slot.with(record, placeholderOf(c.slot.name));
    size -= c.bytes;
  }
  record = { ...record, payloads: moved };
  json = JSON.stringify(record);
  return { record, json, store, dropped };
}

/**
 * `record` with its moved parts read back (those `which` selects; default: every one), for the
 * code that needs their values (a worker starting the task, an answer to deliver).
 *
 * @param read - reads a moved part's JSON by id; `null` when it is not there
 * @throws Error naming the part when one is gone (removed with the task meanwhile)
 * @example
 * ```ts
 * const full = await withPayloads(record, (id) => getChunked(results, payloadKey(key, record.order, id)));
 * ```
 */
export async function withPayloads(record: TaskRecord, read: (id: string) => Promise<string | null>, which: (slot: string) => boolean = () => true): Promise<TaskRecord> {
  const payloads = record.payloads;
  if (payloads === undefined) return record;
  let full = record;
  for (const slot of slotsOf(record)) {
    const id = payloads[slot.name];
    if (id === undefined || !which(slot.name)) continue;
    const json = await read(id);
    if (json === null) throw new Error(`The task's ${slot.name.replace(/^input:[^:]*:/, 'input ')} is no longer stored (its task was removed?)`);
    full = slot.with(full, JSON.parse(json) as unknown);
  }
  return full;
}
