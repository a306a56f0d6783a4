// What the recipes pay first: paid sessions and holds, disputes, an arrived payout, invoices, a payment
// waiting for its money, QR codes, cards on file, their OTP, and Click to Pay.
import type { ConformanceContext } from '../types.js';
import { created, fixtureSession, publishable } from './fixtures.js';

export const TEST_CARD = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** Tokenizes the test card on `session` and confirms the session with it (publishable key and client secret); a confirm that is not 200 fails the setup. */
async function payWithTestCard(ctx: ConformanceContext, key: string, session: { id: string; clientSecret: string }) {
  const pm = await ctx.request('checkout', 'tokenizeCard', {
    method: 'POST',
    path: `/v1/checkout-sessions/${session.id}/tokenize`,
    key,
    clientSecret: session.clientSecret,
    body: TEST_CARD,
  });
  const confirmed = await ctx.request('checkout', 'confirmCheckoutSession', {
    method: 'POST',
    path: `/v1/checkout-sessions/${session.id}/confirm`,
    key,
    clientSecret: session.clientSecret,
    body: { paymentMethodId: pm.json?.id },
  });
  if (confirmed.status !== 200) throw new Error(`setup: confirm answered ${confirmed.status}: ${confirmed.text.slice(0, 200)}`);
  return { pm, confirmed };
}

