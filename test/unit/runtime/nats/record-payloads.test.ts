import { describe, expect, it } from 'vitest';
import { planRecord, RECORD_BUDGET_BYTES, withPayloads } from '../../../../runtime/backends/nats/record-payloads.js';
import { newRecord, type TaskRecord } from '../../../../runtime/backends/nats/task-record.js';

const input = { taskId: 't1', owner: { session: 's', principal: null }, dialect: 'sep-1686', method: 'tools/call', label: 'x', keepAlive: 1_000, pollFrequency: 500, createdAt: 100 };
const work = (params: unknown): TaskRecord['work'] => ({ handler: 'h', params, retry: 'never', maxAttempts: 1 });
const base = (params: unknown = { small: true }): TaskRecord => ({ ...newRecord(input, work(params)), order: 7 });

/** Stores a plan's parts in a map and reads them back, as the payload store does in NATS. */
function storage(): { readonly put: (plan: ReturnType<typeof planRecord>) => void; readonly read: (id: string) => Promise<string | null> } {
  const parts = new Map<string, string>();
  return {
    put: (plan) => plan.store.forEach((json, id) => parts.set(id, json)),
    read: async (id) => parts.get(id) ?? null,
  };
}

describe('planRecord: a record over its budget keeps its largest parts apart', () => {
  it('should leave a record within the budget as it is, nothing stored apart', () => {
    const record = base();
    const plan = planRecord(record);
    expect(plan.record).toBe(record);
    expect(plan.json).toBe(JSON.stringify(record));
    expect(plan.store.size).toBe(0);
  });

  it('should move 3 MB params out, leaving null in their place, and read them back whole', async () => {
    const params = { blob: 'p'.repeat(3_000_000) };
    const plan = planRecord(base(params));
    expect(Buffer.byteLength(plan.json)).toBeLessThan(RECORD_BUDGET_BYTES);
    expect(plan.record.work!.params).toBeNull();
    expect(Object.keys(plan.record.payloads!)).toEqual(['params']);
    const s = storage();
    s.put(plan);
    expect((await withPayloads(JSON.parse(plan.json) as TaskRecord, s.read)).work!.params).toEqual(params);
  });

  it('should move the largest parts first, and only as many as the budget needs', () => {
    const record: TaskRecord = {
      ...base({ p: 'a'.repeat(40_000) }),
      inputs: [
        { inputId: 'i1', method: 'elicitation/create', params: { q: 'b'.repeat(50_000) }, answer: { result: { name: 'c'.repeat(10_000) } } },
      ],
    };
    const plan = planRecord(record);
    // 100 KB in all: moving the 50 KB question alone brings it under 64 KiB.
    expect(Object.keys(plan.record.payloads!)).toEqual(['input:i1:params']);
    expect(plan.record.inputs[0]!.params).toBeNull();
    expect(plan.record.inputs[0]!.answer).toEqual({ result: { name: 'c'.repeat(10_000) } });
    expect(plan.record.work!.params).toEqual({ p: 'a'.repeat(40_000) });
  });

  it('should keep an answered input answered when its answer is moved out', async () => {
    const answer = { result: { name: 'n'.repeat(200_000) } };
    const record: TaskRecord = { ...base(), inputs: [{ inputId: 'i1', method: 'elicitation/create', params: {}, answer }] };
    const plan = planRecord(record);
    expect(plan.record.inputs[0]!.answer).toEqual({ result: null });
    const s = storage();
    s.put(plan);
    const back = await withPayloads(plan.record, s.read, (slot) => slot === 'input:i1:answer');
    expect(back.inputs[0]!.answer).toEqual(answer);
  });

  it('should not move a part again once it is apart, and store the same part under the same id on a retry', () => {
    const first = planRecord(base({ blob: 'p'.repeat(100_000) }));
    const again = planRecord(base({ blob: 'p'.repeat(100_000) }));
    expect([...again.store.keys()]).toEqual([...first.store.keys()]);
    const next = planRecord({ ...first.record, attempts: 1 });
    expect(next.store.size).toBe(0);
    expect(next.record.payloads).toEqual(first.record.payloads);
  });

  it("should drop a replaced checkpoint's part, naming it to erase", () => {
    const state = (c: string): unknown => ({ big: c.repeat(100_000) });
    const one = planRecord({ ...base(), checkpoint: { seq: 1, state: state('a'), label: 'one', at: 1, node: 'n' } });
    expect(Object.keys(one.record.payloads!)).toEqual(['checkpoint:1']);
    const two = planRecord({ ...one.record, checkpoint: { seq: 2, state: { small: true }, label: 'two', at: 2, node: 'n' } });
    expect(two.dropped).toEqual([one.record.payloads!['checkpoint:1']]);
    expect(two.record.payloads).toEqual({});
    expect(two.record.checkpoint!.state).toEqual({ small: true });
  });

  it('should say which part is gone when one cannot be read back', async () => {
    const plan = planRecord(base({ blob: 'p'.repeat(100_000) }));
    await expect(withPayloads(plan.record, async () => null)).rejects.toThrow(/params is no longer stored/);
  });
});
