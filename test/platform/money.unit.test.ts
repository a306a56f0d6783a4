// Amounts are exact: a JSON number is read through its decimal text, never float arithmetic, and
// carries no more digits than its currency has.
import { describe, expect, it } from 'vitest';
import { amountToDecimal, currencyCode, decimalToAmount, decimalToString, isPayableCurrency, minorUnits } from '../../server/shared/money.js';
import { AppError } from '../../server/shared/errors.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? { code: error.code, param: error.param } : error;
  }
  throw new Error('expected a refusal');
};

describe('minor units of a currency', () => {
  it('are 2 by default, 0 for zero-decimal currencies, 3 and 4 where ISO 4217 says so, whatever the case', () => {
    expect([minorUnits('USD'), minorUnits('eur'), minorUnits('JPY'), minorUnits('krw'), minorUnits('KWD'), minorUnits('CLF')]).toEqual([2, 2, 0, 0, 3, 4]);
    // From ISO 4217's data (currency-codes), not a table of our own: IQD has 3, HUF 2.
    expect([minorUnits('IQD'), minorUnits('HUF'), minorUnits('VED')]).toEqual([3, 2, 2]);
  });
});

describe('currency codes', () => {
  it('accept ISO 4217 currencies in any case, answered in upper case', () => {
    expect(['USD', 'eur', 'Jpy', 'XOF', 'VED'].map((c) => currencyCode(c))).toEqual(['USD', 'EUR', 'JPY', 'XOF', 'VED']);
  });

  it('refuse three letters that are no currency, and codes that are not money to pay with, naming the field', () => {
    for (const code of ['XYZ', 'ABC', 'QQQ', 'XAU', 'XTS', 'XXX', 'XDR']) {
      expect(isPayableCurrency(code), code).toBe(false);
      expect(refusal(() => currencyCode(code, 'currency'))).toEqual({ code: 'parameter_invalid', param: 'currency' });
    }
  });
});

describe('amountToDecimal', () => {
  it('keeps the decimal the caller wrote, padded to the currency (no float artefacts)', () => {
    expect(amountToDecimal(49.99, 'USD')).toBe('49.99');
    expect(amountToDecimal(0.3, 'USD')).toBe('0.30');
    expect(amountToDecimal(1005, 'JPY')).toBe('1005');
    expect(amountToDecimal(1.5, 'KWD')).toBe('1.500');
    expect(amountToDecimal('19.9', 'EUR')).toBe('19.90');
  });

  it('reads 1.1 + 2.2 as the float it is, and refuses it rather than rounding it', () => {
    // 1.1 + 2.2 is 3.3000000000000003 in binary floating point: more digits than USD has.
    expect(refusal(() => amountToDecimal(1.1 + 2.2, 'USD'))).toEqual({ code: 'validation_error', param: 'amount' });
  });

  it('refuses more digits than the currency has, naming the parameter', () => {
    expect(refusal(() => amountToDecimal(0.5, 'JPY', 'unitAmount'))).toEqual({ code: 'validation_error', param: 'unitAmount' });
    expect(refusal(() => amountToDecimal(10.001, 'USD'))).toEqual({ code: 'validation_error', param: 'amount' });
    expect(amountToDecimal(10.001, 'BHD')).toBe('10.001');
  });

  it('refuses amounts from 1e12 up, and what is not a finite number', () => {
    expect(amountToDecimal(999_999_999_999.99, 'USD')).toBe('999999999999.99');
    expect(refusal(() => amountToDecimal(1e12, 'USD'))).toEqual({ code: 'parameter_invalid', param: 'amount' });
    expect(refusal(() => amountToDecimal(-1e12, 'USD'))).toEqual({ code: 'parameter_invalid', param: 'amount' });
    expect(refusal(() => amountToDecimal(Number.POSITIVE_INFINITY, 'USD'))).toEqual({ code: 'parameter_invalid', param: 'amount' });
  });
});

describe('stored decimals on the wire', () => {
  it("are a JSON number on the Checkout interface and a fixed string on the Commerce one, at the currency's digits", () => {
    expect(decimalToAmount('49.9900', 'USD')).toBe(49.99);
    expect(decimalToAmount('1000.0000', 'JPY')).toBe(1000);
    expect(decimalToString('19.9000', 'USD')).toBe('19.90');
    expect(decimalToString('1.2340', 'KWD')).toBe('1.234');
    expect(decimalToString('5', 'JPY')).toBe('5');
  });

  it('round-trip every cent of a range exactly', () => {
    // Every cent that does not come back as it went, listed; one expect for the range (an expect per cent costs more than the arithmetic).
    const astray: string[] = [];
    for (let cents = 0; cents <= 100_000; cents += 7) {
      const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
      const stored = amountToDecimal(Number(text), 'USD');
      const back = [decimalToString(stored, 'USD'), decimalToAmount(stored, 'USD')] as const;
      if (stored !== text || back[0] !== text || back[1] !== Number(text)) astray.push(`${text}: stored ${stored}, string ${back[0]}, amount ${back[1]}`);
    }
    expect(astray).toEqual([]);
  });
});
