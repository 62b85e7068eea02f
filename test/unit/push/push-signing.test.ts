import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PushHeader, signPush, verifyPush } from '../../../runtime/push/push-signing.js';

const body = '{"taskId":"t-1","status":"completed"}';
const secret = 'whsec_test';
const sentAt = 1_700_000_000_123; // epoch ms; signed as 1700000000 s
// Computed outside the project: printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac whsec_test
const OPENSSL_VECTOR = '4b58ab0ee86f1f68e0249298353982c515ffeee0caadd0d3a06b3f20e35ccf7f';

describe('signPush', () => {
  it('should sign "<unix seconds>.<body>" with HMAC-SHA256 of the secret, as v1=<hex>', () => {
    const headers = signPush(body, secret, sentAt);
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(expected).toBe(OPENSSL_VECTOR);
    expect(headers).toEqual({
      'content-type': 'application/json',
      'x-mcp-task-actors-timestamp': '1700000000',
      'x-mcp-task-actors-signature': `v1=${OPENSSL_VECTOR}`,
    });
  });
});

describe('verifyPush', () => {
  const signed = signPush(body, secret, sentAt);
  const now = sentAt + 2_000;

  it('should accept what signPush signed, as a plain header object, a Headers object or raw bytes', () => {
    expect(verifyPush(body, signed, secret, { now })).toBe(true);
    expect(verifyPush(body, new Headers(signed), secret, { now })).toBe(true);
    expect(verifyPush(Buffer.from(body), signed, secret, { now })).toBe(true);
    const shouted = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyPush(body, shouted, secret, { now })).toBe(true);
  });

  it('should refuse a changed body, another secret or a changed signature', () => {
    expect(verifyPush(body.replace('completed', 'failed'), signed, secret, { now })).toBe(false);
    expect(verifyPush(body, signed, 'whsec_other', { now })).toBe(false);
    const flipped = OPENSSL_VECTOR.slice(0, -1) + (OPENSSL_VECTOR.endsWith('f') ? 'e' : 'f');
    expect(verifyPush(body, { ...signed, [PushHeader.signature]: `v1=${flipped}` }, secret, { now })).toBe(false);
    expect(verifyPush(body, { ...signed, [PushHeader.signature]: `v0=${OPENSSL_VECTOR}` }, secret, { now })).toBe(false);
    expect(verifyPush(body, { ...signed, [PushHeader.signature]: `v1=${OPENSSL_VECTOR.slice(0, 32)}` }, secret, { now })).toBe(false);
  });

  it('should refuse a timestamp moved to another second (the signature covers it)', () => {
    expect(verifyPush(body, { ...signed, [PushHeader.timestamp]: '1700000001' }, secret, { now })).toBe(false);
  });

  it('should refuse a stale or far-future timestamp, and accept one within the tolerance', () => {
    const at = 1_700_000_000_000;
    expect(verifyPush(body, signed, secret, { now: at + 300_000 })).toBe(true);
    expect(verifyPush(body, signed, secret, { now: at + 300_001 })).toBe(false);
    expect(verifyPush(body, signed, secret, { now: at - 300_001 })).toBe(false);
    expect(verifyPush(body, signed, secret, { now: at + 30_000, toleranceSeconds: 10 })).toBe(false);
  });

  it('should accept any one matching v1 entry among several (secret rotation)', () => {
    const old = signPush(body, 'whsec_old', sentAt)[PushHeader.signature];
    const both = { ...signed, [PushHeader.signature]: `${old}, ${signed[PushHeader.signature]}` };
    expect(verifyPush(body, both, secret, { now })).toBe(true);
    expect(verifyPush(body, both, 'whsec_old', { now })).toBe(true);
    expect(verifyPush(body, both, 'whsec_none', { now })).toBe(false);
  });

  it('should refuse missing or malformed headers', () => {
    expect(verifyPush(body, {}, secret, { now })).toBe(false);
    expect(verifyPush(body, { [PushHeader.signature]: signed[PushHeader.signature] }, secret, { now })).toBe(false);
    expect(verifyPush(body, { ...signed, [PushHeader.timestamp]: '1700000000.5' }, secret, { now })).toBe(false);
    expect(verifyPush(body, { ...signed, [PushHeader.timestamp]: '-1' }, secret, { now })).toBe(false);
  });
});
