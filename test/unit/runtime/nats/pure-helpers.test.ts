import { describe, expect, it } from 'vitest';
import { isExpired } from '../../../../runtime/backends/nats/leases.js';
import { resolveNatsConnectionOptions } from '../../../../runtime/backends/nats/connection.js';

describe('isExpired', () => {
  it('should expire exactly at expiresAt', () => {
    expect(isExpired({ nodeId: 'a', expiresAt: 1_000 }, 999)).toBe(false);
    expect(isExpired({ nodeId: 'a', expiresAt: 1_000 }, 1_000)).toBe(true);
  });

  it('should treat a missing lease as expired', () => {
    expect(isExpired(null, 0)).toBe(true);
  });
});

describe('resolveNatsConnectionOptions', () => {
  it('should default to the local server and fail-fast timeouts', () => {
    const o = resolveNatsConnectionOptions({});
    expect(o.servers).toEqual(['nats://127.0.0.1:4222']);
    expect(o.connectTimeoutMs).toBe(5_000);
  });

  it('should accept one URL or a list', () => {
    expect(resolveNatsConnectionOptions({ servers: 'nats://h:1' }).servers).toEqual(['nats://h:1']);
    expect(resolveNatsConnectionOptions({ servers: ['nats://h:1', 'nats://h:2'] }).servers).toEqual(['nats://h:1', 'nats://h:2']);
  });
});
