// Sandbox disputes (issue 14, part 4): a test helper opens a chargeback on a card payment, moves it
// and closes it Won, Lost or Accepted. Lost and Accepted take the disputed amount and the 15.00 fee
// from the balance through the ledger (it may go negative) and reopen the invoice the payment paid.
// Refused transitions and refunds of disputed payments: disputes-refusals.test.ts; races: disputes.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { disputeKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;
const { pay, paid, open, update, close, paymentOf, disputeEvents, merchantEntries } = disputeKit(t);

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
    expect((await t.call('GET', `/v1/disputes/${res.json.id}`, { key: sk() })).json).toEqual(res.json);
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
    const invoice = await t.call('GET', `/v1/invoices/${(await paymentOf(paymentId)).invoice_id}`, { key: sk() });
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
    const invoice = await t.call('GET', `/v1/invoices/${invoiceId}`, { key: sk() });
    expect(invoice.json).toMatchObject({ status: 'partially_paid', amountPaid: 60, amountDue: 40 });
    expect((await disputeEvents(paymentId)).at(-1)).toMatchObject({ type: 'dispute.closed', data: { object: { status: 'Lost', invoiceReopened: true } } });
    // Payable again: a session on the invoice asks for what is owed, and paying it pays the invoice.
    const again = await pay(t.merchantA, { invoiceId, amount: undefined });
    expect(again).toBeGreaterThan(paymentId);
    const repaid = await t.call('GET', `/v1/invoices/${invoiceId}`, { key: sk() });
    expect(repaid.json).toMatchObject({ status: 'paid', amountPaid: 100, amountDue: 0 });
    // Settlement then moves the payment's net, dispute included: 100 - 3.20 - 40 - 15.
    const settled = await t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key: sk() });
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
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`, { key: sk() })).json.status).toBe('Open');
  });

  it('live keys are refused by the test helpers (403 livemode_not_allowed)', async () => {
    const live = t.merchantA.keys.live.secret;
    const paymentId = await pay(t.merchantA, { amount: 10 });
    const { json: dispute } = await open(paymentId);
    for (const res of [await open(paymentId, {}, live), await update(dispute.id, { status: 'UnderReview' }, live), await close(dispute.id, 'Lost', live)]) {
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'livemode_not_allowed' });
    }
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`, { key: sk() })).json.status).toBe('Open');
  });
});

function expectNotFound(res: { status: number; json: any }) {
  expect(res.status).toBe(404);
  expect(res.json.error).toMatchObject({ type: 'not_found', code: 'resource_not_found' });
}