/** A confirmed session (a paid card payment, or a hold with captureMethod manual); needs the publishable key. */
export async function fixturePaid(ctx: ConformanceContext, captureMethod: 'automatic' | 'manual'): Promise<{ sessionId: string; paymentId: number }> {
  const key = publishable(ctx);
  const s = await created<{ id: string; clientSecret: string }>(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    { amount: 30, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', captureMethod, metadata: { conformanceRun: ctx.runId } },
    ctx.options.secretKey,
  );
  const { confirmed } = await payWithTestCard(ctx, key, s);
  return { sessionId: s.id, paymentId: confirmed.json.paymentResult.id };
}
export const fixtureHold = async (ctx: ConformanceContext) => (await fixturePaid(ctx, 'manual')).paymentId;
/** An open dispute on a paid card payment (the dispute test helper). */
export const fixtureDispute = async (ctx: ConformanceContext): Promise<string> =>
  (
    await created<{ id: string }>(
      ctx,
      'openTestDispute',
      `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/dispute`,
      {},
      ctx.options.secretKey,
    )
  ).id;

/** The path of a payout that arrived, on the run's sandbox merchant, and that merchant's key. */
export async function fixtureArrivedPayout(ctx: ConformanceContext): Promise<{ path: string; key: string }> {
  const sandbox = await ctx.sandboxMerchant();
  // Without a sandbox merchant (a mock), the contract's example id.
  if (!('ctx' in sandbox)) return { path: '/v1/test-helpers/payouts/po_5Hd8Kq2Wm7Zx3Nc9/fail', key: ctx.options.secretKey };
  const s = sandbox.ctx;
  const key = s.options.secretKey;
  await created(s, 'settleTestPayment', `/v1/test-helpers/payments/${(await fixturePaid(s, 'automatic')).paymentId}/settle`, undefined, key);
  await created(s, 'advanceTestClock', '/v1/test-helpers/clock/advance', { seconds: 2 * 86_400 + 60 }, key);
  const events = await s.request('checkout', 'listEvents', { method: 'GET', path: '/v1/events', query: { type: 'payout.completed', limit: 1 }, key });
  const id = events.json?.data?.[0]?.data?.object?.id;
  if (typeof id !== 'string') throw new Error(`setup: no payout arrived: ${events.status} ${events.text.slice(0, 200)}`);
  return { path: `/v1/test-helpers/payouts/${id}/fail`, key };
}

/** A payable invoice of the merchant behind `key`, addressed to payer details. */
export async function fixtureInvoice(
  ctx: ConformanceContext,
  key = ctx.options.secretKey,
): Promise<{ id: number; reference: string; identifier: string; amountDue: number; currency: string; status: string }> {
  return created(
    ctx,
    'createInvoice',
    '/v1/invoices',
    {
      customer: { email: `conformance+${ctx.runId}@example.com`, firstName: 'Conformance' },
      currency: 'USD',
      lineItems: [{ name: `Conformance ${ctx.runId}`, quantity: 2, unitAmount: 12.5 }],
      metadata: { conformanceRun: ctx.runId },
    },
    key,
  );
}

/** A card as the Commerce interface takes it (`MM/YY`, `cvv`). */
export const COMMERCE_CARD = {
  cardNumber: '4242424242424242',
  expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`,
  cvv: '123',
};

/** A wallet payment of an invoice waiting for the payer (Commerce `payinvoice` with the wallet option, 3 by default). */
export async function fixtureWaitingPayment(ctx: ConformanceContext): Promise<number> {
  const invoice = await fixtureInvoice(ctx);
  const res = await ctx.request('commerce', 'payInvoice', {
    method: 'POST',
    path: '/api/payment/payinvoice',
    apiKey: ctx.options.apiKey ?? ctx.options.secretKey,
    body: { invoiceId: invoice.id, paymentOptionId: 3 },
  });
  if (res.status !== 200) throw new Error(`setup: payinvoice answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json.paymentId;
}

/** A session showing a wallet QR code (confirmed with `wallet:qr`); needs the publishable key. */
export async function fixtureQr(ctx: ConformanceContext): Promise<{ id: string; clientSecret: string }> {
  const key = publishable(ctx);
  const s = await fixtureSession(ctx);
  const confirmed = await ctx.request('checkout', 'confirmCheckoutSession', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/confirm`,
    key,
    clientSecret: s.clientSecret,
    body: { paymentMethodId: 'wallet:qr' },
  });
  if (confirmed.status !== 200) throw new Error(`setup: confirm with wallet:qr answered ${confirmed.status}: ${confirmed.text.slice(0, 200)}`);
  return s;
}

/** A card on file: a customer (with a phone, for the OTP) pays a session that allows saved cards. Then a new session of that customer. */
export async function fixtureSavedCard(
  ctx: ConformanceContext,
): Promise<{ session: { id: string; clientSecret: string }; paymentMethodId: string; phone: string }> {
  const key = publishable(ctx);
  const tag = `${ctx.runId}-${Math.random().toString(36).slice(2, 8)}`;
  const phone = `+1 415 555 ${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const customer = (
    await created<{ data: { id: number } }>(
      ctx,
      'createCustomer',
      '/v1/customers',
      { email: `conformance+${tag}@example.com`, name: 'Conformance Customer', phone, externalId: `conf-${tag}` },
      ctx.options.secretKey,
    )
  ).data;
  const body = {
    amount: 12.5,
    currency: 'USD',
    mode: 'embedded',
    paymentType: 'oneTime',
    clientId: customer.id,
    allowSavedCards: true,
    metadata: { conformanceRun: ctx.runId },
  };
  const first = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', body, ctx.options.secretKey);
  const { pm } = await payWithTestCard(ctx, key, first);
  const session = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', body, ctx.options.secretKey);
  return { session, paymentMethodId: pm.json.id, phone };
}

/** The newest one-time code sent to a phone, read from the test message outbox. */
export async function latestOtp(ctx: ConformanceContext, phone: string): Promise<string> {
  const res = await ctx.request('checkout', 'listTestMessages', {
    method: 'GET',
    path: '/v1/test-helpers/messages',
    key: ctx.options.secretKey,
    query: { to: phone, kind: 'otp', limit: 1 },
  });
  const code = /\b(\d{6})\b/.exec(res.json?.data?.[0]?.body ?? '')?.[1];
  if (!code) throw new Error(`setup: no one-time code for ${phone} in the test messages: ${res.status} ${res.text.slice(0, 200)}`);
  return code;
}

/** A session with click to pay enabled. */
export const fixtureClickToPaySession = (ctx: ConformanceContext) =>
  created<{ id: string; clientSecret: string }>(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', enableClickToPay: true, metadata: { conformanceRun: ctx.runId } },
    ctx.options.secretKey,
  );

/** Till's sandbox click-to-pay directory: an enrolled email and the validation data it accepts. */
export const SANDBOX_SRC = { email: 'maria.lopez@example.com', validationData: '123456' };
