// Card holds: capture once (all or part), release, lapse after 7 days, and their refusals.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { lapseDueHolds } from '../../server/domain/checkout/payment-operations.js';
import { paidCardPayment } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;

/** A confirmed session: a hold (manual) by default. */
async function paid(captureMethod: 'manual' | 'automatic' = 'manual', amount = 100) {
  const { session, confirmed, paymentId } = await paidCardPayment(t, { body: { amount, captureMethod } });
  expect(confirmed.status).toBe(200);
  return { session, paymentId };
}
const capture = (paymentId: number, body: Record<string, unknown> = {}, key = sk()) => t.call('POST', `/v1/payments/${paymentId}/capture`, { key, body });
const release = (paymentId: number, key = sk()) => t.call('POST', `/v1/payments/${paymentId}/release`, { key });
const types = async (paymentId: number) =>
  (await t.database.db.selectFrom('events').select('type').where('payment_id', '=', paymentId).orderBy('seq').execute()).map((e) => e.type);
const invoiceOf = async (paymentId: number) => {
  const p = await t.database.db.selectFrom('payments').select('invoice_id').where('id', '=', paymentId).executeTakeFirstOrThrow();
  return t.database.db.selectFrom('invoices').selectAll().where('id', '=', p.invoice_id!).executeTakeFirstOrThrow();
};

describe('capture', () => {
  it('captures all of the authorized amount: payment.captured then payment.succeeded, the invoice paid, the ledger written', async () => {
    const { paymentId, session } = await paid();
    const res = await capture(paymentId);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      paymentId,
      status: 'captured',
      authorizedAmount: 100,
      capturedAmount: 100,
      currency: 'USD',
      authorizationExpiresAt: null,
      alreadyDone: false,
    });
    expect(res.json.referenceNumber).toMatch(/^PAY-/);
    expect(res.json.capturedAt).toBeTruthy();
    expect(await types(paymentId)).toEqual(['payment.authorized', 'checkout.session.completed', 'payment.captured', 'payment.succeeded']);
    expect(await invoiceOf(paymentId)).toMatchObject({ status: 'paid', total: '100.0000', amount_paid: '100.0000', discount: '0.0000' });
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select(['type', 'amount'])
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', paymentId)
      .orderBy('id')
      .execute();
    expect(ledger).toEqual([
      { type: 'payment', amount: '100.0000' },
      { type: 'fee', amount: '-3.2000' },
    ]);
    const status = await t.call('GET', `/v1/checkout-sessions/${session.id}/status`, { key: sk() });
    expect(status.json).toMatchObject({ status: 'completed', captureMethod: 'manual', paymentId, holdStatus: 'captured', authorizedAmount: 100 });
    expect(status.json.authorizationExpiresAt).toBeUndefined();
  });

  it('a partial capture lowers the session invoice to the captured amount and shows the rest as discount; it happens once', async () => {
    const { paymentId } = await paid('manual', 80);
    const res = await capture(paymentId, { amount: 50.25, reason: 'one item out of stock' });
    expect(res.json).toMatchObject({ status: 'captured', authorizedAmount: 80, capturedAmount: 50.25 });
    expect(await invoiceOf(paymentId)).toMatchObject({ status: 'paid', total: '50.2500', discount: '29.7500', amount_paid: '50.2500' });
    const again = await capture(paymentId, { amount: 50.25 });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ alreadyDone: true, capturedAmount: 50.25 });
    expect((await types(paymentId)).filter((x) => x === 'payment.captured')).toHaveLength(1);
  });

  it('a second capture of another amount (or of all, after a partial one) answers 409 hold_not_capturable; the repeat of the first is alreadyDone', async () => {
    const { paymentId } = await paid('manual', 60);
    expect((await capture(paymentId, { amount: 20 })).json).toMatchObject({ status: 'captured', capturedAmount: 20, alreadyDone: false });
    for (const body of [{ amount: 15 }, {}]) {
      const res = await capture(paymentId, body);
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('hold_not_capturable');
    }
    expect((await capture(paymentId, { amount: 20 })).json).toMatchObject({ alreadyDone: true, capturedAmount: 20 });
    const whole = await paid('manual', 30);
    expect((await capture(whole.paymentId)).json.capturedAmount).toBe(30);
    expect((await capture(whole.paymentId)).json.alreadyDone).toBe(true);
    expect((await capture(whole.paymentId, { amount: 30 })).json.alreadyDone).toBe(true);
  });

  it('more than authorized answers 409 hold_not_capturable', async () => {
    const { paymentId } = await paid('manual', 20);
    const res = await capture(paymentId, { amount: 20.01 });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('hold_not_capturable');
  });

  it('a payment that is not a card hold answers 409 hold_not_capturable', async () => {
    const { paymentId } = await paid('automatic');
    expect((await capture(paymentId)).json.error.code).toBe('hold_not_capturable');
    expect((await release(paymentId)).json.error.code).toBe('hold_not_capturable');
  });

  it("another merchant's payment, or the other mode's, answers 404", async () => {
    const { paymentId } = await paid();
    expect((await capture(paymentId, {}, t.merchantB.keys.test.secret)).status).toBe(404);
    expect((await capture(paymentId, {}, t.merchantA.keys.live.secret)).status).toBe(404);
  });

  it('hold_operation_failed (502) is reachable in the sandbox, and retrying is safe', async () => {
    const { paymentId } = await paid();
    const failed = await capture(paymentId, { reason: 'sandbox_hold_operation_failed' });
    expect(failed.status).toBe(502);
    expect(failed.json.error).toMatchObject({ code: 'hold_operation_failed', retryable: true });
    expect((await capture(paymentId)).json.status).toBe('captured');
  });
});

describe('release', () => {
  it('releases: nothing charged, the session invoice cancelled, payment.released; a repeat is alreadyDone; capture is then refused', async () => {
    const { paymentId } = await paid();
    const res = await release(paymentId);
    expect(res.json).toMatchObject({ status: 'released', capturedAmount: 0, authorizationExpiresAt: null, alreadyDone: false });
    expect((await invoiceOf(paymentId)).status).toBe('cancelled');
    expect((await release(paymentId)).json.alreadyDone).toBe(true);
    expect((await capture(paymentId)).status).toBe(409);
    expect((await types(paymentId)).at(-1)).toBe('payment.released');
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', paymentId)
      .execute();
    expect(ledger).toHaveLength(0);
  });
});

describe('lapse', () => {
  it('after 7 days uncaptured the hold expires: released, payment.authorization_expired once, capture refused', async () => {
    const { paymentId } = await paid();
    clock.advance(6 * 86_400);
    expect(await lapseDueHolds(t.database.db, clock)).toBe(0);
    clock.advance(86_400 + 1);
    expect(await lapseDueHolds(t.database.db, clock)).toBeGreaterThanOrEqual(1);
    expect(await lapseDueHolds(t.database.db, clock)).toBe(0);
    const res = await capture(paymentId);
    expect(res.status).toBe(409);
    expect(res.json.error.message).toContain('lapsed');
    expect((await types(paymentId)).filter((x) => x === 'payment.authorization_expired')).toHaveLength(1);
    expect((await invoiceOf(paymentId)).status).toBe('cancelled');
  });
});
