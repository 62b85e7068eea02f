import { describe, expect, it } from 'vitest';
import { natsSettings } from '../../../adapters/cli/nats-flags.js';

describe('NATS settings from flags and environment', () => {
  it('is null without a server: the memory backend', () => {
    expect(natsSettings({}, {})).toBeNull();
    expect(natsSettings({}, { MCP_TASKS_NATS_URL: '' })).toBeNull();
  });

  it('reads a server list, credentials, TLS, prefix and replicas from the environment', () => {
    const s = natsSettings({}, {
      MCP_TASKS_NATS_URL: 'nats://a:4222, nats://b:4222',
      MCP_TASKS_NATS_TOKEN: 't0k',
      MCP_TASKS_NATS_USER: 'u',
      MCP_TASKS_NATS_PASS: 'p',
      MCP_TASKS_NATS_CREDS: '/etc/x.creds',
      MCP_TASKS_NATS_CA: '/etc/ca.pem',
      MCP_TASKS_NATS_CERT: '/etc/c.pem',
      MCP_TASKS_NATS_KEY: '/etc/k.pem',
      MCP_TASKS_NATS_PREFIX: 'acme.tasks',
      MCP_TASKS_NATS_REPLICAS: '3',
    });
    expect(s).toEqual({
      connection: {
        servers: ['nats://a:4222', 'nats://b:4222'],
        token: 't0k',
        user: 'u',
        pass: 'p',
        credsFile: '/etc/x.creds',
        tls: { caFile: '/etc/ca.pem', certFile: '/etc/c.pem', keyFile: '/etc/k.pem' },
      },
      prefix: 'acme.tasks',
      replicas: 3,
    });
  });

  it('lets a flag win over the environment', () => {
    const s = natsSettings({ nats: 'nats://flag:1', 'nats-prefix': 'p2', 'nats-token': 'flag' }, { MCP_TASKS_NATS_URL: 'nats://env:2', MCP_TASKS_NATS_TOKEN: 'env' });
    expect(s?.connection.servers).toEqual(['nats://flag:1']);
    expect(s?.connection.token).toBe('flag');
    expect(s?.prefix).toBe('p2');
    expect(s?.replicas).toBe(1);
  });

  it('refuses a replica count NATS cannot have', () => {
    expect(() => natsSettings({ nats: 'nats://x:1', 'nats-replicas': '2' }, {})).toThrow("--nats-replicas expects 1, 3 or 5, got '2'");
  });
});
