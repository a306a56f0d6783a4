import { Decimal } from 'decimal.js';
import { AppError } from './errors.js';

/** ISO 4217 currencies whose minor unit is not 2 digits; every other code has 2. */
const MINOR_UNITS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

/** Amounts are stored as numeric(20, 4); the contract caps them well below that. */
const MAX_AMOUNT = new Decimal('1e12');

/** Refuses a computed amount (a line's quantity × unit amount, a total) that is not below 1,000,000,000,000, as an input amount must be. */
export function assertAmountInRange(value: Decimal, param: string, what: string): void {
  if (!value.isFinite() || value.abs().greaterThanOrEqualTo(MAX_AMOUNT)) {
    throw new AppError('parameter_invalid', { param, message: `${what} must be below 1,000,000,000,000.` });
  }
}

/** Digits after the decimal point in the currency (JPY 0, USD 2, KWD 3). */
export const minorUnits = (currency: string): number => MINOR_UNITS[currency.toUpperCase()] ?? 2;

/**
 * A JSON amount as an exact decimal string for a `numeric` column. The number is read through
 * its shortest decimal text (49.99 stays 49.99), never through float arithmetic, and may not
 * carry more digits than the currency has (0.5 JPY is refused).
 */
export function amountToDecimal(amount: number | string, currency: string, param = 'amount'): string {
  const value = new Decimal(typeof amount === 'number' ? amount.toString() : amount);
  if (!value.isFinite() || value.abs().greaterThanOrEqualTo(MAX_AMOUNT)) {
    throw new AppError('parameter_invalid', { param, message: `${param} must be a number below 1,000,000,000,000.` });
  }
  const units = minorUnits(currency);
  if (value.decimalPlaces() > units) {
    throw new AppError('validation_error', {
      param,
      message: `${param} has more decimal places than ${currency.toUpperCase()} allows (${units}).`,
    });
  }
  return value.toFixed(units);
}

/** A stored decimal as the JSON number the Checkout interface writes, rounded to the currency's digits. */
export const decimalToAmount = (value: string, currency: string): number => Number(new Decimal(value).toFixed(minorUnits(currency)));

/** A stored decimal as the decimal string the Commerce catalog writes ("19.99"). */
export const decimalToString = (value: string, currency: string): string => new Decimal(value).toFixed(minorUnits(currency));
