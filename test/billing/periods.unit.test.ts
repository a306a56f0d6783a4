// Billing intervals are calendar arithmetic in UTC: a month from 31 January is the end of
// February, never 30 days.
import { describe, expect, it } from 'vitest';
import { addDays, addInterval } from '../../server/shared/time.js';

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();

describe('addInterval', () => {
  it('adds days and weeks as exact lengths of time', () => {
    expect(iso(addInterval(at('2026-03-28T10:00:00.000Z'), 'day', 3))).toBe('2026-03-31T10:00:00.000Z');
    expect(iso(addInterval(at('2026-12-28T23:59:59.999Z'), 'week', 1))).toBe('2027-01-04T23:59:59.999Z');
  });

  it("keeps the day of the month and the time of day, or takes the month's last day when it is shorter", () => {
    expect(iso(addInterval(at('2026-01-15T08:30:00.000Z'), 'month', 1))).toBe('2026-02-15T08:30:00.000Z');
    expect(iso(addInterval(at('2026-01-31T08:30:00.000Z'), 'month', 1))).toBe('2026-02-28T08:30:00.000Z');
    expect(iso(addInterval(at('2028-01-31T00:00:00.000Z'), 'month', 1))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(addInterval(at('2026-03-31T00:00:00.000Z'), 'month', 1))).toBe('2026-04-30T00:00:00.000Z');
  });

  it('crosses year ends, and counts several months at once from the start (not month by month)', () => {
    expect(iso(addInterval(at('2026-11-30T12:00:00.000Z'), 'month', 3))).toBe('2027-02-28T12:00:00.000Z');
    expect(iso(addInterval(at('2026-01-31T12:00:00.000Z'), 'month', 2))).toBe('2026-03-31T12:00:00.000Z');
    expect(iso(addInterval(at('2026-12-31T00:00:00.000Z'), 'month', 14))).toBe('2028-02-29T00:00:00.000Z');
  });

  it('adds years as twelve months: 29 February goes to 28 February, and back to 29 four years on', () => {
    expect(iso(addInterval(at('2028-02-29T06:00:00.000Z'), 'year', 1))).toBe('2029-02-28T06:00:00.000Z');
    expect(iso(addInterval(at('2028-02-29T06:00:00.000Z'), 'year', 4))).toBe('2032-02-29T06:00:00.000Z');
  });

  it('goes back as well as forth', () => {
    expect(iso(addInterval(at('2026-03-31T00:00:00.000Z'), 'month', -1))).toBe('2026-02-28T00:00:00.000Z');
    expect(iso(addInterval(at('2026-01-10T00:00:00.000Z'), 'month', -13))).toBe('2024-12-10T00:00:00.000Z');
  });
});

describe('addDays', () => {
  it('adds whole days of 24 hours (a trial)', () => {
    expect(iso(addDays(at('2026-10-24T22:15:00.000Z'), 14))).toBe('2026-11-07T22:15:00.000Z');
    expect(iso(addDays(at('2026-10-24T22:15:00.000Z'), 0))).toBe('2026-10-24T22:15:00.000Z');
  });
});
