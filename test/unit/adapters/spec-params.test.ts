/**
 * The SDK v2 request checks a task answer runs first (`spec-params.ts`), with the SDK's own
 * schemas: what they refuse never becomes a task, and the error names the field.
 */
import { specTypeSchemas as clientSchemas } from '@modelcontextprotocol/client';
import { specTypeSchemas as serverSchemas } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { checkSpecParams } from '../../../adapters/mcp-server-v2/spec-params.js';

const refusal = (fn: () => void): { code?: number; message?: string } | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error as { code?: number; message?: string };
  }
};

describe('checkSpecParams', () => {
  it('lets well-formed taskable requests through', () => {
    expect(refusal(() => checkSpecParams(serverSchemas, 'tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 5000 } }))).toBeUndefined();
    expect(refusal(() => checkSpecParams(serverSchemas, 'resources/read', { uri: 'demo://report', task: {} }))).toBeUndefined();
    expect(refusal(() => checkSpecParams(clientSchemas, 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} }, task: {} }))).toBeUndefined();
    expect(refusal(() => checkSpecParams(serverSchemas, 'tasks/get', { anything: true }))).toBeUndefined();
  });

  it('refuses what the SDK would, with -32602 naming the field', () => {
    expect(refusal(() => checkSpecParams(serverSchemas, 'tools/call', { name: 'sleep', task: { ttl: null } }))).toMatchObject({
      code: -32602,
      message: 'Invalid params for tools/call: task.ttl: Invalid input: expected number, received null',
    });
    expect(refusal(() => checkSpecParams(serverSchemas, 'tools/call', { name: 'sleep', arguments: [] }))?.message).toMatch(/^Invalid params for tools\/call: arguments: /);
  });

  it("words a union's refusal by the branch that came closest", () => {
    const error = refusal(() => checkSpecParams(clientSchemas, 'elicitation/create', { requestedSchema: { type: 'object', properties: {} }, task: {} }));
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(/^Invalid params for elicitation\/create: message: /);
  });
});
