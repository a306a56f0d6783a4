// Wallet QR payments, by the rules of checkout-billing-api.md: confirm with a wallet option, and
// the sandbox wallet paying the code. Withdraw-qr, cancel and expiry: wallet-qr-withdraw.test.ts;
// existing invoices and wallet refunds: wallet-qr-invoices-and-refunds.test.ts; races: wallet-qr.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { call, createTestSession, useTestServer } from '../support/server.js';
import { cardDetails, walletKit } from '../support/checkout.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const pk = () => t.merchantA.keys.test.publishable;
const { session: newSession, confirm, withdraw, qrPaid, retrieve, payments, events, image, showingQr, paidByQr } = walletKit(t);

describe('confirm with a wallet option', () => {
  it('confirm with wallet:qr answers payment_pending with a display_qr next action; the session is payment_pending with a pending wallet payment', async () => {
    const s = await newSession();
    const res = await confirm(s);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: s.id,
      object: 'checkout_session',
      status: 'payment_pending',
      paymentStatus: 'pending',
      paymentResult: { status: 'pending', amount: 49.99, currency: 'USD' },
    });
    const action = res.json.nextAction;
    expect(action.type).toBe('display_qr');
    expect(action.qrData).toMatch(/^000201010212/);
    expect(action.qrData).toContain('540549.99');
    expect(action.qrImageUrl).toMatch(/\/qr\/qr_[A-Za-z0-9]+\.png$/);
    const session = await retrieve(s);
    expect(action.expiresAt).toBe(session.json.expiresAt);
    expect(session.json).toMatchObject({ status: 'payment_pending', refund: { refundable: false, reason: 'not_paid' } });
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: pk(), clientSecret: s.clientSecret })).json).toEqual({
      status: 'payment_pending',
    });
    const rows = await payments(s);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: res.json.paymentResult.id,
      status: 'pending',
      method_type: 'wallet',
      wallet_name: 'Wallet QR',
      invoice_id: null,
      qr_data: action.qrData,
    });
  });

  it('qrImageUrl serves a PNG of the code from this server while the code is live', async () => {
    const { s, confirmed } = await showingQr();
    const png = await image(confirmed.nextAction.qrImageUrl);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    await withdraw(s);
    expect((await image(confirmed.nextAction.qrImageUrl)).status).toBe(404);
    expect((await fetch(`${t.url}/qr/qr_nosuchcode12345.png`)).status).toBe(404);
  });

  it('repeating confirm with wallet:qr while the code is live answers the same code and makes no second payment', async () => {
    const { s, confirmed } = await showingQr();
    const again = await confirm(s);
    expect(again.json).toEqual(confirmed);
    expect(await payments(s)).toHaveLength(1);
  });

  it('an unknown wallet option answers 400 naming paymentMethodId', async () => {
    const s = await newSession();
    const res = await confirm(s, 'wallet:crypto');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
  });

  it('a merchant without an enabled wallet option is not offered wallet:qr, and confirm with it answers 400 naming paymentMethodId', async () => {
    const merchant = await t.newMerchant('No wallet');
    await t.database.db
      .updateTable('merchants')
      .set({
        payment_options: JSON.stringify([
          { id: 1, code: 'card_visa', name: 'Visa', method: 'CreditCard', canHold: true, holdDays: null, enabled: true },
          { id: 3, code: 'wallet_qr', name: 'Wallet QR', method: 'GatewayWallet', canHold: false, holdDays: null, enabled: false },
        ]),
      })
      .where('id', '=', merchant.merchantId)
      .execute();
    const s = await createTestSession(t, merchant);
    const got = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: merchant.keys.test.secret });
    expect(got.json.allowedPaymentMethods).not.toContain('wallet:qr');
    const res = await call(t.url, 'POST', `/v1/checkout-sessions/${s.id}/confirm`, {
      key: merchant.keys.test.publishable,
      clientSecret: s.clientSecret,
      body: { paymentMethodId: 'wallet:qr' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
  });

  it('a hold session (captureMethod manual) refuses wallets with 400', async () => {
    const s = await newSession({ captureMethod: 'manual' });
    expect((await retrieve(s)).json.allowedPaymentMethods).not.toContain('wallet:qr');
    const res = await confirm(s);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
    expect((await retrieve(s)).json.status).toBe('created');
  });

  it('a subscription session refuses wallets with 400', async () => {
    // Subscription sessions cannot be created on this branch yet; the rule is checked on the row.
    const s = await newSession();
    await t.database.db.updateTable('checkout_sessions').set({ payment_type: 'subscription' }).where('id', '=', s.id).execute();
    expect((await retrieve(s)).json.allowedPaymentMethods).not.toContain('wallet:qr');
    const res = await confirm(s);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
  });

  it('a card confirm while a QR code is live is refused with 409 (withdraw the code first), so the payer cannot pay twice', async () => {
    const { s } = await showingQr();
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk(), clientSecret: s.clientSecret, body: cardDetails() });
    const res = await confirm(s, pm.json.id);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('invalid_state');
    expect(await payments(s)).toHaveLength(1);
  });
});

describe('the sandbox wallet pays the code (simulateQrPaid)', () => {
  it('qr-paid completes the session: the pending payment succeeds (no second row), invoice paid, ledger, payment.succeeded then checkout.session.completed with a wallet payment method', async () => {
    const { s, confirmed } = await showingQr();
    const res = await qrPaid(s);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ sessionId: s.id, status: 'completed', paymentStatus: 'paid', paymentId: confirmed.paymentResult.id });
    const rows = await payments(s);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'succeeded', method_type: 'wallet', captured_amount: '49.9900', fee: '1.7500' });
    const invoice = await t.database.db.selectFrom('invoices').selectAll().where('id', '=', rows[0]!.invoice_id!).executeTakeFirstOrThrow();
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: '49.9900', payer_email: 'ana@example.com', session_id: s.id });
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select(['type', 'amount'])
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', rows[0]!.id)
      .orderBy('id')
      .execute();
    expect(ledger).toEqual([
      { type: 'payment', amount: '49.9900' },
      { type: 'fee', amount: '-1.7500' },
    ]);
    const evts = await events(s);
    expect(evts.map((e) => e.type)).toEqual(['payment.succeeded', 'checkout.session.completed']);
    expect(evts[0]!.data).toMatchObject({
      status: 'Success',
      paymentMethod: { type: 'wallet', brand: 'Wallet QR', last4: null },
      metadata: { orderId: 'Q-1' },
    });
    expect(evts[1]!.data).toMatchObject({ status: 'Completed', paymentStatus: 'Paid', paymentId: rows[0]!.id });
    expect((await retrieve(s)).json).toMatchObject({ status: 'completed', invoiceId: invoice.id, refund: { refundable: true, reason: 'refundable' } });
  });

  it('qr-paid on a session without a live code (none issued, already paid) answers 409 invalid_state', async () => {
    const s = await newSession();
    expect((await qrPaid(s)).json.error).toMatchObject({ code: 'invalid_state' });
    const { s: paid } = await paidByQr();
    expect((await qrPaid(paid)).status).toBe(409);
    expect(await payments(paid)).toHaveLength(1);
  });

  it("qr-paid is test mode only, and another merchant's session answers 404", async () => {
    const { s } = await showingQr();
    expect((await qrPaid(s, t.url, t.merchantA.keys.live.secret)).status).toBe(403);
    expect((await qrPaid(s, t.url, t.merchantB.keys.test.secret)).status).toBe(404);
  });
});
