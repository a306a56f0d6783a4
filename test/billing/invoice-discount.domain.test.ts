// An invoice's discount, through the invoice service on a database of its own: it comes off the
// subtotal plus tax, never below a zero total.
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { createInvoice } from '../../server/domain/invoices/invoice-create.js';
import { ManualClock } from '../../server/shared/clock.js';
import { useBilling } from '../support/subscriptions.js';

describe('createInvoice: the discount', () => {
  const clock = new ManualClock('2026-03-02T09:00:00Z');
  const billing = useBilling(clock);
  const create = (discount: string) =>
    createInvoice(billing.db, clock, { publicBaseUrl: 'https://till.test' }, billing.tenant, {
      customer: { email: 'ana@example.com' },
      currency: 'USD',
      lineItems: [{ name: 'Consulting', quantity: 3, unitAmount: '120.5' }],
      taxRate: 8.25,
      discount,
    });

  it('comes off the subtotal plus tax, down to a zero total; a discount above it is refused with validation_error naming discount, and nothing is stored', async () => {
    // 3 × 120.50 = 361.50; tax 8.25% = 29.82375 → 29.82; 391.32 in all.
    const amounts = (i: { subtotal: string; tax_amount: string; discount: string; total: string }) =>
      [i.subtotal, i.tax_amount, i.discount, i.total].map((a) => new Decimal(a).toFixed(2));
    expect(amounts(await create('10'))).toEqual(['361.50', '29.82', '10.00', '381.32']);
    expect(amounts(await create('391.32'))).toEqual(['361.50', '29.82', '391.32', '0.00']);
    const before = await billing.db.selectFrom('invoices').select('id').execute();
    await expect(create('391.33')).rejects.toMatchObject({ code: 'validation_error', param: 'discount' });
    expect(await billing.db.selectFrom('invoices').select('id').execute()).toEqual(before);
  });
});
