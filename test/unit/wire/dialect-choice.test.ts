// The one rule for which dialect a requester speaks, and which retention each dialect carries.
import { describe, expect, it } from 'vitest';
import { checkRetention, chooseCallDialect, chooseTaskDialect, confirm2025, listedTaskSupport } from '../../../adapters/wire/dialect-choice.js';

const EXT = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const TASKS_2025 = { tasks: { requests: { tools: { call: {} } } } };
const support = (s: string | undefined) => () => Promise.resolve(s);

describe('chooseCallDialect', () => {
  it('should take the 2026-07-28 extension only when declared and the client can speak it', async () => {
    expect(await chooseCallDialect({ capabilities: { ...EXT, ...TASKS_2025 }, canSpeakExtension: true }, support('optional'))).toBe('2026-07-28');
    expect(await chooseCallDialect({ capabilities: { ...EXT, ...TASKS_2025 }, canSpeakExtension: false }, support('optional'))).toBe('2025-11-25');
  });

  it('should take 2025-11-25 only for a tool listed optional or required, else call plainly', async () => {
    const server = { capabilities: TASKS_2025, canSpeakExtension: false };
    expect(await chooseCallDialect(server, support('required'))).toBe('2025-11-25');
    expect(await chooseCallDialect(server, support('forbidden'))).toBe('plain');
    expect(await chooseCallDialect(server, support(undefined))).toBe('plain');
  });

  it('should fall back to SEP-1686 for a tasks capability of another shape, and to a plain call without one', async () => {
    expect(await chooseCallDialect({ capabilities: { tasks: { tools: true } }, canSpeakExtension: false }, support(undefined))).toBe('sep-1686');
    expect(await chooseCallDialect({ capabilities: { tools: {} }, canSpeakExtension: true }, support(undefined))).toBe('plain');
    expect(await chooseCallDialect({ capabilities: undefined, canSpeakExtension: false }, support(undefined))).toBe('plain');
  });

  it('should not ask for the tool listing unless 2025-11-25 is the candidate', async () => {
    let asked = 0;
    await chooseCallDialect({ capabilities: EXT, canSpeakExtension: true }, () => (asked++, Promise.resolve('optional')));
    await chooseCallDialect({ capabilities: {}, canSpeakExtension: false }, () => (asked++, Promise.resolve('optional')));
    expect(asked).toBe(0);
  });

  it('should obey tool-level negotiation when 2025-11-25 is asked for explicitly', async () => {
    expect(await confirm2025({ capabilities: TASKS_2025, canSpeakExtension: false }, support('forbidden'))).toBe('plain');
    expect(await confirm2025({ capabilities: {}, canSpeakExtension: false }, support('optional'))).toBe('plain');
    expect(await confirm2025({ capabilities: TASKS_2025, canSpeakExtension: false }, support('optional'))).toBe('2025-11-25');
  });
});

describe('chooseTaskDialect', () => {
  it('should read an existing task in what the server declares, SEP-1686 last', () => {
    expect(chooseTaskDialect({ capabilities: EXT, canSpeakExtension: true })).toBe('2026-07-28');
    expect(chooseTaskDialect({ capabilities: TASKS_2025, canSpeakExtension: false })).toBe('2025-11-25');
    expect(chooseTaskDialect({ capabilities: {}, canSpeakExtension: false })).toBe('sep-1686');
  });
});

describe('checkRetention', () => {
  it('should let each dialect carry its own retention', () => {
    expect(() => checkRetention('sep-1686', { keepAlive: 1_000 })).not.toThrow();
    expect(() => checkRetention('2025-11-25', { ttl: 1_000 })).not.toThrow();
    expect(() => checkRetention('2026-07-28', {})).not.toThrow();
  });

  it.each([
    ['sep-1686', { ttl: 1_000 }, /ttl 1000 ms, which the sep-1686 dialect cannot carry: it takes keepAlive instead/],
    ['2025-11-25', { keepAlive: 1_000 }, /keepAlive 1000 ms, which the 2025-11-25 dialect cannot carry: it takes ttl instead/],
    ['2026-07-28', { ttl: 5 }, /2026-07-28 dialect cannot carry: it carries no retention/],
    ['plain', { keepAlive: 5 }, /plain dialect cannot carry/],
  ] as const)('should refuse what %s cannot carry, naming both', (dialect, asked, message) => {
    expect(() => checkRetention(dialect, asked)).toThrow(message);
    try {
      checkRetention(dialect, asked);
    } catch (e) {
      expect(e).toMatchObject({ code: 'retention_unsupported' });
    }
  });

  it('should refuse a retention that is not a non-negative number', () => {
    expect(() => checkRetention('sep-1686', { ttl: -1 })).toThrow(TypeError);
  });
});

describe('listedTaskSupport', () => {
  it('should page through tools/list until the tool is found', async () => {
    const pages: Record<string, unknown> = {
      first: { tools: [{ name: 'a' }], nextCursor: 'c2' },
      c2: { tools: [{ name: 'b', execution: { taskSupport: 'required' } }] },
    };
    expect(await listedTaskSupport((cursor) => Promise.resolve(pages[cursor ?? 'first']), 'b')).toBe('required');
    expect(await listedTaskSupport((cursor) => Promise.resolve(pages[cursor ?? 'first']), 'zzz')).toBeUndefined();
  });
});
