// randomToken (server/shared/crypto.ts): base62 text of the length asked, from
// CSPRNG bytes read in blocks of 4 KB; tokens that cross a block's end are as good as the rest.
import { describe, expect, it } from 'vitest';
import { randomToken } from '../../server/shared/crypto.js';

const BASE62 = /^[A-Za-z0-9]+$/;

describe('random tokens', () => {
  it('are base62 of the length asked, and never repeat, across many blocks of the pool', () => {
    // 20,000 tokens of 24 characters draw some 500 KB: about 120 refills of the 4 KB pool.
    const tokens = Array.from({ length: 20_000 }, () => randomToken(24));
    expect(tokens).toHaveLength(20_000);
    expect(tokens.every((t) => t.length === 24 && BASE62.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(20_000);
    for (const length of [1, 10, 32, 5000]) expect(randomToken(length)).toMatch(new RegExp(`^[A-Za-z0-9]{${length}}$`));
  });

  it('use every character of the alphabet about as often (no modulo bias, no stuck bytes)', () => {
    const counts = new Map<string, number>();
    for (const ch of randomToken(620_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 10,000 expected each; a binomial's standard deviation here is about 99, so ±6% is some 6 deviations.
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(600);
  });
});
