// The creation rules of a checkout session (checkout-billing-api.md, "Checkout session: fields
// accepted at creation" and "Creation rules"), called on the service itself (createSession) on a
// database of its own, so a failure names the rule. The HTTP tests of the same rules: sessions.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { createSession, type SessionToCreate } from '../../server/domain/checkout/session-create.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { AppError } from '../../server/shared/errors.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock(new Date('2030-03-01T12:00:00.000Z'));
const settings = { publicBaseUrl: 'https://pay.till.example', allowLoopbackWebhooks: false };
const MINUTE = 60_000;
const fromNow = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

const database = useTestDatabase('session-rules');
let tenant: Tenant;
beforeAll(async () => {
  const { credentials } = await createMerchant(database.db, clock, { name: 'Session rules' });
  tenant = { merchantId: credentials.merchantId, livemode: false };
});

/** An embedded one-time session of 49.99 USD, `input` over that. */
const create = (input: Partial<SessionToCreate> = {}) =>
  createSession(database.db, clock, settings, tenant, { amount: '49.99', currency: 'USD', mode: 'embedded', paymentType: 'one_time', ...input });

/** The error the service refuses `input` with. */
async function refusal(input: Partial<SessionToCreate>) {
  const error: unknown = await create(input).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error, 'the service accepted it').toBeInstanceOf(AppError);
  const { code, param, status, message } = error as AppError;
  return { code, param, status, message };
}

describe('amount', () => {
  it('minimum 1.00 in the currency: below it fails with amount_too_small, param amount', async () => {
    for (const [amount, currency] of [
      ['0.99', 'USD'],
      ['0.5', 'EUR'],
      ['0', 'USD'],
    ] as const) {
      expect(await refusal({ amount, currency }), `${amount} ${currency}`).toMatchObject({ code: 'amount_too_small', param: 'amount', status: 400 });
    }
    expect((await refusal({ amount: '0.99', currency: 'EUR' })).message).toBe('amount must be at least 1.00 EUR.');
    expect(Number((await create({ amount: '1' })).session.amount)).toBe(1);
    expect(Number((await create({ amount: '1', currency: 'JPY' })).session.amount)).toBe(1);
  });

  it("is an amount in the currency's units: no more decimal places than it has (JPY 0, USD 2, KWD 3), else validation_error naming amount", async () => {
    for (const [amount, currency] of [
      ['500.5', 'JPY'],
      ['49.999', 'USD'],
      ['1.2345', 'KWD'],
    ] as const) {
      expect(await refusal({ amount, currency }), `${amount} ${currency}`).toMatchObject({ code: 'validation_error', param: 'amount' });
    }
    expect(Number((await create({ amount: '500', currency: 'JPY' })).session.amount)).toBe(500);
    expect(Number((await create({ amount: '1.234', currency: 'KWD' })).session.amount)).toBe(1.234);
  });

  it('a oneTime session needs amount and currency: parameter_missing naming the one left out', async () => {
    expect(await refusal({ amount: undefined })).toMatchObject({ code: 'parameter_missing', param: 'amount' });
    expect(await refusal({ currency: undefined })).toMatchObject({ code: 'parameter_missing', param: 'currency' });
  });

  it('line items must add up to the amount (validation_error naming lineItems)', async () => {
    expect(await refusal({ amount: '30', lineItems: [{ name: 'Beans', quantity: 2, unitAmount: 12.5 }] })).toMatchObject({
      code: 'validation_error',
      param: 'lineItems',
    });
    const { session } = await create({ amount: '25', lineItems: [{ name: 'Beans', quantity: 2, unitAmount: 12.5 }] });
    expect(session.line_items).toEqual([{ name: 'Beans', quantity: 2, unitAmount: 12.5 }]);
  });
});

describe('currency', () => {
  it('a currency code of ISO 4217 one can pay in, any case, kept in upper case; anything else (XYZ, the metal XAU) is parameter_invalid naming currency', async () => {
    for (const currency of ['XYZ', 'xau', 'US', 'usd1']) {
      expect(await refusal({ currency }), currency).toMatchObject({ code: 'parameter_invalid', param: 'currency' });
    }
    expect((await create({ currency: 'eur' })).session.currency).toBe('EUR');
    expect((await create({ currency: 'Jpy', amount: '500' })).session.currency).toBe('JPY');
  });
});

