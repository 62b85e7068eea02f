/**
 * One rule for which entries a long timeline keeps, on both backends: the memory backend gives up
 * an entry as each one is added (`appendToTrail`), the NATS backend cuts a timeline read whole
 * (`boundTimeline`); both by `entryToDrop`, and so always alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendToTrail, readTrail, type TimelineLog } from '../../../runtime/backends/memory/timeline-log.js';
import { boundTimeline } from '../../../runtime/observer-timeline.js';
import { MAX_TIMELINE_ENTRIES, TimelineEvent } from '../../../runtime/observer.types.js';

const LATER = Object.values(TimelineEvent).filter((e) => e !== TimelineEvent.created);
const entry = (event: TimelineEvent, at: number) => ({ at, event, status: 'working' as const, previous: 'working' as const, node: 'n', message: null });

describe('bounded timelines', () => {
  it('should keep the same entries whether they are cut as they come (memory) or read whole (NATS)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LATER), { maxLength: 200, size: 'max' }), fc.integer({ min: 2, max: 60 }), (events, max) => {
        const entries = [entry(TimelineEvent.created, 0), ...events.map((e, i) => entry(e, i + 1))];
        const cut = boundTimeline(entries, max);
        expect(cut.length).toBe(Math.min(entries.length, max));
        expect(cut[0]!.event).toBe(TimelineEvent.created);
        // The memory backend's bound is MAX_TIMELINE_ENTRIES.
        const whole = boundTimeline(entries);
        const log: TimelineLog = { trail: [], notes: null };
        entries.forEach((e) => appendToTrail(log, e.at, e.event, 'working', 'working', null));
        expect(readTrail(log, 'n').map((e) => [e.at, e.event])).toEqual(whole.map((e) => [e.at, e.event]));
      }),
      { numRuns: 300, seed: 36 },
    );
  });

  it('should give up reports (progress, messages, handler states) before any step the task took', () => {
    const steps = [TimelineEvent.start, TimelineEvent.inputRequest, TimelineEvent.inputResponse];
    const reports: readonly TimelineEvent[] = Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? TimelineEvent.progress : TimelineEvent.handler));
    const events = [TimelineEvent.created, steps[0]!, ...reports.slice(0, 60), steps[1]!, steps[2]!, ...reports.slice(60), TimelineEvent.complete];
    const kept = boundTimeline(events.map((e, i) => entry(e, i)));
    expect(kept).toHaveLength(MAX_TIMELINE_ENTRIES);
    expect(kept.filter((e) => !reports.includes(e.event)).map((e) => e.event)).toEqual([TimelineEvent.created, ...steps, TimelineEvent.complete]);
    // The reports kept are the latest: everything after the last step but the end.
    expect(kept.at(-2)!.at).toBe(events.length - 2);
  });
});
