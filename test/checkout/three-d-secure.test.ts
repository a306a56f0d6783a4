// 3-D Secure on the sandbox processor: the test card 4000000000003220 asks for a challenge; the
// /3ds page completes or fails it once; cancel and expiry while it is open. Named after the rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { loadConfig } from '../../server/config.js';
import { expireDueSessions } from '../../server/domain/checkout/session.service.js';
import { createTestSession, startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { delivered } from '../support/events.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const clock = new ManualClock(new Date());
let t: TestServer;
let pk: string;
let sk: string;
beforeAll(async () => {
  t = await startTestServer({ clock });
  pk = t.merchantA.keys.test.publishable;
  sk = t.merchantA.keys.test.secret;
});
afterAll(async () => {
  await t?.close();
});

const THREE_DS_CARD = '4000000000003220';
const RETURN_URL = 'https://shop.example.com/checkout/3ds-return?order=8841';
const publicBaseUrl = loadConfig({ NODE_ENV: 'test' }).publicBaseUrl;
const card = (cardNumber: string) => ({ cardNumber, expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' });
type Session = { id: string; clientSecret: string };

const session = (body: Record<string, unknown> = {}, merchant = t.merchantA) => createTestSession(t, merchant, false, { amount: 49.99, ...body });
const tokenize = async (s: Session, number = THREE_DS_CARD, key = pk) =>
  (await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key, clientSecret: s.clientSecret, body: card(number) })).json.id as string;
const confirm = (s: Session, body: Record<string, unknown>, key = pk) =>
  t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key, clientSecret: s.clientSecret, body });
const retrieve = async (s: Session) => (await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: sk })).json;
const eventTypes = async (sessionId: string) =>
  (await t.database.db.selectFrom('events').select('type').where('session_id', '=', sessionId).orderBy('seq').execute()).map((e) => e.type);
const paymentsOf = (sessionId: string) => t.database.db.selectFrom('payments').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();

/** The challenge page's path on the test server (the answer's URL carries the configured public base URL). */
const pagePath = (url: string) => new URL(url).pathname;
const getPage = (path: string) => fetch(`${t.url}${path}`, { redirect: 'manual' });
const formToken = (html: string) => /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
async function answer(path: string, choice: 'complete' | 'fail', token?: string) {
  const form = new URLSearchParams({ answer: choice, token: token ?? formToken(await (await getPage(path)).text()) });
  return fetch(`${t.url}${path}`, { method: 'POST', body: form, redirect: 'manual' });
}

/** A session confirmed with the 3-D Secure card: its challenge is open. */
async function inChallenge(body: Record<string, unknown> = {}, confirmBody: Record<string, unknown> = { returnUrl: RETURN_URL }) {
  const s = await session(body);
  const res = await confirm(s, { paymentMethodId: await tokenize(s), ...confirmBody });
  expect(res.status).toBe(200);
  return { s, res, path: pagePath(res.json.nextAction.url) };
}