describe('mode and paymentType', () => {
  it('mode hosted gives the session its payment page URL and needs successUrl; embedded has no URL', async () => {
    expect(await refusal({ mode: 'hosted' })).toMatchObject({ code: 'parameter_missing', param: 'successUrl' });
    const hosted = (await create({ mode: 'hosted', successUrl: 'https://shop.example.com/thanks' })).session;
    expect(hosted.url).toBe(`${settings.publicBaseUrl}/pay/${hosted.id}`);
    expect((await create({ mode: 'embedded' })).session.url).toBeNull();
  });

  it('paymentType oneTime makes a one_time session; rule 7: a subscription session needs a subscriptionPlanId and a clientId (validation_error)', async () => {
    expect((await create()).session).toMatchObject({ payment_type: 'one_time', status: 'created', payment_status: 'unpaid' });
    expect(await refusal({ paymentType: 'subscription' })).toMatchObject({ code: 'validation_error', param: 'subscriptionPlanId' });
    expect(await refusal({ paymentType: 'subscription', subscriptionPlanId: 1 })).toMatchObject({ code: 'validation_error', param: 'clientId' });
  });

  it('rule 6: an existing invoice is paid only by a oneTime session, with one invoice field and no lineItems (validation_error)', async () => {
    expect(await refusal({ invoiceId: 1, invoiceReference: 'REF-1' })).toMatchObject({ code: 'validation_error', param: 'invoiceReference' });
    expect(await refusal({ invoiceId: 1, lineItems: [{ name: 'x', quantity: 1, unitAmount: 49.99 }] })).toMatchObject({
      code: 'validation_error',
      param: 'lineItems',
    });
    expect(await refusal({ invoiceId: 1, paymentType: 'subscription' })).toMatchObject({ code: 'validation_error', param: 'paymentType' });
    expect(await refusal({ invoiceReference: 'NOT-MINE' })).toMatchObject({ code: 'invoice_not_found', status: 404 });
  });

  it("clientId must be one of the caller's customers (validation_error naming clientId)", async () => {
    expect(await refusal({ clientId: 999_999_999 })).toMatchObject({ code: 'validation_error', param: 'clientId' });
  });

  it('a hold session (captureMethod manual) needs a card option that can hold a card (validation_error naming captureMethod)', async () => {
    expect((await create({ captureMethod: 'manual' })).session.capture_method).toBe('manual');
    const { credentials } = await createMerchant(database.db, clock, { name: 'No holds' });
    await database.db
      .updateTable('merchants')
      .set({
        payment_options: JSON.stringify([
          { id: 3, code: 'wallet_qr', name: 'Wallet QR', method: 'GatewayWallet', canHold: false, holdDays: null, enabled: true },
        ]),
      })
      .where('id', '=', credentials.merchantId)
      .execute();
    const noHolds = { merchantId: credentials.merchantId, livemode: false };
    const refused = await createSession(database.db, clock, settings, noHolds, {
      amount: '10',
      currency: 'USD',
      mode: 'embedded',
      paymentType: 'one_time',
      captureMethod: 'manual',
    }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'validation_error', param: 'captureMethod' });
  });
});

describe('expiry', () => {
  it('rule 1: without expiresAt a session can be paid for 30 minutes', async () => {
    const { session } = await create();
    expect(session.expires_at.getTime() - session.created_at.getTime()).toBe(30 * MINUTE);
    expect(session.created_at).toEqual(clock.now());
  });

  it('expiresAt is between 10 minutes and 24 hours from now, both included; otherwise validation_error naming expiresAt', async () => {
    for (const expiresAt of [fromNow(10 * MINUTE - 1), fromNow(24 * 60 * MINUTE + 1), fromNow(-5 * MINUTE), 'next tuesday']) {
      expect(await refusal({ expiresAt: new Date(expiresAt) }), expiresAt).toMatchObject({ code: 'validation_error', param: 'expiresAt' });
    }
    for (const ahead of [10 * MINUTE, 24 * 60 * MINUTE]) {
      expect((await create({ expiresAt: new Date(fromNow(ahead)) })).session.expires_at.toISOString()).toBe(fromNow(ahead));
    }
  });
});

describe('URLs and webhooks', () => {
  it('rule 2: {CHECKOUT_SESSION_ID} in successUrl and cancelUrl, as-is or percent-encoded, is replaced with the session id; the final URL is stored', async () => {
    const { session } = await create({
      successUrl: 'https://shop.example.com/ok?s={CHECKOUT_SESSION_ID}',
      cancelUrl: 'https://shop.example.com/cancel?s=%7BCHECKOUT_SESSION_ID%7D&x=%7bCHECKOUT_SESSION_ID%7d&y={checkout_session_id}',
    });
    expect(session.success_url).toBe(`https://shop.example.com/ok?s=${session.id}`);
    expect(session.cancel_url).toBe(`https://shop.example.com/cancel?s=${session.id}&x=${session.id}&y={checkout_session_id}`);
  });

  it('notificationUrl: https and a public host; otherwise parameter_invalid naming notificationUrl', async () => {
    for (const notificationUrl of [
      'http://93.184.215.14/hook',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/x',
      'https://[::1]/hook',
    ]) {
      expect(await refusal({ notificationUrl }), notificationUrl).toMatchObject({ code: 'parameter_invalid', param: 'notificationUrl' });
    }
    expect((await create({ notificationUrl: 'https://93.184.215.14/hook' })).session.notification_url).toBe('https://93.184.215.14/hook');
  });

  it('rule 5: without notificationSecret one is generated and given only in the create answer; a given one signs as sent', async () => {
    const generated = await create({ notificationUrl: 'https://93.184.215.14/hook' });
    expect(generated.generatedNotificationSecret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(generated.session.notification_secret).toBe(generated.generatedNotificationSecret);
    const given = await create({ notificationUrl: 'https://93.184.215.14/hook', notificationSecret: 'my-own-secret-0123456789' });
    expect(given.generatedNotificationSecret).toBeUndefined();
    expect(given.session.notification_secret).toBe('my-own-secret-0123456789');
  });
});

describe('payer details and metadata', () => {
  it('rule 3: payer details are optional and stored on the session', async () => {
    const { session } = await create({
      customerEmail: 'maria@example.com',
      customerFirstName: 'Maria',
      customerLastName: 'Lopez',
      customerPhone: '+15555550142',
    });
    expect(session).toMatchObject({
      customer_email: 'maria@example.com',
      customer_first_name: 'Maria',
      customer_last_name: 'Lopez',
      customer_phone: '+15555550142',
    });
    expect((await create()).session).toMatchObject({ customer_email: null, customer_first_name: null, customer_last_name: null, customer_phone: null });
  });

  it('metadata is a free key/value map, kept on the session as sent (none: an empty map)', async () => {
    expect((await create({ metadata: { orderId: '8841', channel: 'web' } })).session.metadata).toEqual({ orderId: '8841', channel: 'web' });
    expect((await create()).session.metadata).toEqual({});
  });
});
