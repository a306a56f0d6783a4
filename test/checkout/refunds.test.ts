// Refunds of card payments, by the refund rules of checkout-billing-api.md; settlement and the
// available balance. Exactness under concurrency (PostgreSQL): refunds.pg.test.ts.
import { describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { cardDetails, paidCardPayment } from '../support/checkout.js';
import { createTestSession, useTestServer } from '../support/server.js';
import { delivered } from '../support/events.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;

/** A card payment of `amount` (order R-1); its session and payment ids. */
const paid = (amount = 100, merchant?: MerchantCredentials) => paidCardPayment(t, { merchant, body: { amount, metadata: { orderId: 'R-1' } } });
const refundSession = (sessionId: string, body: Record<string, unknown> = {}, key = sk()) =>
  t.call('POST', `/v1/checkout-sessions/${sessionId}/refund`, { key, body });
const refundPayment = (paymentId: number, body: Record<string, unknown> = {}, key = sk()) => t.call('POST', `/v1/payments/${paymentId}/refund`, { key, body });
const settle = (paymentId: number) => t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key: sk() });
const refundEvents = async (paymentId: number) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('payment_id', '=', paymentId)
      .where('type', '=', 'payment.refunded')
      .orderBy('seq')
      .execute()
  ).map((e) => delivered(e).data);

