import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../runtime/errors.js';
import { PushAllowList } from '../../../runtime/push/push-allow.js';

describe('PushAllowList', () => {
  const allow = new PushAllowList(['https://hooks.example.com/', 'http://127.0.0.1:4555/', 'https://api.example.org/hooks']);

  it('should allow URLs under a prefix', () => {
    expect(allow.allows('https://hooks.example.com/')).toBe(true);
    expect(allow.allows('https://hooks.example.com/t/1?x=2')).toBe(true);
    expect(allow.allows('http://127.0.0.1:4555/push')).toBe(true);
    expect(allow.allows('https://api.example.org/hooks')).toBe(true);
    expect(allow.allows('https://api.example.org/hooks/a')).toBe(true);
    expect(allow.allows('https://api.example.org/hooks?a=1')).toBe(true);
  });

  it('should compare normalized URLs: host case, default port, dot segments', () => {
    expect(allow.allows('HTTPS://HOOKS.example.com:443/x')).toBe(true);
    expect(allow.allows('https://hooks.example.com/a/../b')).toBe(true);
    expect(allow.allows('https://api.example.org/hooks/../admin')).toBe(false);
    expect(allow.allows('https://api.example.org/hooks/%2e%2e/admin')).toBe(false);
    expect(allow.allows('https://api.example.org/hooks/%2E%2E%2Fadmin')).toBe(false);
    expect(allow.allows('https://api.example.org/hooks/..%5cadmin')).toBe(false);
  });

  it('should not let a prefix match a longer host, port or path segment', () => {
    expect(allow.allows('https://hooks.example.com.evil.net/')).toBe(false);
    expect(allow.allows('http://127.0.0.1:45551/')).toBe(false);
    expect(allow.allows('http://127.0.0.1/')).toBe(false);
    expect(allow.allows('https://api.example.org/hooks2')).toBe(false);
    expect(allow.allows('https://api.example.org/hooksx/y')).toBe(false);
    expect(allow.allows('http://hooks.example.com/')).toBe(false); // scheme is part of the prefix
  });

  it('should end a host-only prefix after the host', () => {
    const bare = new PushAllowList(['http://127.0.0.1']);
    expect(bare.prefixes).toEqual(['http://127.0.0.1/']);
    expect(bare.allows('http://127.0.0.1/x')).toBe(true);
    expect(bare.allows('http://127.0.0.1.evil.com/')).toBe(false);
    expect(bare.allows('http://127.0.0.1:8080/')).toBe(false);
    expect(bare.allows('http://127.0.0.1@evil.com/')).toBe(false);
  });

  it('should refuse URLs with credentials, even to an allowed host', () => {
    expect(allow.allows('https://user:pass@hooks.example.com/')).toBe(false);
    expect(allow.allows('https://user@hooks.example.com/')).toBe(false);
    expect(allow.allows('https://hooks.example.com@evil.net/')).toBe(false);
    expect(allow.allows('https://hooks.example.com:@evil.net/')).toBe(false);
  });

  it('should see through backslashes and fragments the way the HTTP client does', () => {
    expect(allow.allows('https:\\\\evil.net\\hooks.example.com/')).toBe(false);
    expect(allow.allows('https://evil.net#@hooks.example.com/')).toBe(false);
    expect(allow.allows('https://evil.net/?https://hooks.example.com/')).toBe(false);
  });

  it('should refuse non-http schemes and text that is not a URL', () => {
    for (const url of ['file:///etc/passwd', 'ftp://hooks.example.com/', 'javascript:alert(1)', 'data:text/plain,x', 'ws://hooks.example.com/', '/relative', '', 'not a url']) {
      expect(allow.allows(url), url).toBe(false);
    }
  });

  it('should allow nothing when empty', () => {
    const none = new PushAllowList();
    expect(none.allows('https://hooks.example.com/')).toBe(false);
    expect(none.allows('http://127.0.0.1:4555/push')).toBe(false);
    expect(new PushAllowList([]).prefixes).toEqual([]);
  });

  it('should refuse prefixes that are not http(s) URLs with a host and nothing after the path', () => {
    for (const prefix of ['hooks.example.com', 'https://', 'file:///tmp/', 'https://u:p@hooks.example.com/', 'https://h/?q=1', 'https://h/a?', 'https://h/#x', '']) {
      expect(() => new PushAllowList([prefix]), prefix).toThrow(InvalidArgumentError);
    }
  });
});
