// Sandbox disputes (issue 14, part 4): a test helper opens a chargeback on a card payment, moves it
// and closes it Won, Lost or Accepted. Lost and Accepted take the disputed amount and the 15.00 fee
// from the balance through the ledger (it may go negative) and reopen the invoice the payment paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventEnvelope } from '../../server/api/checkout/views/event.view.js';
import { toEventRecord } from '../../server/domain/events/event.service.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { expectEventMatchesContract } from '../support/event-contract.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';
import { call, createTestSession, startTestServer, type TestServer, usingPostgres } from '../support/server.js';

let t: TestServer;
let sk: string;
beforeAll(async () => {
  t = await startTestServer();
  sk = t.merchantA.keys.test.secret;
});
afterAll(async () => {
  await t?.close();
});

const card = (cardNumber = '4242424242424242') => ({ cardNumber, expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' });

/** A test session of `merchant` paid by card (with `body` over the defaults); its payment id. */
async function pay(merchant: MerchantCredentials, body: Record<string, unknown> = {}, cardNumber?: string) {
  const s = await createTestSession(t, merchant, false, { amount: 100, ...body });
  const pk = merchant.keys.test.publishable;
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card(cardNumber) });
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
  if (res.json.paymentResult) return res.json.paymentResult.id as number;
  // A declined card answers an error; its failed payment is still the session's.
  return (await t.database.db.selectFrom('payments').select('id').where('session_id', '=', s.id).executeTakeFirstOrThrow()).id;
}
const paid = (amount = 100) => pay(t.merchantA, { amount });
const open = (paymentId: number, body: Record<string, unknown> = {}, key = sk) =>
  t.call('POST', `/v1/test-helpers/payments/${paymentId}/dispute`, { key, body });
const update = (id: string, body: Record<string, unknown>, key = sk) => t.call('POST', `/v1/test-helpers/disputes/${id}/update`, { key, body });
const close = (id: string, outcome: string, key = sk) => t.call('POST', `/v1/test-helpers/disputes/${id}/close`, { key, body: { outcome } });
const paymentOf = (paymentId: number) => t.database.db.selectFrom('payments').select(['invoice_id']).where('id', '=', paymentId).executeTakeFirstOrThrow();

/** The dispute events of a payment as delivered, each checked against the contract's schema for its type. */
async function disputeEvents(paymentId: number) {
  const rows = await t.database.db
    .selectFrom('events')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('type', 'like', 'dispute.%')
    .orderBy('seq')
    .execute();
  const bodies = rows.map((row) => eventEnvelope(toEventRecord(row)) as any);
  for (const body of bodies) expectEventMatchesContract(body);
  return bodies;
}

/** What a payment moved in the merchant's balances, in order. */
const merchantEntries = (paymentId: number) =>
  t.database.db
    .selectFrom('ledger_entries')
    .select(['type', 'account', 'amount'])
    .where('payment_id', '=', paymentId)
    .where('account', 'in', MERCHANT_BALANCES)
    .orderBy('id')
    .execute();

/** Every posting of a payment balances (its entries sum to zero). */
async function expectBalancedPostings(paymentId: number) {
  const sums = await t.database.db
    .selectFrom('ledger_entries')
    .select(['posting_id', (eb) => eb.fn.sum<string>('amount').as('total')])
    .where('payment_id', '=', paymentId)
    .groupBy('posting_id')
    .execute();
  expect(sums.length).toBeGreaterThan(0);
  for (const s of sums) expect(Number(s.total)).toBe(0);
}

