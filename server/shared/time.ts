/** A plan's billing interval. */
export type PlanInterval = 'day' | 'week' | 'month' | 'year';

const DAY_MS = 86_400_000;

const daysInMonth = (year: number, monthIndex: number) => new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();

/**
 * `from` plus `count` intervals, in UTC. Days and weeks are exact lengths of time. Months and
 * years are calendar arithmetic: the same day of the month and time of day, or the month's last
 * day when it is shorter (31 January + 1 month = 28 or 29 February; 29 February + 1 year =
 * 28 February), never a 30-day approximation.
 */
export function addInterval(from: Date, interval: PlanInterval, count: number): Date {
  if (interval === 'day') return new Date(from.getTime() + count * DAY_MS);
  if (interval === 'week') return new Date(from.getTime() + count * 7 * DAY_MS);
  const months = interval === 'year' ? count * 12 : count;
  const target = from.getUTCMonth() + months;
  const year = from.getUTCFullYear() + Math.floor(target / 12);
  const month = ((target % 12) + 12) % 12;
  const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

/** `from` plus whole days (a free trial's length). */
export const addDays = (from: Date, days: number): Date => new Date(from.getTime() + days * DAY_MS);
