import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../adapters/dialects/2025-11-25/iso-time.js';

describe('isoTime', () => {
  it('writes exactly what Date#toISOString writes', () => {
    const edges = [0, 1, -1, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, -62_167_219_200_000, 253_402_300_799_999, 1_796_235_809_318];
    let seed = 42;
    const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const samples = [...edges, ...Array.from({ length: 20_000 }, () => Math.round(random() * 253_402_300_799_999))];
    for (const ms of samples) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('falls back to Date outside years 0–9999 (and throws as it does for invalid times)', () => {
    expect(isoTime(253_402_300_800_000)).toBe(new Date(253_402_300_800_000).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
