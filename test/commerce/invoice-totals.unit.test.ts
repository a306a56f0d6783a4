// The rounding rule of Commerce invoices (invoices/item-totals.ts, the contract's InvoiceItem), property-
// tested against an independent computation in integers of the minor unit: unitCost x quantity and
// the tax are each rounded once, half away from zero; every total is an exact signed sum of lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeItemTotals, type ItemType } from '../../server/domain/invoices/item-totals.js';
import { AppError } from '../../server/shared/errors.js';

/** n / d rounded half away from zero, for n >= 0 and d > 0 (BigInt). */
const divRound = (n: bigint, d: bigint) => (2n * n + d) / (2n * d);

interface Item {
  unit: number; // minor units
  qty: number; // thousandths
  rate: number; // hundredths of a percent
  discount: number; // minor units, at most the gross
  shipping: number; // minor units
  type: ItemType;
}

const CURRENCIES = [
  ['USD', 2],
  ['JPY', 0],
  ['KWD', 3],
] as const;
const item = fc.record({
  unit: fc.integer({ min: 0, max: 5_000_000 }),
  qty: fc.integer({ min: 1, max: 100_000 }),
  rate: fc.integer({ min: 0, max: 10_000 }),
  discountShare: fc.integer({ min: 0, max: 100 }),
  shipping: fc.integer({ min: 0, max: 10_000 }),
  type: fc.constantFrom<ItemType>('Product', 'Service', 'Fee', 'Discount'),
});

function expected(items: Item[]) {
  let sub = 0n;
  let tax = 0n;
  let total = 0n;
  const lines = items.map((i) => {
    const gross = divRound(BigInt(i.unit) * BigInt(i.qty), 1000n);
    const lineSub = gross - BigInt(i.discount);
    const lineTax = divRound(lineSub * BigInt(i.rate), 10_000n);
    const lineTotal = lineSub + lineTax + BigInt(i.shipping);
    const sign = i.type === 'Discount' ? -1n : 1n;
    sub += sign * lineSub;
    tax += sign * lineTax;
    total += sign * lineTotal;
    return [lineSub, lineTax, lineTotal];
  });
  return { lines, sub, tax, total };
}

/** A fixed-point text with exactly the currency's digits, in minor units. */
const minor = (text: string, _digits: number) => BigInt(text.replace('.', ''));

describe('Commerce invoice totals', () => {
  it('equal an integer computation in the minor unit, and refuse what would go below zero', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), fc.array(item, { minLength: 1, maxLength: 8 }), ([currency, digits], raw) => {
        const scale = 10 ** digits;
        const items: Item[] = raw.map((r) => {
          const gross = Number(divRound(BigInt(r.unit) * BigInt(r.qty), 1000n));
          return { ...r, discount: Math.floor((gross * r.discountShare) / 100) };
        });
        const want = expected(items);
        const input = items.map((i, n) => ({
          name: `item ${n}`,
          unitCost: String(i.unit / scale),
          quantity: i.qty / 1000,
          taxRate: i.rate / 100,
          discount: String(i.discount / scale),
          shippingCost: String(i.shipping / scale),
          type: i.type,
        }));
        const run = () =>
          computeItemTotals(
            currency,
            input,
            input.map((_, n) => n + 1),
          );
        if (want.sub < 0n || want.tax < 0n || want.total < 0n) {
          expect(run).toThrow(AppError);
          return;
        }
        const got = run();
        expect(got.lines.map((l) => [minor(l.subtotal, digits), minor(l.taxAmount, digits), minor(l.total, digits)])).toEqual(want.lines);
        expect([minor(got.subTotal, digits), minor(got.taxAmount, digits), minor(got.totalCost, digits)]).toEqual([want.sub, want.tax, want.total]);
      }),
      { numRuns: 500 },
    );
  });

  it('take the invoice discount and shipping off and on exactly, never rounding again', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100_000 }), (cents, share, shipping) => {
        const discount = Math.floor((cents * share) / 100);
        const got = computeItemTotals('USD', [{ name: 'x', unitCost: String(cents / 100), quantity: 1 }], [1], {
          discount: String(discount / 100),
          shippingCost: String(shipping / 100),
        });
        expect(minor(got.totalCost, 2)).toBe(BigInt(cents - discount + shipping));
        expect(minor(got.discount, 2)).toBe(BigInt(discount));
        expect(minor(got.shippingCost, 2)).toBe(BigInt(shipping));
      }),
      { numRuns: 300 },
    );
  });
});
