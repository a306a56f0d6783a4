// Checkout sessions that pay a merchant's invoice: creation rule 6 of checkout-billing-api.md, each
// test named after the part of the rule it proves. Ten creates racing on one invoice (PostgreSQL)
// are in invoices.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { delivered } from '../support/events.js';
import { confirmWithCard, invoiceEvents, newInvoice, oneTimeSession } from '../support/billing.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const pk = () => t.merchantA.keys.test.publishable;
const invoiceRow = (id: number) => t.database.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('rule 6: paying an existing invoice', () => {
  it('6b: amount and currency come from the invoice: the session charges its total due, by id or by pay-link reference', async () => {
    const inv = await newInvoice(t, sk(), { currency: 'EUR', taxRate: 10 });
    const byId = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    expect(byId.status).toBe(201);
    expect(byId.json).toMatchObject({ amount: inv.amountDue, currency: 'EUR' });
    const other = await newInvoice(t, sk());
    const byRef = await oneTimeSession(t, sk(), { invoiceReference: other.reference });
    expect(byRef.status).toBe(201);
    expect(byRef.json).toMatchObject({ amount: other.amountDue, currency: 'USD' });
    const got = await t.call('GET', `/v1/checkout-sessions/${byRef.json.id}`, { key: sk() });
    expect(got.json.invoiceId).toBe(other.id);
  });

  it('6a: only oneTime; both invoice fields, or lineItems with one, fail with validation_error', async () => {
    const inv = await newInvoice(t, sk());
    expect((await oneTimeSession(t, sk(), { invoiceId: inv.id, paymentType: 'subscription', subscriptionPlanId: 1, clientId: 1 })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'paymentType',
    });
    expect((await oneTimeSession(t, sk(), { invoiceId: inv.id, invoiceReference: inv.reference })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'invoiceReference',
    });
    expect((await oneTimeSession(t, sk(), { invoiceId: inv.id, lineItems: [{ name: 'x', quantity: 1, unitAmount: 5 }] })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'lineItems',
    });
  });

  it('6b: an amount, currency or paymentOptionGroupId sent with the invoice must match it', async () => {
    const inv = await newInvoice(t, sk());
    expect((await oneTimeSession(t, sk(), { invoiceId: inv.id, amount: inv.amountDue })).status).toBe(201);
    const inv2 = await newInvoice(t, sk());
    expect((await oneTimeSession(t, sk(), { invoiceId: inv2.id, amount: inv2.amountDue + 1 })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'amount',
    });
    expect((await oneTimeSession(t, sk(), { invoiceId: inv2.id, currency: 'EUR' })).json.error).toMatchObject({ code: 'validation_error', param: 'currency' });
    expect((await oneTimeSession(t, sk(), { invoiceId: inv2.id, paymentOptionGroupId: 3 })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'paymentOptionGroupId',
    });
  });

  it("6c: another merchant's invoice, or the other mode's, answers 404 invoice_not_found", async () => {
    const theirs = await newInvoice(t, t.merchantB.keys.test.secret);
    const notFound = await oneTimeSession(t, sk(), { invoiceId: theirs.id });
    expect(notFound.status).toBe(404);
    expect(notFound.json.error).toMatchObject({ code: 'invoice_not_found', param: 'invoiceId' });
    expect((await oneTimeSession(t, sk(), { invoiceReference: theirs.reference })).json.error).toMatchObject({
      code: 'invoice_not_found',
      param: 'invoiceReference',
    });
    const live = await newInvoice(t, t.merchantA.keys.live.secret);
    expect((await oneTimeSession(t, sk(), { invoiceId: live.id })).json.error.code).toBe('invoice_not_found');
  });

  it('6d: a paid, cancelled, draft, expired or zero-balance invoice answers 409 invoice_not_payable', async () => {
    const paid = await newInvoice(t, sk());
    const s = await oneTimeSession(t, sk(), { invoiceId: paid.id });
    expect((await confirmWithCard(t, pk(), s.json)).status).toBe(200);
    const cancelled = await newInvoice(t, sk());
    await t.call('POST', `/v1/invoices/${cancelled.id}/void`, { key: sk() });
    const zero = await newInvoice(t, sk(), { discount: 406.75 });
    expect(zero.total).toBe(0);
    // Drafts and expired invoices are made through the Commerce interface and by time; set them directly here.
    const draft = await newInvoice(t, sk());
    const expired = await newInvoice(t, sk());
    await t.database.db.updateTable('invoices').set({ status: 'draft' }).where('id', '=', draft.id).execute();
    await t.database.db.updateTable('invoices').set({ status: 'expired' }).where('id', '=', expired.id).execute();
    for (const inv of [paid, cancelled, zero, draft, expired]) {
      const res = await oneTimeSession(t, sk(), { invoiceId: inv.id });
      expect(res.status, `invoice ${inv.id}`).toBe(409);
      expect(res.json.error.code).toBe('invoice_not_payable');
    }
  });

  it('6e: while a session on the invoice is open, creating another returns that same session (200, with its expiry)', async () => {
    const inv = await newInvoice(t, sk());
    const first = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    clock.advance(60);
    const again = await oneTimeSession(t, sk(), { invoiceReference: inv.reference });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({
      id: first.json.id,
      clientSecret: first.json.clientSecret,
      expiresAt: first.json.expiresAt,
      createdAt: first.json.createdAt,
    });
    // Once it has expired, a new session is made.
    clock.advance(31 * 60);
    const fresh = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    expect(fresh.status).toBe(201);
    expect(fresh.json.id).not.toBe(first.json.id);
    expect((await t.call('GET', `/v1/checkout-sessions/${first.json.id}`, { key: sk() })).json.status).toBe('expired');
  });

  it('6f: when the session is cancelled or expires, the invoice is left as it was and can be paid by a new session', async () => {
    const inv = await newInvoice(t, sk(), { send: true });
    const s = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    expect((await t.call('POST', `/v1/checkout-sessions/${s.json.id}/cancel`, { key: sk() })).status).toBe(204);
    expect((await invoiceRow(inv.id)).status).toBe('sent');
    const next = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    expect(next.status).toBe(201);
    clock.advance(31 * 60);
    expect((await t.call('GET', `/v1/checkout-sessions/${next.json.id}`, { key: sk() })).json.status).toBe('expired');
    expect((await invoiceRow(inv.id)).status).toBe('sent');
  });

  it('6g: paying pays that invoice (no second invoice), writes invoice.paid, and checkout.session.completed carries invoiceId and invoiceReference', async () => {
    const inv = await newInvoice(t, sk(), { description: 'Invoice text' });
    const s = await oneTimeSession(t, sk(), { invoiceId: inv.id, description: 'ignored for an invoice', customerEmail: 'payer@example.com' });
    const confirmed = await confirmWithCard(t, pk(), s.json);
    expect(confirmed.json).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    const payment = await t.database.db.selectFrom('payments').selectAll().where('session_id', '=', s.json.id).executeTakeFirstOrThrow();
    expect(payment.invoice_id).toBe(inv.id);
    const after = await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk() });
    expect(after.json).toMatchObject({ status: 'paid', amountPaid: inv.total, amountDue: 0, description: 'Invoice text', customer: inv.customer });
    expect(await t.database.db.selectFrom('invoices').select('id').where('session_id', '=', s.json.id).execute()).toEqual([]);
    expect((await invoiceEvents(t, inv.id)).map((e) => e.type)).toEqual(['invoice.paid']);
    const completed = delivered(
      await t.database.db
        .selectFrom('events')
        .select('data')
        .where('session_id', '=', s.json.id)
        .where('type', '=', 'checkout.session.completed')
        .executeTakeFirstOrThrow(),
    );
    expect(completed.data).toMatchObject({ invoiceId: inv.id, invoiceReference: inv.reference, status: 'Completed', paymentStatus: 'Paid' });
  });

  it('a declined card or a failed 3-D Secure on its session writes invoice.payment_failed after payment.failed; the invoice stays payable and is then paid', async () => {
    const inv = await newInvoice(t, sk());
    const s = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    const declined = await confirmWithCard(t, pk(), s.json, '4000000000009995');
    expect(declined.json.error.code).toBe('card_declined');
    expect((await invoiceEvents(t, inv.id)).map((e) => e.type)).toEqual(['invoice.payment_failed']);
    expect((await invoiceEvents(t, inv.id))[0]!.data).toMatchObject({ object: 'invoice', id: inv.id, status: 'Pending', amountDue: inv.total });
    const sessionEvents = await t.database.db
      .selectFrom('events')
      .select('type')
      .where('merchant_id', '=', t.merchantA.merchantId)
      .where((eb) => eb.or([eb('session_id', '=', s.json.id), eb('type', '=', 'invoice.payment_failed')]))
      .orderBy('seq')
      .execute();
    expect(sessionEvents.map((e) => e.type).slice(-2)).toEqual(['payment.failed', 'invoice.payment_failed']);
    expect((await invoiceRow(inv.id)).status).toBe('pending');
    // 3-D Secure failed by the payer: the same.
    const challenged = await confirmWithCard(t, pk(), s.json, '4000000000003220');
    const page = new URL(challenged.json.nextAction.url).pathname;
    const token = /name="token" value="([^"]+)"/.exec(await (await fetch(`${t.url}${page}`)).text())?.[1] ?? '';
    const failed = await fetch(`${t.url}${page}`, { method: 'POST', body: new URLSearchParams({ answer: 'fail', token }), redirect: 'manual' });
    expect(failed.status).toBeLessThan(400);
    const payments = await t.database.db.selectFrom('payments').select(['status', 'failure_code']).where('session_id', '=', s.json.id).orderBy('id').execute();
    expect(payments.map((p) => p.status)).toEqual(['failed', 'failed']);
    expect((await invoiceEvents(t, inv.id)).map((e) => e.type)).toEqual(['invoice.payment_failed', 'invoice.payment_failed']);
    const paid = await confirmWithCard(t, pk(), s.json);
    expect(paid.json).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    expect((await invoiceEvents(t, inv.id)).map((e) => e.type)).toEqual(['invoice.payment_failed', 'invoice.payment_failed', 'invoice.paid']);
  });

  it('a declined card on a session that does not pay an invoice writes no invoice event', async () => {
    const s = await oneTimeSession(t, sk(), { amount: 30, currency: 'USD' });
    const before = await t.database.db
      .selectFrom('events')
      .select('seq')
      .where('merchant_id', '=', t.merchantA.merchantId)
      .where('type', 'like', 'invoice.%')
      .execute();
    expect((await confirmWithCard(t, pk(), s.json, '4000000000009995')).json.error.code).toBe('card_declined');
    const after = await t.database.db
      .selectFrom('events')
      .select('seq')
      .where('merchant_id', '=', t.merchantA.merchantId)
      .where('type', 'like', 'invoice.%')
      .execute();
    expect(after).toHaveLength(before.length);
    expect(await t.database.db.selectFrom('events').select('type').where('session_id', '=', s.json.id).execute()).toEqual([{ type: 'payment.failed' }]);
  });

  it('an invoice voided while its session is open can no longer be paid through it', async () => {
    const inv = await newInvoice(t, sk());
    const s = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk() });
    const res = await confirmWithCard(t, pk(), s.json);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('invoice_not_payable');
    expect(await t.database.db.selectFrom('payments').select('id').where('session_id', '=', s.json.id).execute()).toEqual([]);
  });

  it('a hold on an invoice: a partial capture leaves it partially_paid; a release leaves it as it was', async () => {
    const inv = await newInvoice(t, sk());
    const held = await oneTimeSession(t, sk(), { invoiceId: inv.id, captureMethod: 'manual' });
    const confirmed = await confirmWithCard(t, pk(), held.json);
    expect(confirmed.json.paymentStatus).toBe('authorized');
    expect((await invoiceRow(inv.id)).status).toBe('pending');
    const capture = await t.call('POST', `/v1/payments/${confirmed.json.paymentResult.id}/capture`, { key: sk(), body: { amount: 100 } });
    expect(capture.json).toMatchObject({ status: 'captured', capturedAmount: 100 });
    expect((await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk() })).json).toMatchObject({
      status: 'partially_paid',
      amountPaid: 100,
      total: inv.total,
      discount: 0,
    });

    const inv2 = await newInvoice(t, sk());
    const held2 = await oneTimeSession(t, sk(), { invoiceId: inv2.id, captureMethod: 'manual' });
    const confirmed2 = await confirmWithCard(t, pk(), held2.json);
    await t.call('POST', `/v1/payments/${confirmed2.json.paymentResult.id}/release`, { key: sk() });
    expect((await invoiceRow(inv2.id)).status).toBe('pending');
  });
});
