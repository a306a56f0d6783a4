import currencyCodes from 'currency-codes';
import { Decimal } from 'decimal.js';
import { AppError } from './errors.js';

/**
 * ISO 4217 codes that are not money to pay with: precious metals, bond-market units, the SDR, the
 * test code and "no currency" (ISO gives them no minor unit).
 */
const NOT_PAYABLE = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

/** Whether `code` (any case) is an ISO 4217 currency Till accepts, by the `currency-codes` data. */
export function isPayableCurrency(code: string): boolean {
  const upper = code.toUpperCase();
  return !NOT_PAYABLE.has(upper) && currencyCodes.code(upper) !== undefined;
}

/** A currency from a request, in upper case; 400 naming `param` when it is not an ISO 4217 currency one can pay in. */
export function currencyCode(value: string, param = 'currency'): string {
  if (!isPayableCurrency(value)) {
    throw new AppError('parameter_invalid', {
      param,
      message: `${param} must be an ISO 4217 currency code such as USD or EUR; ${JSON.stringify(value)} is not one.`,
    });
  }
  return value.toUpperCase();
}

/** Amounts are stored as numeric(20, 4); the contract caps them well below that. */
const MAX_AMOUNT = new Decimal('1e12');

/** Refuses a computed amount (a line's quantity × unit amount, a total) that is not below 1,000,000,000,000, as an input amount must be. */
export function assertAmountInRange(value: Decimal, param: string, what: string): void {
  if (!value.isFinite() || value.abs().greaterThanOrEqualTo(MAX_AMOUNT)) {
    throw new AppError('parameter_invalid', { param, message: `${what} must be below 1,000,000,000,000.` });
  }
}

/** Digits after the decimal point in the currency (JPY 0, USD 2, KWD 3). */
export const minorUnits = (currency: string): number => currencyCodes.code(currency.toUpperCase())?.digits ?? 2;

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
