/**
 * What of a trace context a task keeps: a requester's `_meta` (or an embedder's option) is written
 * into every record of the task on NATS, so only a well-formed `traceparent` and a bounded
 * `tracestate` are kept, and never baggage.
 */
import { describe, expect, it } from 'vitest';
import { MAX_KEPT_TRACESTATE, storableTrace } from '../../../runtime/telemetry/tracing.js';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('storableTrace', () => {
  it('should keep a well-formed traceparent and a short tracestate, and drop baggage', () => {
    expect(storableTrace({ traceparent: PARENT, tracestate: 'vendor=1', baggage: 'user=alice' })).toEqual({ traceparent: PARENT, tracestate: 'vendor=1' });
  });

  it('should keep nothing without a well-formed traceparent', () => {
    for (const traceparent of [undefined, 42, '', 'garbage', PARENT.toUpperCase(), `${PARENT}-${'x'.repeat(300)}`, '00-4bf92f35-00f067aa0ba902b7-01']) {
      expect(storableTrace({ traceparent, tracestate: 'a=b' }), String(traceparent)).toBeUndefined();
    }
    expect(storableTrace(undefined)).toBeUndefined();
  });

  it(`should drop a tracestate longer than ${MAX_KEPT_TRACESTATE} characters, keeping the traceparent`, () => {
    expect(storableTrace({ traceparent: PARENT, tracestate: `a=${'b'.repeat(MAX_KEPT_TRACESTATE)}` })).toEqual({ traceparent: PARENT });
    expect(storableTrace({ traceparent: PARENT, tracestate: { not: 'a string' } })).toEqual({ traceparent: PARENT });
  });
});
