// The expected durations (scenarios/durations.ts) name scenarios of the catalogue: a renamed check
// would otherwise lose its early start without anyone noticing.
import { describe, expect, it } from 'vitest';
import { EXPECTED_MS } from '../scenarios/durations.js';
import { scenarios } from '../scenarios/index.js';

describe('expected scenario durations', () => {
  it('name only scenarios of the catalogue, which carry them', () => {
    const byId = new Map(scenarios.map((s) => [s.id, s]));
    for (const [id, ms] of Object.entries(EXPECTED_MS)) expect([id, byId.get(id)?.expectedMs]).toEqual([id, ms]);
  });
});
