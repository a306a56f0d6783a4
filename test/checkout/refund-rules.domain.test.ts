// The refund rules of checkout-billing-api.md ("Refund rules", and the refund object's reasons),
// called on the refund service itself (`refund` of payment-operations, `refundability`) on a
// database of its own, so a failure names the rule. Payments are made by the checkout services:
// a session, a sandbox card tokenized and confirmed (or a wallet QR code paid). The HTTP tests of
// the same rules: refunds.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { confirmSession, tokenizeCard } from '../../server/domain/checkout/confirm.js';
import { refund, settlePayment } from '../../server/domain/checkout/payment-operations.js';
import { createSession } from '../../server/domain/checkout/session-create.js';
import { payQr } from '../../server/domain/checkout/session-qr.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { getPayment } from '../../server/domain/payments/payment.service.js';
import { refundability } from '../../server/domain/payments/refunds.js';
import { ManualClock } from '../../server/shared/clock.js';
import { AppError } from '../../server/shared/errors.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { CARDS, cardDetails } from '../support/checkout.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock(new Date());
const settings = { publicBaseUrl: 'https://pay.till.example', allowLoopbackWebhooks: false };

const database = useTestDatabase('refund-rules');
let tenant: Tenant;
const db = () => database.db;
beforeAll(async () => {
  tenant = await newTenant('Refund rules');
});

async function newTenant(name: string): Promise<Tenant> {
  const { credentials } = await createMerchant(db(), clock, { name });
  return { merchantId: credentials.merchantId, livemode: false };
}

/** A session of `amount` USD confirmed with the Visa test card (a hold with captureMethod manual); its id and payment id. */
async function paidByCard(amount: number, options: { of?: Tenant; captureMethod?: 'manual' } = {}) {
  const of = options.of ?? tenant;
  const { session } = await createSession(db(), clock, settings, of, {
    amount: String(amount),
    currency: 'USD',
    mode: 'embedded',
    paymentType: 'one_time',
    captureMethod: options.captureMethod,
  });
  const method = await tokenizeCard(db(), clock, of, session.id, cardDetails(CARDS.visa));
  const { payment } = await confirmSession(db(), clock, of, session.id, { paymentMethodId: method.id });
  return { sessionId: session.id, paymentId: payment.id };
}

/** The AppError a refund is refused with. */
async function refusal(promise: Promise<unknown>) {
  const error: unknown = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error, 'the refund went through').toBeInstanceOf(AppError);
  const { code, status, param, data } = error as AppError;
  return { code, status, param, data };
}

const refundsOf = (paymentId: number) => db().selectFrom('refunds').select('amount').where('payment_id', '=', paymentId).orderBy('id').execute();
const paymentRow = (paymentId: number, of = tenant) => getPayment(db(), of, paymentId);