describe('confirm with the 3-D Secure test card', () => {
  it("answers payment_pending, unpaid, requires_action and a redirect_to_3ds nextAction to this server's sandbox page", async () => {
    const { s, res } = await inChallenge();
    expect(res.json).toMatchObject({
      id: s.id,
      object: 'checkout_session',
      status: 'payment_pending',
      paymentStatus: 'unpaid',
      paymentResult: { status: 'requires_action', amount: 49.99, currency: 'USD' },
      nextAction: { type: 'redirect_to_3ds' },
    });
    expect(res.json.nextAction.url).toMatch(new RegExp(`^${publicBaseUrl.replace(/[.]/g, '\\.')}/3ds/3ds_[A-Za-z0-9]{40}$`));
  });

  it('keeps one requires_action payment, the challenge with the returnUrl, and the session payment_pending; nothing is charged or sent yet', async () => {
    const { s, res } = await inChallenge();
    const payments = await paymentsOf(s.id);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ id: res.json.paymentResult.id, status: 'requires_action', invoice_id: null, captured_amount: null });
    const challenge = await t.database.db.selectFrom('three_ds_challenges').selectAll().where('session_id', '=', s.id).executeTakeFirstOrThrow();
    expect(challenge).toMatchObject({ status: 'open', return_url: RETURN_URL, payment_id: payments[0]!.id });
    expect((await retrieve(s)).status).toBe('payment_pending');
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: pk, clientSecret: s.clientSecret })).json).toEqual({
      status: 'payment_pending',
    });
    expect(
      await t.database.db
        .selectFrom('ledger_entries')
        .select('id')
        .where('account', 'in', MERCHANT_BALANCES)
        .where('payment_id', '=', payments[0]!.id)
        .execute(),
    ).toHaveLength(0);
    expect(await eventTypes(s.id)).toEqual([]);
  });

  it('the return URL falls back to the successUrl, then (hosted) the payment page, then a plain result page', async () => {
    const withSuccess = await inChallenge({ successUrl: 'https://shop.example.com/thanks/{CHECKOUT_SESSION_ID}' }, {});
    const hosted = await inChallenge({ mode: 'hosted', successUrl: 'https://shop.example.com/thanks' }, {});
    const bare = await inChallenge({}, {});
    const returnUrl = async (id: string) =>
      (await t.database.db.selectFrom('three_ds_challenges').select('return_url').where('session_id', '=', id).executeTakeFirstOrThrow()).return_url;
    expect(await returnUrl(withSuccess.s.id)).toBe(`https://shop.example.com/thanks/${withSuccess.s.id}`);
    expect(await returnUrl(hosted.s.id)).toBe(`${publicBaseUrl}/pay/${hosted.s.id}`);
    expect(await returnUrl(bare.s.id)).toBeNull();
    const done = await answer(bare.path, 'complete');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Authentication complete.');
    expect((await retrieve(bare.s)).status).toBe('completed');
  });

  it('a returnUrl that is not http or https is refused with 400 naming returnUrl', async () => {
    const s = await session();
    const res = await confirm(s, { paymentMethodId: await tokenize(s), returnUrl: 'javascript:alert(1)' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'returnUrl' });
    expect(await paymentsOf(s.id)).toHaveLength(0);
  });

  it('a second confirm while the challenge is open replaces it: the waiting payment fails, its page answers 410, and one payment is made', async () => {
    const { s, res: first, path } = await inChallenge();
    const second = await confirm(s, { paymentMethodId: await tokenize(s, '4242424242424242') });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded' }, nextAction: null });
    const payments = await paymentsOf(s.id);
    expect(payments.map((p) => [p.id, p.status, p.failure_code])).toEqual([
      [first.json.paymentResult.id, 'failed', 'authentication_abandoned'],
      [second.json.paymentResult.id, 'succeeded', null],
    ]);
    expect((await getPage(path)).status).toBe(410);
    expect((await answer(path, 'complete', 'x')).status).toBe(410);
    expect(await eventTypes(s.id)).toEqual(['payment.failed', 'payment.succeeded', 'checkout.session.completed']);
  });

  it('a second confirm with the 3-D Secure card opens a new challenge and closes the first', async () => {
    const { s, path: firstPath } = await inChallenge();
    const again = await confirm(s, { paymentMethodId: await tokenize(s), returnUrl: RETURN_URL });
    expect(again.json).toMatchObject({ status: 'payment_pending', paymentResult: { status: 'requires_action' } });
    const secondPath = pagePath(again.json.nextAction.url);
    expect(secondPath).not.toBe(firstPath);
    expect((await getPage(firstPath)).status).toBe(410);
    expect((await getPage(secondPath)).status).toBe(200);
    expect((await paymentsOf(s.id)).map((p) => p.status)).toEqual(['failed', 'requires_action']);
  });

  it('a payment in 3-D Secure is not refundable yet (400 payment_not_refundable, not_paid)', async () => {
    const { s } = await inChallenge();
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk, body: {} });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, errorCode: 'payment_not_refundable', data: { reason: 'not_paid' } });
  });
});