describe('refund rules', () => {
  it('rule 1: omitting amount refunds all that is left', async () => {
    const { sessionId, paymentId } = await paid(100);
    const res = await refundSession(sessionId, { reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      sessionId,
      paymentId,
      status: 'refunded',
      amount: 100,
      currency: 'USD',
      alreadyRefunded: false,
      refundAmount: 100,
      refundedAmount: 100,
      amountRefundable: 0,
    });
    expect(res.json.paymentReferenceNumber).toMatch(/^PAY-/);
  });

  it('rule 2: card payments refund in part, repeatedly, partially_refunded until nothing is left, then refunded', async () => {
    const { sessionId, paymentId } = await paid(100);
    expect((await refundSession(sessionId, { amount: 30 })).json).toMatchObject({
      status: 'partially_refunded',
      refundAmount: 30,
      refundedAmount: 30,
      amountRefundable: 70,
    });
    expect((await refundPayment(paymentId, { amount: 45.5 })).json).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: 75.5,
      amountRefundable: 24.5,
    });
    expect((await refundSession(sessionId, { amount: 24.5 })).json).toMatchObject({ status: 'refunded', refundedAmount: 100, amountRefundable: 0 });
  });

  it('a refund below 0.01 is refused naming its own minimum (0.01, not the 1.00 of a session); 0.01 is refunded', async () => {
    const { sessionId } = await paid(20);
    const res = await refundSession(sessionId, { amount: 0.001 });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      success: false,
      errorCode: 'amount_too_small',
      errorMessage: 'amount must be at least 0.01 in the currency.',
      data: { param: 'amount' },
    });
    expect((await refundSession(sessionId, { amount: 0.01 })).json).toMatchObject({ refundAmount: 0.01, amountRefundable: 19.99 });
    const session = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 0.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' },
    });
    expect(session.json.error.message).toBe('amount must be at least 1.00 in the currency.');
  });

  it('refunding more than is left is a validation_error, in the envelope', async () => {
    const { sessionId } = await paid(20);
    await refundSession(sessionId, { amount: 15 });
    const res = await refundSession(sessionId, { amount: 5.01 });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, errorCode: 'validation_error', data: { type: 'invalid_request', param: 'amount' } });
  });

  it('rule 4: a settled payment is refunded from the available balance, refused when it is short, and the fee is not returned', async () => {
    const merchant = await t.newMerchant('Settled');
    const key = merchant.keys.test.secret;
    const a = await paid(100, merchant);
    const settled = await t.call('POST', `/v1/test-helpers/payments/${a.paymentId}/settle`, { key });
    expect(settled.json).toMatchObject({ paymentId: a.paymentId, status: 'settled', settledAmount: 100, feeAmount: 3.2, netAmount: 96.8 });
    // Available balance 96.80: a full refund of 100 is short.
    const short = await t.call('POST', `/v1/payments/${a.paymentId}/refund`, { key, body: {} });
    expect(short.status).toBe(409);
    expect(short.json).toMatchObject({
      success: false,
      errorCode: 'refund_failed',
      data: { refundable: false, reason: 'settled', manualRefundRequired: true, retryable: false },
    });
    const part = await t.call('POST', `/v1/payments/${a.paymentId}/refund`, { key, body: { amount: 90 } });
    expect(part.json).toMatchObject({ status: 'partially_refunded', refundAmount: 90 });
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select(['type', 'account', 'amount'])
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', a.paymentId)
      .orderBy('id')
      .execute();
    expect(ledger).toEqual([
      { type: 'payment', account: 'pending', amount: '100.0000' },
      { type: 'fee', account: 'pending', amount: '-3.2000' },
      { type: 'settlement', account: 'pending', amount: '-96.8000' },
      { type: 'settlement', account: 'available', amount: '96.8000' },
      { type: 'refund', account: 'available', amount: '-90.0000' },
    ]);
  });

  it('rule 5: repeating a refund once nothing is left answers alreadyRefunded without a second refund', async () => {
    const { sessionId, paymentId } = await paid(40);
    await refundSession(sessionId);
    const again = await refundSession(sessionId);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ alreadyRefunded: true, refundAmount: 0, refundedAmount: 40, status: 'refunded' });
    expect(await refundEvents(paymentId)).toHaveLength(1);
  });

  it('rule 5 and 8: a retry after refund_failed (502 in the sandbox) is safe and never refunds twice', async () => {
    const { sessionId, paymentId } = await paid(60);
    const failed = await refundSession(sessionId, { reason: 'sandbox_refund_failed' });
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({
      errorCode: 'refund_failed',
      data: { type: 'processor_error', refundable: true, reason: 'refund_failed', retryable: true },
    });
    const state = await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: sk() });
    expect(state.json.refund).toMatchObject({ refundable: true, reason: 'refund_failed', lastAttempt: { outcome: 'failed', attempts: 1 } });
    expect((await refundSession(sessionId)).json).toMatchObject({ status: 'refunded', refundedAmount: 60 });
    expect((await refundSession(sessionId)).json.alreadyRefunded).toBe(true);
    expect(await refundEvents(paymentId)).toHaveLength(1);
  });

  it("rule 6: another merchant's or the other mode's session or payment answers 404", async () => {
    const { sessionId, paymentId } = await paid(10);
    expect((await refundSession(sessionId, {}, t.merchantB.keys.test.secret)).status).toBe(404);
    expect((await refundPayment(paymentId, {}, t.merchantB.keys.test.secret)).status).toBe(404);
    expect((await refundPayment(paymentId, {}, t.merchantA.keys.live.secret)).status).toBe(404);
    expect((await refundPayment(999_999_999)).json).toMatchObject({ success: false, errorCode: 'resource_not_found' });
  });

  it('rule 7: each successful refund writes payment.refunded with refundAmount and refundedAmount; a partial one leaves the payment Success', async () => {
    const { sessionId, paymentId } = await paid(50);
    await refundSession(sessionId, { amount: 20 });
    await refundSession(sessionId, { amount: 30 });
    const events = await refundEvents(paymentId);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ object: 'payment', status: 'Success', refundAmount: 20, refundedAmount: 20, metadata: { orderId: 'R-1' } });
    expect(events[1]).toMatchObject({ status: 'Refunded', refundAmount: 30, refundedAmount: 50 });
  });

  it('a session without a payment answers 409 nothing_to_refund', async () => {
    const s = await createTestSession(t, t.merchantA);
    const res = await refundSession(s.id);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ success: false, errorCode: 'nothing_to_refund', data: { type: 'conflict', reason: 'no_payment' } });
  });

  it('an uncaptured hold answers 400 payment_not_refundable (not paid yet)', async () => {
    const s = await createTestSession(t, t.merchantA, false, { amount: 25, captureMethod: 'manual' });
    const pk = t.merchantA.keys.test.publishable;
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: cardDetails() });
    await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
    const res = await refundSession(s.id);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ errorCode: 'payment_not_refundable', data: { refundable: false, reason: 'not_paid', manualRefundRequired: false } });
  });

  it('the session refund object keeps step: refundable, then already_refunded with the last attempt', async () => {
    const { sessionId } = await paid(30);
    expect((await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: sk() })).json.refund).toMatchObject({
      refundable: true,
      reason: 'refundable',
      lastAttempt: null,
    });
    await refundSession(sessionId);
    const after = (await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: sk() })).json.refund;
    expect(after).toMatchObject({
      refundable: false,
      reason: 'already_refunded',
      manualRefundRequired: false,
      lastAttempt: { outcome: 'completed', attempts: 1 },
    });
  });
});

describe('settlement test helper', () => {
  it('settles once; a repeat answers 409', async () => {
    const { paymentId } = await paid(10);
    expect((await settle(paymentId)).status).toBe(200);
    expect((await settle(paymentId)).status).toBe(409);
  });
});
