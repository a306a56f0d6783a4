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

/** The last instant a date query may name: the end of 9999-12-31, the last day of four-digit years that dates print and the database reads. */
const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The end of a UTC day (the next day's start), as the exclusive end of a period of whole days; for
 * 9999-12-31, the last day a `format: date` parameter can name, its last millisecond instead (the
 * next day, in year 10000, is past what the database driver prints and PostgreSQL reads as a
 * timestamp).
 */
export const endOfDay = (day: Date): Date => new Date(Math.min(day.getTime() + DAY_MS, LAST_INSTANT_MS));