describe('the sandbox 3-D Secure page', () => {
  it('shows the merchant, amount, currency, card brand and last4 and two buttons, without an API key', async () => {
    const { s, path } = await inChallenge({ amount: 1234.5, currency: 'EUR' });
    const page = await getPage(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain((await retrieve(s)).merchantName);
    expect(html).toContain('1234.50 EUR');
    expect(html).toContain('Visa •••• 3220');
    expect(html).toContain('Complete authentication');
    expect(html).toContain('Fail authentication');
    expect(html).toMatch(/<form method="post"/);
    expect(html).not.toMatch(/<script/i);
  });

  it('sends security headers: framable (the embedded form shows it in its frame), a CSP without script, no referrer, no caching', async () => {
    const { path } = await inChallenge();
    const page = await getPage(path);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('frame-ancestors *');
    expect(csp).toContain("form-action 'self' https://shop.example.com");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('escapes everything it shows (a merchant name with markup appears as text)', async () => {
    const evil = await t.newMerchant('<img src=x onerror=alert(1)> & "Co"');
    const s = await createTestSession(t, evil, false, { amount: 10 });
    const pm = (
      await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
        key: evil.keys.test.publishable,
        clientSecret: s.clientSecret,
        body: card(THREE_DS_CARD),
      })
    ).json.id;
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, {
      key: evil.keys.test.publishable,
      clientSecret: s.clientSecret,
      body: { paymentMethodId: pm },
    });
    const html = await (await getPage(pagePath(res.json.nextAction.url))).text();
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62; &#38; &#34;Co&#34;');
  });

  it('an unknown or malformed challenge answers a plain 404 page, never a stack or JSON', async () => {
    for (const path of ['/3ds/3ds_' + 'A'.repeat(40), '/3ds/nope', '/3ds/%3Cscript%3E', '/3ds/3ds_x/extra']) {
      const res = await getPage(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('Not found');
      expect(html).not.toMatch(/at .*\.ts|Error:|<script/);
    }
    expect((await answer('/3ds/3ds_' + 'B'.repeat(40), 'complete', 'x')).status).toBe(404);
  });

  it('a form without a valid answer or with another token answers 400 and leaves the challenge open', async () => {
    const { s, path } = await inChallenge();
    expect((await answer(path, 'complete', 'forged-token')).status).toBe(400);
    const odd = await fetch(`${t.url}${path}`, { method: 'POST', body: new URLSearchParams({ answer: 'maybe', token: 'x' }), redirect: 'manual' });
    expect(odd.status).toBe(400);
    const huge = await fetch(`${t.url}${path}`, {
      method: 'POST',
      body: new URLSearchParams({ answer: 'complete', token: 'x'.repeat(10_000) }),
      redirect: 'manual',
    });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await huge.text()).not.toMatch(/at .*\.(ts|js)|Error:/);
    expect((await retrieve(s)).status).toBe('payment_pending');
    expect((await getPage(path)).status).toBe(200);
  });

  it('Complete authentication completes the session like a confirm: the waiting payment succeeds, invoice paid, ledger, payment.succeeded then checkout.session.completed, and 303 to the return URL', async () => {
    const { s, res, path } = await inChallenge({ customerEmail: 'maria@example.com' });
    const done = await answer(path, 'complete');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(RETURN_URL);
    const payments = await paymentsOf(s.id);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ id: res.json.paymentResult.id, status: 'succeeded', captured_amount: '49.9900', fee: '1.7500' });
    const got = await retrieve(s);
    expect(got).toMatchObject({ status: 'completed', refund: { refundable: true } });
    const invoice = await t.database.db.selectFrom('invoices').selectAll().where('id', '=', payments[0]!.invoice_id!).executeTakeFirstOrThrow();
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: '49.9900', payer_email: 'maria@example.com' });
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select(['type', 'amount'])
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', payments[0]!.id)
      .orderBy('id')
      .execute();
    expect(ledger).toEqual([
      { type: 'payment', amount: '49.9900' },
      { type: 'fee', amount: '-1.7500' },
    ]);
    expect(await eventTypes(s.id)).toEqual(['payment.succeeded', 'checkout.session.completed']);
  });

  it('the challenge is single-use: answering again, or opening the page again, answers 410 and changes nothing', async () => {
    const { s, path } = await inChallenge();
    const html = await (await getPage(path)).text();
    expect((await answer(path, 'complete', formToken(html))).status).toBe(303);
    const replay = await answer(path, 'complete', formToken(html));
    expect(replay.status).toBe(410);
    expect(await replay.text()).toContain('already completed');
    expect((await answer(path, 'fail', formToken(html))).status).toBe(410);
    expect((await getPage(path)).status).toBe(410);
    expect(await paymentsOf(s.id)).toHaveLength(1);
    expect(await eventTypes(s.id)).toEqual(['payment.succeeded', 'checkout.session.completed']);
  });

  it('a hold session (captureMethod manual) authorizes instead: payment.authorized then checkout.session.completed, capturable', async () => {
    const { s, res, path } = await inChallenge({ captureMethod: 'manual' });
    expect((await answer(path, 'complete')).status).toBe(303);
    const paymentId = res.json.paymentResult.id;
    expect(await paymentsOf(s.id)).toMatchObject([{ id: paymentId, status: 'authorized', authorized_amount: '49.9900' }]);
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk })).json).toMatchObject({
      status: 'completed',
      captureMethod: 'manual',
      paymentId,
      holdStatus: 'authorized',
      authorizedAmount: 49.99,
    });
    expect(await eventTypes(s.id)).toEqual(['payment.authorized', 'checkout.session.completed']);
    expect((await t.call('POST', `/v1/payments/${paymentId}/capture`, { key: sk, body: {} })).json).toMatchObject({
      status: 'captured',
      capturedAmount: 49.99,
    });
  });

  it('Fail authentication fails the payment (payment.failed), redirects to the return URL, and the session is payable again', async () => {
    const { s, res, path } = await inChallenge();
    const failed = await answer(path, 'fail');
    expect(failed.status).toBe(303);
    expect(failed.headers.get('location')).toBe(RETURN_URL);
    expect(await paymentsOf(s.id)).toMatchObject([{ id: res.json.paymentResult.id, status: 'failed', failure_code: 'authentication_failed' }]);
    expect(await eventTypes(s.id)).toEqual(['payment.failed']);
    const event = delivered(await t.database.db.selectFrom('events').select('data').where('session_id', '=', s.id).executeTakeFirstOrThrow());
    expect(event.data).toMatchObject({
      object: 'payment',
      status: 'Failed',
      failureCode: 'authentication_failed',
      paymentMethod: { type: 'card', brand: 'visa', last4: '3220' },
    });
    expect(await retrieve(s)).toMatchObject({ status: 'created', refund: { reason: 'no_payment' } });
    const paid = await confirm(s, { paymentMethodId: await tokenize(s, '4242424242424242') });
    expect(paid.json).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    expect((await paymentsOf(s.id)).map((p) => p.status)).toEqual(['failed', 'succeeded']);
  });

  it('an existing invoice voided during the challenge is not paid: completing it fails the payment (invoice_not_payable) and redirects', async () => {
    const invoice = await t.call('POST', '/v1/invoices', {
      key: sk,
      body: { customer: { email: 'ana@example.com' }, currency: 'USD', lineItems: [{ name: 'Consulting', quantity: 1, unitAmount: 80 }] },
    });
    expect(invoice.status, invoice.text).toBe(201);
    const s = await createTestSession(t, t.merchantA, false, { amount: undefined, currency: undefined, invoiceId: invoice.json.id });
    const res = await confirm(s, { paymentMethodId: await tokenize(s), returnUrl: RETURN_URL });
    expect(res.json.status).toBe('payment_pending');
    expect((await t.call('POST', `/v1/invoices/${invoice.json.id}/void`, { key: sk })).json.status).toBe('cancelled');
    const done = await answer(pagePath(res.json.nextAction.url), 'complete');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(RETURN_URL);
    expect(await paymentsOf(s.id)).toMatchObject([{ status: 'failed', failure_code: 'invoice_not_payable' }]);
    expect((await t.database.db.selectFrom('invoices').select('status').where('id', '=', invoice.json.id).executeTakeFirstOrThrow()).status).toBe('cancelled');
    expect(await eventTypes(s.id)).toEqual(['payment.failed']);
  });

  it.skipIf(!usingPostgres)('two answers racing on one challenge: exactly one goes through, the other answers 410', async () => {
    const { s, path } = await inChallenge();
    const token = formToken(await (await getPage(path)).text());
    const results = await Promise.all([answer(path, 'complete', token), answer(path, 'complete', token), answer(path, 'fail', token)]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 410, 410]);
    const payments = await paymentsOf(s.id);
    expect(payments).toHaveLength(1);
    expect(['succeeded', 'failed']).toContain(payments[0]!.status);
  });

  it.skipIf(!usingPostgres)('a confirm racing the challenge answer never leaves two live payments', async () => {
    const { s, path } = await inChallenge();
    const token = formToken(await (await getPage(path)).text());
    const pm = await tokenize(s, '4242424242424242');
    await Promise.all([answer(path, 'complete', token), confirm(s, { paymentMethodId: pm })]);
    const live = (await paymentsOf(s.id)).filter((p) => p.status !== 'failed');
    expect(live).toHaveLength(1);
    expect(live[0]!.status).toBe('succeeded');
    expect((await retrieve(s)).status).toBe('completed');
  });
});

