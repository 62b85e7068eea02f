/**
 * examples/08-agents-delegation on a real nats-server: agent A (AI SDK, scripted model) delegates
 * to agent B (a NATS front and workers), answers B's question, B's worker is lost mid-job, and
 * another worker resumes B's machine from its checkpoint; A gets the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as delegation } from '../../../examples/08-agents-delegation.js';
import { startNatsServer, type NatsServer } from '../harness/nats-server.js';

let nats: NatsServer | undefined;
beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
}, 30_000);
afterAll(async () => {
  await nats?.stop();
});

describe('examples/08-agents-delegation', () => {
  it("should resume B's job on another worker from its checkpoint and hand A the answer", async () => {
    const seen = await delegation(nats!.url, `example08-${Date.now()}`);
    expect(seen.toolOutput).toBe('Booked Ada 4 legs to Lisbon');
    expect(seen.text).toBe('Done: Booked Ada 4 legs to Lisbon.');
    // Asked once: the answer was in the checkpoint the second worker resumed from.
    expect(seen.asked).toEqual(['plan_trip: Where to?']);
    expect(seen.runs).toHaveLength(2);
    expect(seen.runs[0]).toEqual({ attempt: 1, resumedFrom: null });
    expect(seen.runs[1]!.attempt).toBe(2);
    expect(seen.runs[1]!.resumedFrom).toMatch(/booking/);
    // The front said where it went on; the resumed run re-announces the leg it restored and goes
    // on from there: no leg before the loss is booked again.
    expect(seen.statuses.some((s) => /lost; resumed from booking/.test(s)), String(seen.statuses)).toBe(true);
    const legs = seen.statuses.filter((s) => s.startsWith('booking leg')).map((s) => Number(/leg (\d)/.exec(s)![1]));
    expect(legs.at(-1)).toBe(4);
    expect(legs.every((leg, i) => i === 0 || leg >= legs[i - 1]!), String(legs)).toBe(true);
    expect(legs.filter((leg) => leg === 1)).toHaveLength(1);
  }, 60_000);
});
