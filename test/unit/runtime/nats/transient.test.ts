/**
 * What the NATS backend waits out: a positive list (timeouts, lost connections, JetStream not
 * answering yet), so that a fault of the program surfaces at once. Real nats.js error classes,
 * and the backend's own retry loop (`persistently`) over them.
 */
import { describe, expect, it } from 'vitest';
import { errors as natsErrors, RequestError } from '@nats-io/transport-node';
import { JetStreamApiError } from '@nats-io/jetstream';
import { persistently } from '../../../../runtime/backends/nats/persistently.js';
import { isNatsTransient } from '../../../../runtime/backends/nats/transient.js';
import { NatsUnavailableError, RevisionMismatchError } from '../../../../runtime/backends/nats/errors.js';

describe('isNatsTransient', () => {
  it('should list timeouts, lost connections, no responders and "NATS unavailable", also as a cause', () => {
    expect(isNatsTransient(new natsErrors.TimeoutError())).toBe(true);
    expect(isNatsTransient(new natsErrors.ConnectionError('connection refused'))).toBe(true);
    expect(isNatsTransient(new natsErrors.NoRespondersError('$JS.API.INFO'))).toBe(true);
    expect(isNatsTransient(new RequestError('no responders', { cause: new natsErrors.NoRespondersError('$JS.API.INFO') }))).toBe(true);
    expect(isNatsTransient(new NatsUnavailableError(['nats://127.0.0.1:1'], 'refused'))).toBe(true);
    // What nats.js throws for a JetStream request nobody answered ("jetstream is not enabled").
    expect(isNatsTransient(new Error('jetstream is not enabled', { cause: new RequestError('no responders', { cause: new natsErrors.NoRespondersError('x') }) }))).toBe(true);
  });

  it('should not list a plain Error, a program fault, a decided answer or a connection closed for good', () => {
    expect(isNatsTransient(new Error('TimeoutError: timeout'))).toBe(false);
    expect(isNatsTransient(new TypeError('x is undefined'))).toBe(false);
    expect(isNatsTransient(new RevisionMismatchError('k', 3))).toBe(false);
    expect(isNatsTransient(new natsErrors.ClosedConnectionError())).toBe(false);
    expect(isNatsTransient(new natsErrors.DrainingConnectionError())).toBe(false);
    expect(isNatsTransient('timeout')).toBe(false);
  });

  it('should not list a stream full by its limits, though JetStream answers it 503 (waiting does not empty it)', () => {
    const full = new JetStreamApiError({ code: 503, err_code: 10077, description: 'maximum messages exceeded' });
    expect(isNatsTransient(full)).toBe(false);
    expect(isNatsTransient(new Error('queueing the run', { cause: full }))).toBe(false);
    // The same status without a limit is JetStream not answering yet.
    expect(isNatsTransient(new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' }))).toBe(true);
  });
});

describe('persistently', () => {
  it('should fail at once on a plain Error (one try), not retry it until its deadline', async () => {
    let tries = 0;
    const started = Date.now();
    await expect(
      persistently(() => {
        tries++;
        return Promise.reject(new Error('a bug'));
      }, { giveUpMs: 60_000 }),
    ).rejects.toThrow('a bug');
    expect(tries).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('should retry a NATS timeout until the write succeeds', async () => {
    let tries = 0;
    const out = await persistently(() => (++tries < 3 ? Promise.reject(new natsErrors.TimeoutError()) : Promise.resolve('written')), { giveUpMs: 10_000 });
    expect(out).toBe('written');
    expect(tries).toBe(3);
  });
});
