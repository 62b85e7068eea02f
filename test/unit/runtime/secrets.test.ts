/**
 * The one list of what is secret and its helpers (`runtime/secrets.ts`): a URL's credentials taken
 * out (and kept for logging in), a URL printed without credentials or query, session ids and
 * bearer task ids shortened as the inspector shortens them, and the NATS servers of a
 * connection's options stripped of the credentials written into them.
 */
import { describe, expect, it } from 'vitest';
import { natsUrlCredentials, resolveNatsConnectionOptions } from '../../../runtime/backends/nats/connection.js';
import { NatsUnavailableError } from '../../../runtime/backends/nats/errors.js';
import { bearerOwner, redactedUrl, SECRET_SETTINGS, shortened, shownSession, shownTaskId, urlCredentials } from '../../../runtime/secrets.js';
import { ANONYMOUS_OWNER } from '../../../runtime/task-identity.js';
import { natsSettings } from '../../../adapters/cli/nats-flags.js';

describe('urlCredentials', () => {
  it('should take a user and password out of a URL, percent-escapes decoded', () => {
    expect(urlCredentials('nats://alice:s3cr%40t@10.0.0.1:4222')).toEqual({ url: 'nats://10.0.0.1:4222', user: 'alice', pass: 's3cr@t' });
  });
  it('should take a password with an unencoded @ out whole (the last @ of the authority ends it)', () => {
    expect(urlCredentials('nats://alice:p@ss@10.0.0.1:4222')).toEqual({ url: 'nats://10.0.0.1:4222', user: 'alice', pass: 'p@ss' });
    expect(redactedUrl('nats://alice:p@ss@10.0.0.1:4222/x?y=@z')).toBe('nats://10.0.0.1:4222/x?…');
  });
  it('should read userinfo without a password as a token', () => {
    expect(urlCredentials('nats://t0ken@10.0.0.1:4222')).toEqual({ url: 'nats://10.0.0.1:4222', token: 't0ken' });
  });
  it('should leave a URL without userinfo as it is, an @ in its path or query included', () => {
    expect(urlCredentials('nats://10.0.0.1:4222')).toEqual({ url: 'nats://10.0.0.1:4222' });
    expect(urlCredentials('https://h.example/a?to=x@y')).toEqual({ url: 'https://h.example/a?to=x@y' });
  });
});

describe('redactedUrl', () => {
  it('should drop credentials and replace the query string and fragment', () => {
    expect(redactedUrl('https://u:p@hooks.example.com/t?sig=abc#x')).toBe('https://hooks.example.com/t?…');
    expect(redactedUrl('https://hooks.example.com/t#frag')).toBe('https://hooks.example.com/t#…');
    expect(redactedUrl('nats://alice:s3cret@10.0.0.1:4222')).toBe('nats://10.0.0.1:4222');
    expect(redactedUrl('https://hooks.example.com/t')).toBe('https://hooks.example.com/t');
  });
  it('should shorten text that is no URL', () => {
    expect(redactedUrl('not a url with s3cret-value')).toBe('not a ur…');
  });
});

describe('shortened ids', () => {
  const uuid = '6f1c2a9b-0d4e-4c1f-9a7b-3e2d1c0b9a88';
  it("should shorten as the inspector does, idempotently", () => {
    expect(shortened(uuid)).toBe('6f1c2a9b…');
    expect(shortened(shortened(uuid))).toBe('6f1c2a9b…');
    expect(shortened('short')).toBe('…');
  });
  it('should always shorten a session id, but not the anonymous label nor an absent one', () => {
    expect(shownSession(uuid)).toBe('6f1c2a9b…');
    expect(shownSession(null)).toBeNull();
    expect(shownSession(undefined)).toBeUndefined();
    expect(shownSession(ANONYMOUS_OWNER.session)).toBe(ANONYMOUS_OWNER.session);
  });
  it("should shorten a task id only when it is a bearer handle (the anonymous 2026-07-28 owner's)", () => {
    expect(bearerOwner(ANONYMOUS_OWNER)).toBe(true);
    expect(shownTaskId(uuid, ANONYMOUS_OWNER)).toBe('6f1c2a9b…');
    expect(shownTaskId(uuid, { session: 's1', principal: null })).toBe(uuid);
    expect(shownTaskId(uuid, { session: null, principal: 'alice' })).toBe(uuid);
  });
});

describe('SECRET_SETTINGS', () => {
  it('should list every secret flag with its MCP_TASKS_ variable', () => {
    expect(SECRET_SETTINGS.map((s) => s.flag)).toEqual(expect.arrayContaining(['--auth-token', '--operator-token', '--inspect-token', '--inspect-operator', '--nats-token', '--nats-pass']));
    for (const s of SECRET_SETTINGS) expect(s.env).toMatch(/^MCP_TASKS_[A-Z_]+$/);
  });
});

describe('NATS credentials in a URL', () => {
  it('should log in with them and name the servers without them', () => {
    const resolved = resolveNatsConnectionOptions({ servers: ['nats://alice:s3cret@10.0.0.1:4222', 'nats://10.0.0.2:4222'] });
    expect(resolved).toMatchObject({ servers: ['nats://10.0.0.1:4222', 'nats://10.0.0.2:4222'], user: 'alice', pass: 's3cret', token: undefined });
    expect(natsUrlCredentials(['nats://tok@h:1'])).toEqual({ servers: ['nats://h:1'], token: 'tok', user: undefined, pass: undefined });
    expect(new NatsUnavailableError(resolved.servers, 'Authorization Violation').message).not.toContain('s3cret');
  });
  it('should let credentials given apart win over those in the URL', () => {
    expect(resolveNatsConnectionOptions({ servers: 'nats://alice:s3cret@h:1', token: 'given' })).toMatchObject({ servers: ['nats://h:1'], token: 'given', user: undefined, pass: undefined });
    const settings = natsSettings({ nats: 'nats://alice:s3cret@h:1', 'nats-pass': 'flag-pass' }, {});
    expect(settings?.connection).toEqual({ servers: ['nats://h:1'], pass: 'flag-pass' });
    expect(natsSettings({}, { MCP_TASKS_NATS_URL: 'nats://bob:pw@h:1' })?.connection).toEqual({ servers: ['nats://h:1'], user: 'bob', pass: 'pw' });
  });
});
