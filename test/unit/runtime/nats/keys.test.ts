import { describe, expect, it } from 'vitest';
import { hashToken, isTaskKey, nameFromPrefix, ownerToken, taskKey } from '../../../../runtime/backends/nats/keys.js';

const NATS_KV_KEY = /^[-/=.\w]+$/; // the client's own key check
const SUBJECT_TOKEN = /^[^\s.*>]+$/;

describe('taskKey', () => {
  it('should be a valid KV key and two subject tokens whatever the ids hold', () => {
    for (const [ownerKey, taskId] of [
      ['session-1', 'task-1'],
      ['a.b.c', '*'],
      ['>', 'with space and \u00e9 and \u{1F600}'],
      ['', ''],
      ['x'.repeat(10_000), 'y.'.repeat(5_000)],
    ] as const) {
      const key = taskKey({ ownerKey, taskId });
      expect(key).toMatch(NATS_KV_KEY);
      const tokens = key.split('.');
      expect(tokens).toHaveLength(2);
      for (const t of tokens) expect(t).toMatch(SUBJECT_TOKEN);
      expect(isTaskKey(key)).toBe(true);
    }
  });

  it('should name an owner by the same hash when kept, also past the bound of owners kept', () => {
    for (let i = 0; i < 10_050; i++) expect(ownerToken(`owner-${i % 10_020}`)).toBe(hashToken(`owner-${i % 10_020}`));
    expect(taskKey({ ownerKey: 'owner-1', taskId: 't' })).toBe(`${hashToken('owner-1')}.${hashToken('t')}`);
  });

  it('should be deterministic and tell owners and ids apart', () => {
    expect(taskKey({ ownerKey: 'o', taskId: 't' })).toBe(taskKey({ ownerKey: 'o', taskId: 't' }));
    expect(taskKey({ ownerKey: 'o', taskId: 't' })).not.toBe(taskKey({ ownerKey: 'o2', taskId: 't' }));
    expect(taskKey({ ownerKey: 'o', taskId: 't' })).not.toBe(taskKey({ ownerKey: 'o', taskId: 't2' }));
    // no ambiguity from concatenation: the parts are hashed separately
    expect(taskKey({ ownerKey: 'ab', taskId: 'c' })).not.toBe(taskKey({ ownerKey: 'a', taskId: 'bc' }));
  });

  it('should keep the owner as the first token so one owner can be filtered', () => {
    const a = taskKey({ ownerKey: 'o', taskId: '1' });
    const b = taskKey({ ownerKey: 'o', taskId: '2' });
    expect(a.split('.')[0]).toBe(b.split('.')[0]);
    expect(a.split('.')[0]).toBe(hashToken('o'));
  });

  it('should reject strings that are not task keys', () => {
    expect(isTaskKey('tasks.>')).toBe(false);
    expect(isTaskKey('a.b')).toBe(false);
    expect(isTaskKey(`${hashToken('o')}.${hashToken('t')}.x`)).toBe(false);
  });
});

describe('nameFromPrefix', () => {
  it('should turn a subject prefix into a stream name part', () => {
    expect(nameFromPrefix('tasks')).toBe('tasks');
    expect(nameFromPrefix('acme.tasks')).toBe('acme_tasks');
    expect(nameFromPrefix('a b*>')).toBe('a_b__');
  });
});
