// The one SDK v2 internal (Server._wrapHandler) against the installed @modelcontextprotocol/server:
// there, and reached through interceptHandlers; missing, a clear error naming package and field.
import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { attachTaskServerV2 } from '../../../adapters/mcp-server-v2/index.js';
import { interceptHandlers } from '../../../adapters/mcp-server-v2/v2-sdk-internals.js';
import { createTaskRuntime } from '../../../runtime/index.js';

describe('SDK v2 internals', () => {
  it('should see every handler the server installs, with the SDK-wrapped handler to delegate to', () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    const seen: string[] = [];
    interceptHandlers(server, (method, sdkHandler) => {
      seen.push(method);
      expect(typeof sdkHandler).toBe('function');
      return sdkHandler;
    });
    server.setRequestHandler('tools/list', () => ({ tools: [] }));
    expect(seen).toEqual(['tools/list']);
  });

  it('should refuse to attach, naming the package and the field, when the SDK has no _wrapHandler', () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: {} });
    Object.defineProperty(server, '_wrapHandler', { value: undefined });
    expect(() => attachTaskServerV2(server, { runtime: createTaskRuntime(), tools: [] })).toThrow(/@modelcontextprotocol\/server: Server\._wrapHandler is undefined, expected a function/);
  });
});
