// What the Commerce interface's `POST /api/payment/payinvoice` refuses: unknown or disabled payment
// options, invoices that cannot be paid or are not the caller's, malformed requests; and a repeat
// with the same Idempotency-Key, which pays once.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { commerceCard, invoicePayments, VISA } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { sk, newInvoice, payInvoice, readInvoice } = invoicePayments(t);

describe('what cannot be paid', () => {
  it('an unknown or disabled payment option answers 400 naming paymentOptionId', async () => {
    const inv = await newInvoice();
    const unknown = await payInvoice({ invoiceId: inv.id, paymentOptionId: 9, card: commerceCard(VISA) });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentOptionId' });
    const merchant = await t.database.db.selectFrom('merchants').select('payment_options').where('id', '=', t.merchantB.merchantId).executeTakeFirstOrThrow();
    const options = merchant.payment_options.map((o) => (o.id === 4 ? { ...o, enabled: false } : o));
    await t.database.db
      .updateTable('merchants')
      .set({ payment_options: JSON.stringify(options) })
      .where('id', '=', t.merchantB.merchantId)
      .execute();
    const theirs = await newInvoice(t.merchantB.keys.test.secret);
    const disabled = await payInvoice({ invoiceId: theirs.id, paymentOptionId: 4 }, t.merchantB.keys.test.secret);
    expect(disabled.status).toBe(400);
    expect(disabled.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentOptionId' });
  });

  it('a paid or cancelled invoice answers 409 invoice_not_payable; nothing is charged', async () => {
    const inv = await newInvoice();
    await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA) });
    const paid = await payInvoice({ invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA) });
    expect(paid.status, paid.text).toBe(409);
    expect(paid.json.error).toMatchObject({ code: 'invoice_not_payable' });
    const voided = await newInvoice();
    await t.call('POST', `/v1/invoices/${voided.id}/void`, { key: sk() });
    const cancelled = await payInvoice({ invoiceId: voided.id, paymentOptionId: 3 });
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.error.message).toContain('cancelled');
    expect(await t.database.db.selectFrom('payments').select('id').where('invoice_id', '=', voided.id).execute()).toEqual([]);
  });

  it("another merchant's or mode's invoice answers 404 invoice_not_found, by id and by identifier", async () => {
    const theirs = await newInvoice(t.merchantB.keys.test.secret);
    for (const body of [{ invoiceId: theirs.id }, { invoiceIdentifier: theirs.identifier }]) {
      const res = await payInvoice({ ...body, paymentOptionId: 1, card: commerceCard(VISA) });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('invoice_not_found');
    }
    const mine = await newInvoice();
    const live = await payInvoice({ invoiceId: mine.id, paymentOptionId: 1, card: commerceCard(VISA) }, t.merchantA.keys.live.secret);
    expect(live.status).toBe(404);
  });

  it('no invoice, two that differ, a card option without card, a malformed card, sourceAccountId with another option or the balance option without it: 400 naming the field', async () => {
    const inv = await newInvoice();
    const other = await newInvoice();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ paymentOptionId: 1, card: commerceCard(VISA) }, 'parameter_missing', 'invoiceId'],
      [{ invoiceId: inv.id, invoiceIdentifier: other.identifier, paymentOptionId: 1, card: commerceCard(VISA) }, 'validation_error', 'invoiceIdentifier'],
      [{ invoiceId: inv.id, paymentOptionId: 1 }, 'parameter_missing', 'card'],
      [{ invoiceId: inv.id, paymentOptionId: 1, card: { ...commerceCard(VISA), cardNumber: '4242 4242 4242 4242' } }, 'parameter_invalid', 'card.cardNumber'],
      [{ invoiceId: inv.id, paymentOptionId: 1, card: { ...commerceCard(VISA), expiryDate: '13/30' } }, 'parameter_invalid', 'card.expiryDate'],
      [{ invoiceId: inv.id, paymentOptionId: '1', card: commerceCard(VISA) }, 'parameter_invalid', 'paymentOptionId'],
      [{ invoiceId: inv.id, paymentOptionId: 3, sourceAccountId: 7 }, 'parameter_invalid', 'paymentOptionId'],
      [{ invoiceId: inv.id, paymentOptionId: 5 }, 'parameter_missing', 'sourceAccountId'],
    ];
    for (const [body, code, param] of cases) {
      const res = await payInvoice(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error, JSON.stringify(body)).toMatchObject({ code, param });
    }
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'pending', amountPaid: 0 });
  });

  it('a repeat with the same Idempotency-Key answers the first payment again and pays once', async () => {
    const inv = await newInvoice();
    const body = { invoiceId: inv.id, paymentOptionId: 1, card: commerceCard(VISA), amount: 50 };
    const first = await payInvoice(body, sk(), { 'idempotency-key': `pay-${inv.id}` });
    const again = await payInvoice(body, sk(), { 'idempotency-key': `pay-${inv.id}` });
    expect(first.status, first.text).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(await readInvoice(inv.id)).toMatchObject({ status: 'partially_paid', amountPaid: 50 });
  });
});
