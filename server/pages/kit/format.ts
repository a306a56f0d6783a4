import { Decimal } from 'decimal.js';
import { minorUnits } from '../../shared/money.js';

/**
 * An amount as a payer reads it: `$1,234.50`, `¥500`, `KWD 1.250`. Exact: the decimal string is
 * formatted, never a float. Unknown codes fall back to `1,234.50 XYZ`.
 */
export function formatMoney(amount: string | number, currency: string): string {
  const digits = minorUnits(currency);
  const fixed = new Decimal(amount).toFixed(digits);
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    return format.format(fixed as unknown as number);
  } catch {
    return `${fixed} ${currency}`;
  }
}

/** `12 Dec 2026` (UTC). */
export const formatDay = (at: Date): string =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(at);

/** `12 Dec 2026, 14:05 UTC` */
export function formatDate(at: Date): string {
  return `${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(at)} UTC`;
}