describe('cancel and expiry during 3-D Secure', () => {
  it('cancel answers 204 and the session reads cancelled, but the open challenge may still complete: the payment is taken and the session reads completed (refund it)', async () => {
    const { s, res, path } = await inChallenge();
    const otherCard = await tokenize(s, '4242424242424242');
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk })).status).toBe(204);
    expect((await retrieve(s)).status).toBe('cancelled');
    expect((await confirm(s, { paymentMethodId: otherCard })).json.error).toMatchObject({ code: 'session_not_payable' });
    expect((await getPage(path)).status).toBe(200);
    expect((await answer(path, 'complete')).status).toBe(303);
    const got = await retrieve(s);
    expect(got).toMatchObject({ status: 'completed', refund: { refundable: true } });
    expect(await paymentsOf(s.id)).toMatchObject([{ id: res.json.paymentResult.id, status: 'succeeded' }]);
    expect(await eventTypes(s.id)).toEqual(['checkout.session.cancelled', 'payment.succeeded', 'checkout.session.completed']);
    const refund = await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk, body: { reason: 'cancelled during 3-D Secure' } });
    expect(refund.json).toMatchObject({ status: 'refunded', refundAmount: 49.99 });
  });

  it('cancel then Fail authentication: the payment fails and the session stays cancelled', async () => {
    const { s, path } = await inChallenge();
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk });
    expect((await answer(path, 'fail')).status).toBe(303);
    expect((await retrieve(s)).status).toBe('cancelled');
    expect((await paymentsOf(s.id)).map((p) => p.status)).toEqual(['failed']);
  });

  it('a session that expires while the challenge is open cannot be paid: the page answers 410, the payment fails, payment.failed then checkout.session.expired', async () => {
    const { s, path } = await inChallenge();
    const html = await (await getPage(path)).text();
    clock.advance(31 * 60);
    try {
      const late = await answer(path, 'complete', formToken(html));
      expect(late.status).toBe(410);
      expect(await late.text()).toContain('expired');
      expect((await retrieve(s)).status).toBe('expired');
      expect(await paymentsOf(s.id)).toMatchObject([{ status: 'failed', failure_code: 'authentication_expired' }]);
      expect(await eventTypes(s.id)).toEqual(['payment.failed', 'checkout.session.expired']);
    } finally {
      clock.advance(-31 * 60);
    }
  });

  it('the expiry job closes an open challenge with its session', async () => {
    const { s, path } = await inChallenge();
    clock.advance(31 * 60);
    try {
      await expireDueSessions(t.database.db, clock);
      expect((await retrieve(s)).status).toBe('expired');
      expect((await paymentsOf(s.id)).map((p) => p.status)).toEqual(['failed']);
      expect((await getPage(path)).status).toBe(410);
      expect(await eventTypes(s.id)).toEqual(['payment.failed', 'checkout.session.expired']);
    } finally {
      clock.advance(-31 * 60);
    }
  });

  it("a cancelled session's challenge ends at the session's expiry time: the page answers 410 and the payment fails", async () => {
    const { s, path } = await inChallenge();
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk });
    clock.advance(31 * 60);
    try {
      expect((await getPage(path)).status).toBe(410);
      expect((await retrieve(s)).status).toBe('cancelled');
      expect(await paymentsOf(s.id)).toMatchObject([{ status: 'failed', failure_code: 'authentication_expired' }]);
    } finally {
      clock.advance(-31 * 60);
    }
  });
});
