// An invoice's totals are exact decimals: quantity × unit amount per line, tax per line rounded
// half-up to the currency's minor unit, then the sum, less the discount (`computeInvoice`); a
// merchant's invoice may not be discounted below zero (`createInvoice`, on a database of its own).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountDue, computeInvoice } from '../../server/domain/invoices/invoice.lines.js';

describe('computeInvoice', () => {
  it('adds lines exactly where floats would not (3 × 0.10 + 0.20 is 0.50, not 0.5000000000000001)', () => {
    const totals = computeInvoice(
      'USD',
      [
        { name: 'A', quantity: 3, unitAmount: '0.10' },
        { name: 'B', quantity: 1, unitAmount: '0.20' },
      ],
      [1, 2],
    );
    expect(totals).toMatchObject({ subtotal: '0.50', taxAmount: '0.00', discount: '0.00', total: '0.50' });
    expect(totals.lines.map((l) => [l.id, l.subtotal, l.total])).toEqual([
      [1, '0.30', '0.30'],
      [2, '0.20', '0.20'],
    ]);
  });

  it("taxes each line and rounds its tax half-up to the cent; a line's own rate wins over the invoice's", () => {
    // 2 × 9.99 = 19.98; 19.98 × 7.5% = 1.4985 → 1.50. 1 × 0.10 at 5% = 0.005 → 0.01 (half-up).
    const totals = computeInvoice(
      'USD',
      [
        { name: 'A', quantity: 2, unitAmount: '9.99' },
        { name: 'B', quantity: 1, unitAmount: '0.10', taxRate: 5 },
      ],
      [1, 2],
      { taxRate: 7.5 },
    );
    expect(totals.lines.map((l) => [l.taxRate, l.subtotal, l.taxAmount, l.total])).toEqual([
      [7.5, '19.98', '1.50', '21.48'],
      [5, '0.10', '0.01', '0.11'],
    ]);
    expect(totals).toMatchObject({ subtotal: '20.08', taxAmount: '1.51', total: '21.59' });
  });

  it("takes the discount off the total and writes every amount at the currency's digits", () => {
    expect(computeInvoice('JPY', [{ name: 'A', quantity: 3, unitAmount: '333' }], [7], { discount: '99' })).toMatchObject({
      subtotal: '999',
      discount: '99',
      total: '900',
    });
    const kwd = computeInvoice('KWD', [{ name: 'A', quantity: 1, unitAmount: '1.5' }], [1], { taxRate: 10 });
    expect(kwd.lines[0]).toMatchObject({ unitAmount: '1.500', subtotal: '1.500', taxAmount: '0.150', total: '1.650' });
  });

  it('keeps name, description and quantity, and a line without tax has rate null', () => {
    const [line] = computeInvoice('EUR', [{ name: 'Seat', description: 'Monthly seat', quantity: 4, unitAmount: '12' }], [42]).lines;
    expect(line).toEqual({
      id: 42,
      name: 'Seat',
      description: 'Monthly seat',
      quantity: 4,
      unitAmount: '12.00',
      taxRate: null,
      subtotal: '48.00',
      taxAmount: '0.00',
      total: '48.00',
    });
  });

  it('for any lines, the total is the sum of the line totals less the discount, to the cent', () => {
    const line = fc.record({
      quantity: fc.integer({ min: 1, max: 1000 }),
      cents: fc.integer({ min: 0, max: 10_000_000 }),
      taxRate: fc.option(
        fc.integer({ min: 0, max: 2500 }).map((r) => r / 100),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 1000 }), (lines, discountCents) => {
        const inputs = lines.map((l, i) => ({
          name: `L${i}`,
          quantity: l.quantity,
          unitAmount: new Decimal(l.cents).dividedBy(100).toFixed(2),
          taxRate: l.taxRate,
        }));
        const totals = computeInvoice(
          'USD',
          inputs,
          inputs.map((_, i) => i + 1),
          { discount: new Decimal(discountCents).dividedBy(100).toFixed(2) },
        );
        const sum = totals.lines.reduce((acc, l) => acc.plus(l.total), new Decimal(0));
        expect(totals.total).toBe(sum.minus(totals.discount).toFixed(2));
        expect(new Decimal(totals.subtotal).plus(totals.taxAmount).toFixed(2)).toBe(sum.toFixed(2));
        for (const l of totals.lines) expect(new Decimal(l.subtotal).toFixed(2)).toBe(new Decimal(l.unitAmount).times(l.quantity).toFixed(2));
      }),
      { numRuns: 200 },
    );
  });
});

describe('computeInvoice: amounts in range', () => {
  it('a line, or the invoice, of 1,000,000,000,000 or more (with tax) is refused with parameter_invalid naming it', () => {
    const line = (unitAmount: string, taxRate?: number) => ({ name: 'Big', quantity: 1, unitAmount, taxRate });
    expect(computeInvoice('USD', [line('999999999999.99')], [1]).total).toBe('999999999999.99');
    expect(() => computeInvoice('USD', [line('999999999999.99', 1)], [1])).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'lineItems.0' }),
    );
    expect(() => computeInvoice('USD', [line('600000000000'), line('400000000000')], [1, 2])).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'lineItems' }),
    );
  });
});

describe('amountDue', () => {
  it('is the total less what was paid, never below zero', () => {
    expect(amountDue({ total: '100.00', amount_paid: '40.01' }).toFixed(2)).toBe('59.99');
    expect(amountDue({ total: '100.00', amount_paid: '100.00' }).toFixed(2)).toBe('0.00');
    expect(amountDue({ total: '100.00', amount_paid: '120.00' }).toFixed(2)).toBe('0.00');
  });
});