describe('a dispute from open to closed', () => {
  it('opens on a card payment (201, Open, all that was captured by default), sends dispute.opened and moves no money', async () => {
    const paymentId = await paid(100);
    const before = await merchantEntries(paymentId);
    const res = await open(paymentId, { reason: 'fraudulent' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      object: 'dispute',
      paymentId,
      amount: 100,
      currency: 'USD',
      status: 'Open',
      reason: 'fraudulent',
      fee: 0,
      closedAt: null,
      isLive: false,
    });
    expect(res.json.id).toMatch(/^dp_/);
    expect(res.json.previousStatus).toBeUndefined();
    expect(new Date(res.json.evidenceDueBy).getTime()).toBeGreaterThan(Date.now() + 20 * 86_400_000);
    expect(await merchantEntries(paymentId)).toEqual(before);
    const [opened] = await disputeEvents(paymentId);
    expect(opened).toMatchObject({ type: 'dispute.opened', livemode: false, data: { object: { id: res.json.id, status: 'Open', amount: 100 } } });
    expect((await t.call('GET', `/v1/disputes/${res.json.id}`, { key: sk })).json).toEqual(res.json);
  });

  it('moves: dispute.updated with previousStatus; a change to nothing sends nothing', async () => {
    const paymentId = await paid(40);
    const { json: dispute } = await open(paymentId, { amount: 25.5 });
    const due = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const moved = await update(dispute.id, { status: 'UnderReview', evidenceDueBy: due });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toMatchObject({ status: 'UnderReview', previousStatus: 'Open', amount: 25.5, evidenceDueBy: due });
    expect((await update(dispute.id, { status: 'UnderReview' })).json).toEqual(moved.json);
    const events = await disputeEvents(paymentId);
    expect(events.map((e) => e.type)).toEqual(['dispute.opened', 'dispute.updated']);
    expect(events[1].data.object).toMatchObject({ status: 'UnderReview', previousStatus: 'Open', evidenceDueBy: due });
  });

  it('closes Won: nothing moves, dispute.closed with invoiceReopened false, and the invoice stays paid', async () => {
    const paymentId = await paid(60);
    const before = await merchantEntries(paymentId);
    const { json: dispute } = await open(paymentId);
    await update(dispute.id, { status: 'UnderReview' });
    const won = await close(dispute.id, 'Won');
    expect(won.status, won.text).toBe(200);
    expect(won.json).toMatchObject({ status: 'Won', previousStatus: 'UnderReview', invoiceReopened: false, fee: 0, evidenceDueBy: null });
    expect(won.json.closedAt).toEqual(expect.any(String));
    expect(await merchantEntries(paymentId)).toEqual(before);
    const invoice = await t.call('GET', `/v1/invoices/${(await paymentOf(paymentId)).invoice_id}`, { key: sk });
    expect(invoice.json).toMatchObject({ status: 'paid', amountPaid: 60, amountDue: 0 });
    const events = await disputeEvents(paymentId);
    expect(events.at(-1)).toMatchObject({ type: 'dispute.closed', data: { object: { status: 'Won', previousStatus: 'UnderReview', invoiceReopened: false } } });
  });

  it('closes Lost before settlement: the amount and the 15.00 fee leave the pending balance, and the invoice is owed again and payable', async () => {
    const paymentId = await paid(100);
    const { json: dispute } = await open(paymentId, { amount: 40 });
    const lost = await close(dispute.id, 'Lost');
    expect(lost.json).toMatchObject({ status: 'Lost', previousStatus: 'Open', invoiceReopened: true, fee: 15, amount: 40 });
    expect(await merchantEntries(paymentId)).toEqual([
      { type: 'payment', account: 'pending', amount: '100.0000' },
      { type: 'fee', account: 'pending', amount: '-3.2000' },
      { type: 'dispute', account: 'pending', amount: '-40.0000' },
      { type: 'dispute_fee', account: 'pending', amount: '-15.0000' },
    ]);
    await expectBalancedPostings(paymentId);
    const invoiceId = (await paymentOf(paymentId)).invoice_id!;
    expect(lost.json.invoiceId).toBe(invoiceId);
    const invoice = await t.call('GET', `/v1/invoices/${invoiceId}`, { key: sk });
    expect(invoice.json).toMatchObject({ status: 'partially_paid', amountPaid: 60, amountDue: 40 });
    expect((await disputeEvents(paymentId)).at(-1)).toMatchObject({ type: 'dispute.closed', data: { object: { status: 'Lost', invoiceReopened: true } } });
    // Payable again: a session on the invoice asks for what is owed, and paying it pays the invoice.
    const again = await pay(t.merchantA, { invoiceId, amount: undefined });
    expect(again).toBeGreaterThan(paymentId);
    const repaid = await t.call('GET', `/v1/invoices/${invoiceId}`, { key: sk });
    expect(repaid.json).toMatchObject({ status: 'paid', amountPaid: 100, amountDue: 0 });
    // Settlement then moves the payment's net, dispute included: 100 - 3.20 - 40 - 15.
    const settled = await t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key: sk });
    expect(settled.json).toMatchObject({ netAmount: 41.8 });
  });

  it('closes Accepted after settlement: taken from the available balance, which may go negative; a fully disputed invoice is pending again', async () => {
    const merchant = await t.newMerchant('Disputed');
    const key = merchant.keys.test.secret;
    const paymentId = await pay(merchant, { amount: 10 });
    expect((await t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key })).status).toBe(200);
    const { json: dispute } = await open(paymentId, {}, key);
    const accepted = await close(dispute.id, 'Accepted', key);
    expect(accepted.json).toMatchObject({ status: 'Accepted', amount: 10, fee: 15, invoiceReopened: true });
    expect((await merchantEntries(paymentId)).slice(-2)).toEqual([
      { type: 'dispute', account: 'available', amount: '-10.0000' },
      { type: 'dispute_fee', account: 'available', amount: '-15.0000' },
    ]);
    await expectBalancedPostings(paymentId);
    // 10 paid, 0.59 fee, 10 disputed, 15 dispute fee: the available balance is -15.59, exactly.
    const sums = await t.database.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<string>('amount').as('available'))
      .where('merchant_id', '=', merchant.merchantId)
      .where('livemode', '=', false)
      .where('account', '=', 'available')
      .executeTakeFirstOrThrow();
    expect(sums.available).toBe('-15.5900');
    const invoice = await t.call('GET', `/v1/invoices/${(await paymentOf(paymentId)).invoice_id}`, { key });
    expect(invoice.json).toMatchObject({ status: 'pending', amountPaid: 0, amountDue: 10 });
  });

  it('lists the tenant’s disputes, newest first, by payment and by status', async () => {
    const merchant = await t.newMerchant('Lister');
    const key = merchant.keys.test.secret;
    const first = (await open(await pay(merchant, { amount: 20 }), {}, key)).json;
    const secondPayment = await pay(merchant, { amount: 30 });
    const second = (await open(secondPayment, {}, key)).json;
    await close(first.id, 'Won', key);
    const all = await t.call('GET', '/v1/disputes?limit=1', { key });
    expect(all.json).toMatchObject({ object: 'list', data: [{ id: second.id }], hasMore: true });
    expect((await t.call('GET', `/v1/disputes?startingAfter=${second.id}`, { key })).json).toMatchObject({
      data: [{ id: first.id, status: 'Won' }],
      hasMore: false,
    });
    expect((await t.call('GET', `/v1/disputes?paymentId=${secondPayment}`, { key })).json.data.map((d: any) => d.id)).toEqual([second.id]);
    expect((await t.call('GET', '/v1/disputes?status=Won', { key })).json.data.map((d: any) => d.id)).toEqual([first.id]);
    expect((await t.call('GET', `/v1/disputes?startingAfter=dp_NoSuchDispute1`, { key })).status).toBe(404);
  });
});

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
    expect((await t.call('POST', `/v1/payments/${refunded}/refund`, { key: sk, body: {} })).status).toBe(200);
    expectError(await open(refunded), 409, 'invalid_state');
  });

  it('an amount over what was captured and not refunded, or not above 0, is 400 parameter_invalid; so is a past deadline', async () => {
    const paymentId = await paid(50);
    expect((await t.call('POST', `/v1/payments/${paymentId}/refund`, { key: sk, body: { amount: 10 } })).status).toBe(200);
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
  const refund = (paymentId: number, body: Record<string, unknown> = {}) => t.call('POST', `/v1/payments/${paymentId}/refund`, { key: sk, body });

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

describe('tenancy and modes', () => {
  it("another merchant's payment and dispute are 404, and its list does not show them", async () => {
    const paymentId = await paid(15);
    const other = t.merchantB.keys.test.secret;
    expectNotFound(await open(paymentId, {}, other));
    const { json: dispute } = await open(paymentId);
    expectNotFound(await t.call('GET', `/v1/disputes/${dispute.id}`, { key: other }));
    expectNotFound(await update(dispute.id, { status: 'UnderReview' }, other));
    expectNotFound(await close(dispute.id, 'Lost', other));
    expect((await t.call('GET', `/v1/disputes?paymentId=${paymentId}`, { key: other })).json.data).toEqual([]);
    expectNotFound(await t.call('GET', `/v1/disputes/${dispute.id}`, { key: t.merchantA.keys.live.secret }));
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`, { key: sk })).json.status).toBe('Open');
  });

  it('live keys are refused by the test helpers (403 livemode_not_allowed)', async () => {
    const live = t.merchantA.keys.live.secret;
    const paymentId = await pay(t.merchantA, { amount: 10 });
    const { json: dispute } = await open(paymentId);
    for (const res of [await open(paymentId, {}, live), await update(dispute.id, { status: 'UnderReview' }, live), await close(dispute.id, 'Lost', live)]) {
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'livemode_not_allowed' });
    }
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`, { key: sk })).json.status).toBe('Open');
  });
});