describe('refund rules', () => {
  it('rule 1: omitting amount refunds all that is left', async () => {
    const { sessionId, paymentId } = await paidByCard(100);
    await refund(db(), clock, tenant, { paymentId }, { amount: 30 });
    const rest = await refund(db(), clock, tenant, { sessionId }, {});
    expect(rest).toMatchObject({ alreadyRefunded: false, amount: '70', completed: true });
    expect(rest.payment).toMatchObject({ status: 'refunded', refunded_amount: '100.0000' });
  });

  it('rule 2: card payments refund in part, repeatedly, up to the amount paid: partially_refunded until nothing is left, then refunded', async () => {
    const { sessionId, paymentId } = await paidByCard(100);
    expect((await refund(db(), clock, tenant, { sessionId }, { amount: 30 })).payment.status).toBe('partially_refunded');
    expect((await refund(db(), clock, tenant, { paymentId }, { amount: 45.5 })).payment.status).toBe('partially_refunded');
    const last = await refund(db(), clock, tenant, { sessionId }, { amount: 24.5 });
    expect(last.payment).toMatchObject({ status: 'refunded', refunded_amount: '100.0000' });
    expect((await refundsOf(paymentId)).map((r) => Number(r.amount))).toEqual([30, 45.5, 24.5]);
  });

  it('refunding more than is left, or nothing, is a validation_error naming amount, and refunds nothing', async () => {
    const { paymentId } = await paidByCard(20);
    await refund(db(), clock, tenant, { paymentId }, { amount: 15 });
    expect(await refusal(refund(db(), clock, tenant, { paymentId }, { amount: 5.01 }))).toMatchObject({ code: 'validation_error', param: 'amount' });
    expect(await refusal(refund(db(), clock, tenant, { paymentId }, { amount: 0 }))).toMatchObject({ code: 'validation_error', param: 'amount' });
    expect(await refundsOf(paymentId)).toHaveLength(1);
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'partially_refunded', refunded_amount: '15.0000' });
  });

  it('rule 3: wallet QR payments refund in full only: a smaller amount is refused with 400 partial_refund_not_supported', async () => {
    const { session } = await createSession(db(), clock, settings, tenant, { amount: '40', currency: 'USD', mode: 'embedded', paymentType: 'one_time' });
    await confirmSession(db(), clock, tenant, session.id, { paymentMethodId: 'wallet:qr' });
    const { payment } = await payQr(db(), clock, tenant, session.id);
    expect(await refusal(refund(db(), clock, tenant, { sessionId: session.id }, { amount: 10 }))).toMatchObject({
      code: 'partial_refund_not_supported',
      status: 400,
      data: { refundable: true },
    });
    const full = await refund(db(), clock, tenant, { paymentId: payment.id }, {});
    expect(full).toMatchObject({ amount: '40', completed: false });
    expect(full.payment.status).toBe('pending_reversal');
  });

  it('rule 4: a settled payment is refunded from the available balance, refused when it is short (refund_failed, manual), and the fee is not returned', async () => {
    const settled = await newTenant('Settled');
    const { paymentId } = await paidByCard(100, { of: settled });
    const settlement = await settlePayment(db(), clock, settled, paymentId);
    expect([settlement.gross, settlement.fee, settlement.net].map(Number)).toEqual([100, 3.2, 96.8]);
    // The available balance is 96.80: a full refund of 100 is short.
    expect(await refusal(refund(db(), clock, settled, { paymentId }, {}))).toMatchObject({
      code: 'refund_failed',
      status: 409,
      data: { refundable: false, reason: 'settled', manualRefundRequired: true, retryable: false },
    });
    expect((await refund(db(), clock, settled, { paymentId }, { amount: 90 })).payment.status).toBe('partially_refunded');
    const ledger = await db()
      .selectFrom('ledger_entries')
      .select(['type', 'account', 'amount'])
      .where('payment_id', '=', paymentId)
      .where('type', 'in', ['fee', 'refund'])
      .where('account', 'in', ['pending', 'available'])
      .orderBy('id')
      .execute();
    expect(ledger).toEqual([
      { type: 'fee', account: 'pending', amount: '-3.2000' },
      { type: 'refund', account: 'available', amount: '-90.0000' },
    ]);
  });

  it('rule 5: repeating a refund once nothing is left answers alreadyRefunded without a second refund', async () => {
    const { sessionId, paymentId } = await paidByCard(40);
    await refund(db(), clock, tenant, { sessionId }, {});
    expect(await refund(db(), clock, tenant, { sessionId }, {})).toMatchObject({ alreadyRefunded: true, amount: '0' });
    expect(await refundsOf(paymentId)).toHaveLength(1);
  });

  it('rules 5 and 8: a retry after refund_failed is safe and never refunds twice', async () => {
    const { sessionId, paymentId } = await paidByCard(60);
    expect(await refusal(refund(db(), clock, tenant, { sessionId }, { reason: 'sandbox_refund_failed' }))).toMatchObject({
      code: 'refund_failed',
      status: 502,
      data: { refundable: true, reason: 'refund_failed', retryable: true },
    });
    expect(refundability(await paymentRow(paymentId))).toEqual({ refundable: true, reason: 'refund_failed', manualRefundRequired: false });
    expect((await refund(db(), clock, tenant, { sessionId }, {})).amount).toBe('60');
    expect((await refund(db(), clock, tenant, { sessionId }, {})).alreadyRefunded).toBe(true);
    expect((await refundsOf(paymentId)).map((r) => Number(r.amount))).toEqual([60]);
  });

  it("rule 6: only the owning merchant, in the key's mode, can refund: another merchant's or the other mode's session or payment is not found", async () => {
    const { sessionId, paymentId } = await paidByCard(10);
    const other = await newTenant('Other');
    const live = { ...tenant, livemode: true };
    for (const [who, target] of [
      [other, { sessionId }],
      [other, { paymentId }],
      [live, { sessionId }],
      [live, { paymentId }],
    ] as const) {
      expect(await refusal(refund(db(), clock, who, target, {}))).toMatchObject({ code: 'resource_not_found', status: 404 });
    }
    expect(await refundsOf(paymentId)).toEqual([]);
  });
});

