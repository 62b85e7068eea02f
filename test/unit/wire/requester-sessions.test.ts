/**
 * The share rule of `maxSessionsPerRequester` (issue 42, item 5): sessions are counted per
 * principal, or per peer address when anonymous, and a session that ends frees its place.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SESSIONS_PER_REQUESTER, RequesterSessions, sessionRequester } from '../../../adapters/wire/requester-sessions.js';

describe('sessionRequester', () => {
  it('should be the principal when authenticated, whatever the address, else the peer address', () => {
    expect(sessionRequester('alice', '10.0.0.1')).toBe(sessionRequester('alice', '10.0.0.2'));
    expect(sessionRequester(null, '10.0.0.1')).not.toBe(sessionRequester(null, '10.0.0.2'));
    // A principal named like an address is not that address.
    expect(sessionRequester('10.0.0.1', undefined)).not.toBe(sessionRequester(null, '10.0.0.1'));
    // Loopback is an address like any other; IPv4 through an IPv6 socket is the same peer.
    expect(sessionRequester(null, '::ffff:127.0.0.1')).toBe(sessionRequester(null, '127.0.0.1'));
    expect(sessionRequester(null, '::1')).toBe('peer:::1');
  });
});

describe('RequesterSessions', () => {
  it('should refuse a requester at its share and no other, naming the limit, its flag and when to retry', () => {
    const shares = new RequesterSessions(2);
    shares.add('s1', 'peer:a');
    expect(shares.refusal('peer:a')).toBeNull();
    shares.add('s2', 'peer:a');
    const refusal = shares.refusal('peer:a');
    expect(refusal).toMatchObject({ status: 503, retryAfter: '60', body: { error: { code: -32029, data: { limit: 'maxSessionsPerRequester', retryAfterMs: 60_000 } } } });
    expect(refusal!.body.error.message).toContain('--max-sessions-per-requester');
    expect(shares.refusal('peer:b')).toBeNull();
  });

  it('should count a session once, and free its place when it ends', () => {
    const shares = new RequesterSessions(1);
    shares.add('s1', 'peer:a');
    shares.add('s1', 'peer:a');
    expect(shares.count('peer:a')).toBe(1);
    shares.remove('s1');
    shares.remove('s1');
    shares.remove('unknown');
    expect(shares.count('peer:a')).toBe(0);
    expect(shares.refusal('peer:a')).toBeNull();
    shares.add('s2', 'peer:a');
    shares.clear();
    expect(shares.count('peer:a')).toBe(0);
  });

  it('should refuse nobody without a share, and default to 100', () => {
    const shares = new RequesterSessions(null);
    for (let i = 0; i < 1_000; i++) shares.add(`s${i}`, 'peer:a');
    expect(shares.refusal('peer:a')).toBeNull();
    expect(DEFAULT_MAX_SESSIONS_PER_REQUESTER).toBe(100);
  });
});