function expectNotFound(res: { status: number; json: any }) {
  expect(res.status).toBe(404);
  expect(res.json.error).toMatchObject({ type: 'not_found', code: 'resource_not_found' });
}

describe.runIf(usingPostgres)('exactness under concurrency (PostgreSQL)', () => {
  it('two closes at once move money once: one answers 200, the other 409', async () => {
    const sibling = await t.startSibling();
    try {
      const paymentId = await paid(80);
      const { json: dispute } = await open(paymentId);
      const results = await Promise.all(
        [t.url, sibling.url].map((url) => call(url, 'POST', `/v1/test-helpers/disputes/${dispute.id}/close`, { key: sk, body: { outcome: 'Lost' } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const disputeEntries = (await merchantEntries(paymentId)).filter((e) => e.type.startsWith('dispute'));
      expect(disputeEntries).toEqual([
        { type: 'dispute', account: 'pending', amount: '-80.0000' },
        { type: 'dispute_fee', account: 'pending', amount: '-15.0000' },
      ]);
      expect((await disputeEvents(paymentId)).filter((e) => e.type === 'dispute.closed')).toHaveLength(1);
      const invoice = await t.call('GET', `/v1/invoices/${(await paymentOf(paymentId)).invoice_id}`, { key: sk });
      expect(invoice.json).toMatchObject({ status: 'pending', amountPaid: 0, amountDue: 80 });
    } finally {
      await sibling.close();
    }
  });

  it('two opens at once on one payment make one dispute', async () => {
    const sibling = await t.startSibling();
    try {
      const paymentId = await paid(35);
      const results = await Promise.all(
        [t.url, sibling.url].map((url) => call(url, 'POST', `/v1/test-helpers/payments/${paymentId}/dispute`, { key: sk, body: {} })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect((await t.call('GET', `/v1/disputes?paymentId=${paymentId}`, { key: sk })).json.data).toHaveLength(1);
    } finally {
      await sibling.close();
    }
  });
});
