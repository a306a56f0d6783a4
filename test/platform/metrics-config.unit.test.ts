// TILL_METRICS_TOKEN: unset serves no /metrics; a token too short to be a secret is refused at start.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';

describe('TILL_METRICS_TOKEN', () => {
  it('is off when unset or empty', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ TILL_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
  });

  it('takes a token of 16 printable characters or more', () => {
    expect(loadConfig({ TILL_METRICS_TOKEN: 'a'.repeat(16) }).metricsToken).toBe('a'.repeat(16));
  });

  it('refuses a short token or one with spaces, saying what it needs', () => {
    for (const token of ['short', 'sixteen chars ok']) {
      expect(() => loadConfig({ TILL_METRICS_TOKEN: token })).toThrow(/at least 16 printable characters without spaces/);
    }
  });
});
