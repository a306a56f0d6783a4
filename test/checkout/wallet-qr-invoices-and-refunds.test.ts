// Wallet QR payments of an existing invoice, and wallet refunds (full only, pending_reversal until
// they finish on their own), by the rules of checkout-billing-api.md.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { completeDueWalletRefunds } from '../../server/domain/checkout/payment-operations.js';
import { WALLET_REFUND_DELAY_MINUTES } from '../../server/rails/wallet-qr.js';
import { walletKit } from '../support/checkout.js';
import { createTestSession, useTestServer } from '../support/server.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const { confirm, qrPaid, retrieve, refund, payments, events, showingQr, paidByQr } = walletKit(t);

describe('paying an existing invoice by QR code', () => {
  const newInvoice = async () => {
    const res = await t.call('POST', '/v1/invoices', {
      key: sk(),
      body: { customer: { email: 'ana@example.com' }, currency: 'USD', lineItems: [{ name: 'Consulting', quantity: 2, unitAmount: 30 }] },
    });
    expect(res.status, res.text).toBe(201);
    return res.json as { id: number };
  };
  const invoiceStatus = async (id: number) =>
    await t.database.db.selectFrom('invoices').select(['status', 'amount_paid']).where('id', '=', id).executeTakeFirstOrThrow();

  it('qr-paid pays the existing invoice the session was opened for (no second invoice)', async () => {
    const invoice = await newInvoice();
    const s = await createTestSession(t, t.merchantA, false, { invoiceId: invoice.id, amount: undefined, currency: undefined });
    expect((await confirm(s)).json.status).toBe('payment_pending');
    expect((await qrPaid(s)).status).toBe(200);
    expect((await payments(s))[0]!.invoice_id).toBe(invoice.id);
    expect(await invoiceStatus(invoice.id)).toMatchObject({ status: 'paid', amount_paid: '60.0000' });
  });

  it('cancelling a session showing a QR code for an existing invoice leaves that invoice as it was', async () => {
    const invoice = await newInvoice();
    const s = await createTestSession(t, t.merchantA, false, { invoiceId: invoice.id, amount: undefined, currency: undefined });
    await confirm(s);
    const before = await invoiceStatus(invoice.id);
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() })).status).toBe(204);
    expect(await invoiceStatus(invoice.id)).toEqual(before);
  });

  it('confirm with wallet:qr on a session whose invoice was voided answers 409 invoice_not_payable', async () => {
    const invoice = await newInvoice();
    const s = await createTestSession(t, t.merchantA, false, { invoiceId: invoice.id, amount: undefined, currency: undefined });
    expect((await t.call('POST', `/v1/invoices/${invoice.id}/void`, { key: sk() })).status).toBe(200);
    const res = await confirm(s);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('invoice_not_payable');
  });
});

describe('wallet refunds', () => {
  it('refund rule 3: a smaller amount on a wallet QR payment answers 400 partial_refund_not_supported, in the envelope', async () => {
    const { s, paymentId } = await paidByQr();
    const res = await refund(s, { amount: 10 });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      success: false,
      errorCode: 'partial_refund_not_supported',
      data: { type: 'invalid_request', refundable: true, manualRefundRequired: false },
    });
    expect((await payments(s))[0]).toMatchObject({ id: paymentId, status: 'succeeded', refunded_amount: '0.0000' });
  });

  it('a wallet refund is accepted as pending_reversal; the session refund reads refund_pending; a second refund answers 409 refund_pending; it completes on its own after the sandbox delay with payment.refunded', async () => {
    const { s, paymentId } = await paidByQr();
    const res = await refund(s, { reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      sessionId: s.id,
      paymentId,
      status: 'pending_reversal',
      amount: 49.99,
      alreadyRefunded: false,
      refundAmount: 49.99,
      refundedAmount: 49.99,
      amountRefundable: 0,
    });
    expect((await retrieve(s)).json.refund).toMatchObject({
      refundable: false,
      reason: 'refund_pending',
      manualRefundRequired: false,
      lastAttempt: { outcome: 'pending', attempts: 1 },
    });
    const again = await t.call('POST', `/v1/payments/${paymentId}/refund`, { key: sk(), body: {} });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      success: false,
      errorCode: 'payment_not_refundable',
      data: { reason: 'refund_pending', refundable: false, manualRefundRequired: false },
    });
    expect((await events(s)).filter((e) => e.type === 'payment.refunded')).toHaveLength(0);

    clock.advance(WALLET_REFUND_DELAY_MINUTES * 60 - 1);
    expect(await completeDueWalletRefunds(t.database.db, clock)).toBe(0);
    clock.advance(1);
    expect(await completeDueWalletRefunds(t.database.db, clock)).toBeGreaterThanOrEqual(1);
    expect(await completeDueWalletRefunds(t.database.db, clock)).toBe(0);

    const [payment] = await payments(s);
    expect(payment).toMatchObject({ status: 'refunded', refunded_amount: '49.9900', refund_last_outcome: 'completed' });
    const refunded = (await events(s)).filter((e) => e.type === 'payment.refunded');
    expect(refunded).toHaveLength(1);
    expect(refunded[0]!.data).toMatchObject({
      status: 'Refunded',
      refundAmount: 49.99,
      refundedAmount: 49.99,
      paymentMethod: { type: 'wallet' },
      metadata: { orderId: 'Q-1' },
    });
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select(['type', 'amount'])
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', paymentId)
      .orderBy('id')
      .execute();
    expect(ledger.at(-1)).toEqual({ type: 'refund', amount: '-49.9900' });
    const invoice = await t.database.db.selectFrom('invoices').select('amount_refunded').where('id', '=', payment!.invoice_id!).executeTakeFirstOrThrow();
    expect(invoice.amount_refunded).toBe('49.9900');
    expect((await retrieve(s)).json.refund).toMatchObject({ refundable: false, reason: 'already_refunded', lastAttempt: { outcome: 'completed' } });
    expect((await refund(s)).json).toMatchObject({ alreadyRefunded: true, status: 'refunded' });
  });

  it('a wallet payment waiting for the payer cannot be refunded: 400 payment_not_refundable (not paid)', async () => {
    const { s } = await showingQr();
    const res = await refund(s);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ errorCode: 'payment_not_refundable', data: { reason: 'not_paid' } });
  });
});
