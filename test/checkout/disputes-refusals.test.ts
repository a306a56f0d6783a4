// Sandbox disputes refused: transitions a dispute cannot make, payments that cannot be disputed,
// amounts out of range; and refunds of a disputed payment (held while open, only the rest after a loss).
import { describe, expect, it } from 'vitest';
import { disputeKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;
const { pay, paid, open, update, close, disputeEvents, merchantEntries } = disputeKit(t);

describe('refused transitions', () => {
  const expectError = (res: { status: number; json: any }, status: number, code: string, param?: string) => {
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ code, ...(param ? { param } : {}) });
  };

  it('a closed dispute neither closes again nor moves (409 invalid_state), and nothing more moves', async () => {
    const paymentId = await paid(30);
    const { json: dispute } = await open(paymentId);
    await close(dispute.id, 'Lost');
    const entries = await merchantEntries(paymentId);
    expectError(await close(dispute.id, 'Lost'), 409, 'invalid_state');
    expectError(await close(dispute.id, 'Won'), 409, 'invalid_state');
    expectError(await update(dispute.id, { status: 'UnderReview' }), 409, 'invalid_state');
    expect(await merchantEntries(paymentId)).toEqual(entries);
    expect((await disputeEvents(paymentId)).map((e) => e.type)).toEqual(['dispute.opened', 'dispute.closed']);
  });

  it('a payment is disputed once: a second open is 409, even after the first closed', async () => {
    const paymentId = await paid(30);
    const { json: dispute } = await open(paymentId);
    expectError(await open(paymentId), 409, 'invalid_state');
    await close(dispute.id, 'Won');
    expectError(await open(paymentId), 409, 'invalid_state');
  });

  it('only a paid card payment: a failed payment, an uncaptured hold and a fully refunded payment are 409', async () => {
    const failed = await pay(t.merchantA, { amount: 20 }, '4000000000009995');
    expectError(await open(failed), 409, 'invalid_state');
    const hold = await pay(t.merchantA, { amount: 20, captureMethod: 'manual' });
    expectError(await open(hold), 409, 'invalid_state');
    const refunded = await paid(20);
    expect((await t.call('POST', `/v1/payments/${refunded}/refund`, { key: sk(), body: {} })).status).toBe(200);
    expectError(await open(refunded), 409, 'invalid_state');
  });

  it('an amount over what was captured and not refunded, or not above 0, is 400 parameter_invalid; so is a past deadline', async () => {
    const paymentId = await paid(50);
    expect((await t.call('POST', `/v1/payments/${paymentId}/refund`, { key: sk(), body: { amount: 10 } })).status).toBe(200);
    const over = await open(paymentId, { amount: 40.01 });
    expectError(over, 400, 'parameter_invalid', 'amount');
    expect(over.json.error.message).toContain('40.00');
    expectError(await open(paymentId, { amount: 0 }), 400, 'parameter_invalid', 'amount');
    expectError(await open(paymentId, { evidenceDueBy: new Date(Date.now() - 60_000).toISOString() }), 400, 'parameter_invalid', 'evidenceDueBy');
    expectError(await open(paymentId, { reason: 'bored' }), 400, 'parameter_invalid');
    const res = await open(paymentId, { amount: 40 });
    expect(res.json).toMatchObject({ amount: 40 });
    expectError(await update(res.json.id, {}), 400, 'parameter_invalid');
    expectError(await close(res.json.id, 'Open'), 400, 'parameter_invalid');
  });
});

describe('refunds and disputes', () => {
  const refund = (paymentId: number, body: Record<string, unknown> = {}) => t.call('POST', `/v1/payments/${paymentId}/refund`, { key: sk(), body });

  it('an open dispute holds the payment: refunds answer 409 payment_not_refundable (reason disputed) until it closes; Won makes it refundable again', async () => {
    const paymentId = await paid(40);
    const { json: dispute } = await open(paymentId);
    const refused = await refund(paymentId);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ success: false, errorCode: 'payment_not_refundable', data: { refundable: false, reason: 'disputed' } });
    await update(dispute.id, { status: 'UnderReview' });
    expect((await refund(paymentId)).status).toBe(409);
    await close(dispute.id, 'Won');
    const after = await refund(paymentId);
    expect(after.status, after.text).toBe(200);
  });

  it('a lost dispute took its amount back: only the rest of the payment can still be refunded, never the charged-back part', async () => {
    const paymentId = await paid(100);
    const { json: dispute } = await open(paymentId, { amount: 60 });
    await close(dispute.id, 'Lost');
    const tooMuch = await refund(paymentId, { amount: 41 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json).toMatchObject({ success: false, errorCode: 'validation_error', data: { param: 'amount' } });
    const rest = await refund(paymentId);
    expect(rest.status, rest.text).toBe(200);
    const refunded = await t.database.db.selectFrom('refunds').select('amount').where('payment_id', '=', paymentId).execute();
    expect(refunded.map((r) => Number(r.amount))).toEqual([40]);
  });
});
