import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../../adapters/wire/request-target.js';

describe('requestTarget', () => {
  it('should read origin-form targets as path and query, keeping the path as sent', () => {
    expect(requestTarget('/mcp?token=a%20b')).toMatchObject({ path: '/mcp' });
    expect((requestTarget('/mcp?token=a%20b') as { query: URLSearchParams }).query.get('token')).toBe('a b');
    for (const odd of ['//', '///', '//@', '//evil.example/mcp', '/mcp/../mcp']) expect(requestTarget(odd)).toMatchObject({ path: odd });
  });

  it('should read absolute-form targets by their path', () => {
    expect(requestTarget('http://127.0.0.1:3000/mcp?x=1')).toMatchObject({ path: '/mcp' });
  });

  it('should refuse what is not a path, never throwing', () => {
    for (const bad of ['/\\', '*', '@evil', '', 'mcp', '/%zz', '/a b', 'http://[::1', '/mcp?a=%', undefined]) {
      expect(requestTarget(bad), String(bad)).toHaveProperty('refused');
    }
  });
});
