/**
 * How a node names its NATS server in the outage lines: never with the credentials a URL may
 * carry before its host, nor with a query or fragment after it.
 */
import { describe, expect, it } from 'vitest';
import { serverForLog } from '../../../../runtime/backends/nats/connection-log.js';

describe('serverForLog', () => {
  it('should drop user:pass@, a token@ and a query from a URL or a host:port', () => {
    expect(serverForLog('nats://alice:s3cret@10.0.0.1:4222')).toBe('nats://10.0.0.1:4222');
    expect(serverForLog('tls://t0ken@nats.example:4443/?x=1#y')).toBe('tls://nats.example:4443/');
    expect(serverForLog('alice:s3cret@127.0.0.1:4222')).toBe('127.0.0.1:4222');
    expect(serverForLog('nats://127.0.0.1:4222?token=s3cret')).toBe('nats://127.0.0.1:4222');
    // An @ left unencoded in a password: everything up to the host's @ goes.
    expect(serverForLog('nats://alice:p@ss@10.0.0.1:4222')).toBe('nats://10.0.0.1:4222');
  });

  it('should leave a plain server as it is', () => {
    expect(serverForLog('127.0.0.1:4222')).toBe('127.0.0.1:4222');
    expect(serverForLog('nats://[::1]:4222')).toBe('nats://[::1]:4222');
  });
});
