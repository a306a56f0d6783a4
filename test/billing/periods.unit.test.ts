// Billing periods are calendar arithmetic in UTC: a month from 31 January is the end of February,
// never 30 days (`addInterval`), and a subscription's periods are counted from its billing anchor, so
// they never drift to a shorter month's day (`periodEndAfter`); each renewal starts where the last
// period ended.
import { describe, expect, it } from 'vitest';
import { periodEndAfter } from '../../server/domain/billing/period-billing.js';
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

describe("periodEndAfter: a subscription's billing period, counted from its billing anchor", () => {
  const monthly = (anchor: string, count = 1) => ({ billing_anchor: at(anchor), interval: 'month' as const, interval_count: count });
  const end = (s: Parameters<typeof periodEndAfter>[0], from: string) => iso(periodEndAfter(s, at(from)));

  it("a monthly period ends on the anchor's day, or on the month's last day when it is shorter, and the next goes back to the anchor's day: it never drifts", () => {
    const s = monthly('2026-01-31T10:00:00.000Z');
    expect(end(s, '2026-01-31T10:00:00.000Z')).toBe('2026-02-28T10:00:00.000Z');
    expect(end(s, '2026-02-28T10:00:00.000Z')).toBe('2026-03-31T10:00:00.000Z');
    expect(end(s, '2026-03-31T10:00:00.000Z')).toBe('2026-04-30T10:00:00.000Z');
    expect(end(s, '2026-04-30T10:00:00.000Z')).toBe('2026-05-31T10:00:00.000Z');
    expect(end(monthly('2028-01-31T10:00:00.000Z'), '2028-01-31T10:00:00.000Z')).toBe('2028-02-29T10:00:00.000Z');
  });

  it('the end is the first instant after the given time that is a whole number of intervals from the anchor', () => {
    const s = monthly('2026-01-31T10:00:00.000Z');
    expect(end(s, '2026-02-10T00:00:00.000Z')).toBe('2026-02-28T10:00:00.000Z');
    expect(end(s, '2026-02-28T09:59:59.999Z')).toBe('2026-02-28T10:00:00.000Z');
    expect(end(s, '2026-02-28T10:00:00.000Z')).toBe('2026-03-31T10:00:00.000Z');
    // Years on, still counted from the anchor (2036 is a leap year).
    expect(end(s, '2036-02-15T00:00:00.000Z')).toBe('2036-02-29T10:00:00.000Z');
  });

  it('several months or a year are counted from the anchor too: a quarter from 30 November, a year from 29 February', () => {
    const quarterly = monthly('2026-11-30T12:00:00.000Z', 3);
    expect(end(quarterly, '2026-11-30T12:00:00.000Z')).toBe('2027-02-28T12:00:00.000Z');
    expect(end(quarterly, '2027-02-28T12:00:00.000Z')).toBe('2027-05-30T12:00:00.000Z');
    const yearly = { billing_anchor: at('2028-02-29T06:00:00.000Z'), interval: 'year' as const, interval_count: 1 };
    expect(end(yearly, '2028-02-29T06:00:00.000Z')).toBe('2029-02-28T06:00:00.000Z');
    expect(end(yearly, '2031-03-01T00:00:00.000Z')).toBe('2032-02-29T06:00:00.000Z');
  });

  it('weeks and days are exact lengths of time from the anchor', () => {
    const fortnightly = { billing_anchor: at('2026-03-01T08:00:00.000Z'), interval: 'week' as const, interval_count: 2 };
    expect(end(fortnightly, '2026-03-01T08:00:00.000Z')).toBe('2026-03-15T08:00:00.000Z');
    expect(end(fortnightly, '2026-03-20T00:00:00.000Z')).toBe('2026-03-29T08:00:00.000Z');
    const every45Days = { billing_anchor: at('2026-03-01T08:00:00.000Z'), interval: 'day' as const, interval_count: 45 };
    expect(end(every45Days, '2026-03-01T08:00:00.000Z')).toBe('2026-04-15T08:00:00.000Z');
  });
});