describe('what is refundable (the refund object)', () => {
  it('no payment: nothing_to_refund (409); the reason reads no_payment', async () => {
    const { session } = await createSession(db(), clock, settings, tenant, { amount: '25', currency: 'USD', mode: 'embedded', paymentType: 'one_time' });
    expect(await refusal(refund(db(), clock, tenant, { sessionId: session.id }, {}))).toMatchObject({
      code: 'nothing_to_refund',
      status: 409,
      data: { refundable: false, reason: 'no_payment' },
    });
    expect(refundability(null)).toEqual({ refundable: false, reason: 'no_payment', manualRefundRequired: false });
  });

  it('not paid yet (an uncaptured hold): payment_not_refundable (400), reason not_paid', async () => {
    const { sessionId, paymentId } = await paidByCard(25, { captureMethod: 'manual' });
    expect(refundability(await paymentRow(paymentId))).toEqual({ refundable: false, reason: 'not_paid', manualRefundRequired: false });
    expect(await refusal(refund(db(), clock, tenant, { sessionId }, {}))).toMatchObject({
      code: 'payment_not_refundable',
      status: 400,
      data: { refundable: false, reason: 'not_paid', manualRefundRequired: false },
    });
  });

  it('paid: refundable while something is left, then already_refunded', async () => {
    const { paymentId } = await paidByCard(30);
    expect(refundability(await paymentRow(paymentId))).toEqual({ refundable: true, reason: 'refundable', manualRefundRequired: false });
    await refund(db(), clock, tenant, { paymentId }, { amount: 10 });
    expect(refundability(await paymentRow(paymentId))).toMatchObject({ refundable: true, reason: 'refundable' });
    await refund(db(), clock, tenant, { paymentId }, {});
    expect(refundability(await paymentRow(paymentId))).toEqual({ refundable: false, reason: 'already_refunded', manualRefundRequired: false });
  });

  it('a wallet refund under way: refund_pending, and another refund is payment_not_refundable (409)', async () => {
    const { session } = await createSession(db(), clock, settings, tenant, { amount: '15', currency: 'USD', mode: 'embedded', paymentType: 'one_time' });
    await confirmSession(db(), clock, tenant, session.id, { paymentMethodId: 'wallet:qr' });
    const { payment } = await payQr(db(), clock, tenant, session.id);
    await refund(db(), clock, tenant, { paymentId: payment.id }, {});
    expect(refundability(await paymentRow(payment.id))).toEqual({ refundable: false, reason: 'refund_pending', manualRefundRequired: false });
    expect(await refusal(refund(db(), clock, tenant, { paymentId: payment.id }, {}))).toMatchObject({
      code: 'payment_not_refundable',
      status: 409,
      data: { reason: 'refund_pending' },
    });
  });
});
