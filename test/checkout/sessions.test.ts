// Checkout sessions: the creation rules. Each test is named after the rule of checkout-billing-api.md
// it proves. Retrieval, status, cancel and expiry: sessions-lifecycle.test.ts; the same rules
// called on the service: session-create.domain.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { inMinutes, sessionCreator } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const create = sessionCreator(t);
const minutes = (n: number) => inMinutes(clock, n);

describe('creating a session', () => {
  it('answers open and unpaid, with a client secret, a hosted page URL and a 30-minute expiry (rule 1)', async () => {
    const res = await create({});
    expect(res.status).toBe(201);
    const s = res.json;
    expect(s).toMatchObject({
      object: 'checkout_session',
      status: 'open',
      paymentStatus: 'unpaid',
      amount: 49.99,
      currency: 'USD',
      mode: 'hosted',
      paymentType: 'oneTime',
    });
    expect(s.id).toMatch(/^cs_test_[A-Za-z0-9]+$/);
    expect(s.clientSecret).toMatch(new RegExp(`^${s.id}_secret_[A-Za-z0-9]+$`));
    expect(s.url).toBe(`${new URL(s.url).origin}/pay/${s.id}#cs=${s.clientSecret}`);
    expect(new Date(s.expiresAt).getTime() - new Date(s.createdAt).getTime()).toBe(30 * 60_000);
    expect(s.notificationSecret).toBeUndefined();
  });

  it('an embedded session has url null', async () => {
    const res = await create({ mode: 'embedded', successUrl: undefined });
    expect(res.json.url).toBeNull();
  });

  it('live keys make live sessions', async () => {
    const res = await create({}, t.merchantA.keys.live.secret);
    expect(res.json.id).toMatch(/^cs_live_/);
  });

  it('replaces {CHECKOUT_SESSION_ID} as-is and percent-encoded, and stores the final URL (rule 2)', async () => {
    const res = await create({
      successUrl: 'https://shop.example.com/ok?s={CHECKOUT_SESSION_ID}',
      cancelUrl: 'https://shop.example.com/cancel?s=%7BCHECKOUT_SESSION_ID%7D&x=%7bCHECKOUT_SESSION_ID%7d&y={checkout_session_id}',
    });
    const id = res.json.id;
    expect(res.json.successUrl).toBe(`https://shop.example.com/ok?s=${id}`);
    expect(res.json.cancelUrl).toBe(`https://shop.example.com/cancel?s=${id}&x=${id}&y={checkout_session_id}`);
    const again = await t.call('GET', `/v1/checkout-sessions/${id}`, { key: sk() });
    expect(again.json.successUrl).toBe(`https://shop.example.com/ok?s=${id}`);
  });

  it('stores payer details and returns them on retrieval (rule 3)', async () => {
    const payer = { customerEmail: 'maria@example.com', customerFirstName: 'Maria', customerLastName: 'Lopez', customerPhone: '+15555550142' };
    const res = await create(payer);
    expect(res.json.customer).toEqual({ email: 'maria@example.com', name: 'Maria Lopez' });
    const got = await t.call('GET', `/v1/checkout-sessions/${res.json.id}`, { key: sk() });
    expect(got.json).toMatchObject(payer);
  });

  it('an amount below 1.00 answers amount_too_small with param amount', async () => {
    const res = await create({ amount: 0.99 });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'amount_too_small', param: 'amount' });
  });

  it('a currency that is not ISO 4217 (or not money, as XAU) answers 400 parameter_invalid naming currency; any case of a real one works', async () => {
    for (const currency of ['XYZ', 'xau']) {
      const res = await create({ currency });
      expect(res.status, currency).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'currency' });
    }
    const jpy = await create({ currency: 'jpy', amount: 500 });
    expect(jpy.status).toBe(201);
    expect(jpy.json).toMatchObject({ currency: 'JPY', amount: 500 });
    const plan = await t.call('POST', '/v1/plans', { key: sk(), body: { productId: 1, name: 'x', amount: 5, currency: 'ABC', interval: 'month' } });
    expect(plan.status).toBe(400);
    expect(plan.json).toMatchObject({ success: false, errorCode: 'parameter_invalid', data: { param: 'currency' } });
    const invoice = await t.call('POST', '/v1/invoices', {
      key: sk(),
      body: { currency: 'QQQ', customer: { email: 'a@b.co' }, lineItems: [{ name: 'a', quantity: 1, unitAmount: 5 }] },
    });
    expect(invoice.json.error).toMatchObject({ code: 'parameter_invalid', param: 'currency' });
  });

  it('enforces the field length limits: 100 for email and names, 50 for the phone', async () => {
    for (const [field, value] of [
      ['customerFirstName', 'x'.repeat(101)],
      ['customerLastName', 'x'.repeat(101)],
      ['customerPhone', '1'.repeat(51)],
      ['customerEmail', `${'a'.repeat(95)}@b.com`],
    ] as const) {
      const res = await create({ [field]: value });
      expect(res.status, field).toBe(400);
      expect(res.json.error.param, field).toBe(field);
    }
  });

  it('expiresAt must be between 10 minutes and 24 hours from now', async () => {
    for (const bad of [minutes(9), minutes(24 * 60 + 1), minutes(-5)]) {
      const res = await create({ expiresAt: bad });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'expiresAt' });
    }
    const ok = await create({ expiresAt: minutes(11) });
    expect(ok.status).toBe(201);
    expect(ok.json.expiresAt).toBe(new Date(minutes(11)).toISOString());
  });

  it('notificationUrl must be https and a public host; private, loopback, link-local, ULA and metadata addresses are refused', async () => {
    for (const url of [
      'http://hooks.example.com/till',
      'https://localhost/hook',
      'https://localhost./hook',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://192.168.1.10/hook',
      'https://172.20.0.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[fd12:3456::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
    ]) {
      const res = await create({ notificationUrl: url });
      expect(res.status, url).toBe(400);
      expect(res.json.error.param, url).toBe('notificationUrl');
    }
    expect((await create({ notificationUrl: `https://hooks.example.com/${'x'.repeat(2030)}` })).status).toBe(400);
  });

  it('without notificationSecret, one is generated and shown only in the create answer (rule 5)', async () => {
    const res = await create({ notificationUrl: 'https://hooks.example.com/till' });
    expect(res.json.notificationSecret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const got = await t.call('GET', `/v1/checkout-sessions/${res.json.id}`, { key: sk() });
    expect(got.text).not.toContain(res.json.notificationSecret);
    const given = await create({ notificationUrl: 'https://hooks.example.com/till', notificationSecret: 'my-own-secret-0123456789' });
    expect(given.json.notificationSecret).toBeUndefined();
  });

  it('notificationSecret must have 16 to 200 characters', async () => {
    expect((await create({ notificationUrl: 'https://hooks.example.com/t', notificationSecret: 'short' })).json.error.param).toBe('notificationSecret');
    expect((await create({ notificationUrl: 'https://hooks.example.com/t', notificationSecret: 'x'.repeat(201) })).status).toBe(400);
  });

  it('notifyCustomer and sendReceipt fall back to the merchant settings, and retrieval reports the resolved value', async () => {
    const defaults = await create({});
    const got = await t.call('GET', `/v1/checkout-sessions/${defaults.json.id}`, { key: sk() });
    expect(got.json).toMatchObject({ notifyCustomer: false, sendReceipt: true });
    const explicit = await create({ notifyCustomer: true, sendReceipt: false });
    const got2 = await t.call('GET', `/v1/checkout-sessions/${explicit.json.id}`, { key: sk() });
    expect(got2.json).toMatchObject({ notifyCustomer: true, sendReceipt: false });
    await t.database.db
      .updateTable('merchants')
      .set({ message_checkout_customers: true, send_checkout_receipts: false })
      .where('id', '=', t.merchantB.merchantId)
      .execute();
    const other = await create({}, t.merchantB.keys.test.secret);
    const got3 = await t.call('GET', `/v1/checkout-sessions/${other.json.id}`, { key: t.merchantB.keys.test.secret });
    expect(got3.json).toMatchObject({ notifyCustomer: true, sendReceipt: false });
  });

  it('line items must add up to the amount', async () => {
    const res = await create({ amount: 30, lineItems: [{ name: 'Beans', quantity: 2, unitAmount: 12.5 }] });
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'lineItems' });
    const ok = await create({ amount: 25, lineItems: [{ name: 'Beans', quantity: 2, unitAmount: 12.5 }] });
    expect(ok.status).toBe(201);
  });

  it('paying an invoice: both invoice fields, or an invoice with lineItems, is a validation_error (rule 6)', async () => {
    expect((await create({ invoiceId: 1, invoiceReference: 'REF-1' })).json.error.code).toBe('validation_error');
    expect((await create({ invoiceId: 1, lineItems: [{ name: 'x', quantity: 1, unitAmount: 49.99 }] })).json.error.code).toBe('validation_error');
  });

  it("paying an invoice that is not the caller's answers 404 invoice_not_found (rule 6)", async () => {
    const res = await create({ invoiceReference: 'NOT-MINE' });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('invoice_not_found');
  });

  it("a subscription session with another merchant's plan or client is refused with validation_error (rule 7)", async () => {
    const product = await t.call('POST', '/v1/products', { key: t.merchantB.keys.test.secret, body: { name: 'B' } });
    const plan = await t.call('POST', '/v1/plans', {
      key: t.merchantB.keys.test.secret,
      body: { productId: product.json.id, name: 'B', amount: 9, currency: 'USD', interval: 'month' },
    });
    const mine = await t.call('POST', '/v1/customers', { key: sk(), body: { email: 'sub@example.com' } });
    const res = await create({ paymentType: 'subscription', subscriptionPlanId: plan.json.data.id, clientId: mine.json.data.id });
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'subscriptionPlanId' });
    const missing = await create({ paymentType: 'subscription', clientId: mine.json.data.id });
    expect(missing.json.error).toMatchObject({ code: 'validation_error', param: 'subscriptionPlanId' });
  });

  it('a hold session needs a card option that can hold a card', async () => {
    const merchant = await t.newMerchant('No holds');
    await t.database.db
      .updateTable('merchants')
      .set({
        payment_options: JSON.stringify([
          { id: 3, code: 'wallet_qr', name: 'Wallet QR', method: 'GatewayWallet', canHold: false, holdDays: null, enabled: true },
        ]),
      })
      .where('id', '=', merchant.merchantId)
      .execute();
    const refused = await create({ captureMethod: 'manual' }, merchant.keys.test.secret);
    expect(refused.json.error).toMatchObject({ code: 'validation_error', param: 'captureMethod' });
    expect((await create({ captureMethod: 'manual' })).status).toBe(201);
  });
});
