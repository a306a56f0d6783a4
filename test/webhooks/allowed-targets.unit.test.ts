// Which addresses a webhook may reach (public-url.ts isAllowedTarget), asked again and again as every
// attempt asks: the answers it remembers are per address and per loopback setting, and stay right
// after it has had to forget them.
import { describe, expect, it } from 'vitest';
import { isAllowedTarget } from '../../server/shared/public-url.js';

describe('isAllowedTarget, asked for every attempt', () => {
  it('answers per address and per loopback setting, the same each time it is asked', () => {
    for (let round = 0; round < 3; round++) {
      expect(isAllowedTarget('203.0.113.7')).toBe(true);
      expect(isAllowedTarget('203.0.113.7', true)).toBe(true);
      expect(isAllowedTarget('127.0.0.1')).toBe(false);
      expect(isAllowedTarget('127.0.0.1', true)).toBe(true);
      expect(isAllowedTarget('::ffff:127.0.0.1', true)).toBe(true);
      expect(isAllowedTarget('::ffff:127.0.0.1')).toBe(false);
      expect(isAllowedTarget('10.1.2.3', true)).toBe(false);
      expect(isAllowedTarget('169.254.169.254', true)).toBe(false);
      expect(isAllowedTarget('not an address', true)).toBe(false);
    }
  });

  it('still answers right once more addresses were asked than it remembers', () => {
    for (let i = 0; i < 2_500; i++) {
      const a = i >> 8;
      const b = i & 255;
      expect(isAllowedTarget(`10.0.${a}.${b}`)).toBe(false);
      expect(isAllowedTarget(`198.51.${a}.${b}`)).toBe(true);
    }
    expect(isAllowedTarget('127.0.0.1')).toBe(false);
    expect(isAllowedTarget('127.0.0.1', true)).toBe(true);
  });
});
