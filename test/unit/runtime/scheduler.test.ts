import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DeadlineScheduler } from '../../../runtime/index.js';

describe('DeadlineScheduler', () => {
  it('should fire keys in deadline order, once each', async () => {
    const fired: string[] = [];
    const s = new DeadlineScheduler((k) => fired.push(k));
    const now = Date.now();
    s.schedule('c', now + 30);
    s.schedule('a', now + 5);
    s.schedule('b', now + 15);
    await delay(80);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(s.size).toBe(0);
    s.dispose();
  });

  it('should honour the latest deadline of a key and forget cancelled keys', async () => {
    const fired: string[] = [];
    const s = new DeadlineScheduler((k) => fired.push(k));
    const now = Date.now();
    s.schedule('moved', now + 5);
    s.schedule('moved', now + 40);
    s.schedule('gone', now + 5);
    s.cancel('gone');
    await delay(20);
    expect(fired).toEqual([]);
    await delay(60);
    expect(fired).toEqual(['moved']);
    s.dispose();
  });
});
