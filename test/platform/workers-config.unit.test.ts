// TILL_WORKERS in the configuration: several processes on one port need a database they can share.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';

describe('TILL_WORKERS', () => {
  it('more than one worker without DATABASE_URL is refused at start, saying why', () => {
    expect(() => loadConfig({ TILL_WORKERS: '2' })).toThrow(/TILL_WORKERS=2 needs DATABASE_URL/);
    expect(() => loadConfig({ TILL_WORKERS: '0' })).toThrow(/TILL_WORKERS/);
    expect(loadConfig({}).workers).toBe(1);
  });
});
