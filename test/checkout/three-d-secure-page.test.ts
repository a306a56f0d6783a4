// The sandbox 3-D Secure page: what it shows and sends, and how it completes or fails a challenge,
// once. Named after the rules. Two answers racing: three-d-secure.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { cardDetails, CARDS, THREE_DS_RETURN_URL as RETURN_URL, threeDSecureKit } from '../support/checkout.js';
import { createTestSession, useTestServer } from '../support/server.js';
import { delivered } from '../support/events.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const { tokenize, confirm, retrieve, eventTypes, payments: paymentsOf, pagePath, getPage, formToken, answer, inChallenge } = threeDSecureKit(t);

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
        body: cardDetails(CARDS.threeDSecure),
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
    const payments = await paymentsOf(s);
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
    expect(await eventTypes(s)).toEqual(['payment.succeeded', 'checkout.session.completed']);
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
    expect(await paymentsOf(s)).toHaveLength(1);
    expect(await eventTypes(s)).toEqual(['payment.succeeded', 'checkout.session.completed']);
  });

  it('a hold session (captureMethod manual) authorizes instead: payment.authorized then checkout.session.completed, capturable', async () => {
    const { s, res, path } = await inChallenge({ captureMethod: 'manual' });
    expect((await answer(path, 'complete')).status).toBe(303);
    const paymentId = res.json.paymentResult.id;
    expect(await paymentsOf(s)).toMatchObject([{ id: paymentId, status: 'authorized', authorized_amount: '49.9900' }]);
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk() })).json).toMatchObject({
      status: 'completed',
      captureMethod: 'manual',
      paymentId,
      holdStatus: 'authorized',
      authorizedAmount: 49.99,
    });
    expect(await eventTypes(s)).toEqual(['payment.authorized', 'checkout.session.completed']);
    expect((await t.call('POST', `/v1/payments/${paymentId}/capture`, { key: sk(), body: {} })).json).toMatchObject({
      status: 'captured',
      capturedAmount: 49.99,
    });
  });

  it('Fail authentication fails the payment (payment.failed), redirects to the return URL, and the session is payable again', async () => {
    const { s, res, path } = await inChallenge();
    const failed = await answer(path, 'fail');
    expect(failed.status).toBe(303);
    expect(failed.headers.get('location')).toBe(RETURN_URL);
    expect(await paymentsOf(s)).toMatchObject([{ id: res.json.paymentResult.id, status: 'failed', failure_code: 'authentication_failed' }]);
    expect(await eventTypes(s)).toEqual(['payment.failed']);
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
    expect((await paymentsOf(s)).map((p) => p.status)).toEqual(['failed', 'succeeded']);
  });

  it('an existing invoice voided during the challenge is not paid: completing it fails the payment (invoice_not_payable) and redirects', async () => {
    const invoice = await t.call('POST', '/v1/invoices', {
      key: sk(),
      body: { customer: { email: 'ana@example.com' }, currency: 'USD', lineItems: [{ name: 'Consulting', quantity: 1, unitAmount: 80 }] },
    });
    expect(invoice.status, invoice.text).toBe(201);
    const s = await createTestSession(t, t.merchantA, false, { amount: undefined, currency: undefined, invoiceId: invoice.json.id });
    const res = await confirm(s, { paymentMethodId: await tokenize(s), returnUrl: RETURN_URL });
    expect(res.json.status).toBe('payment_pending');
    expect((await t.call('POST', `/v1/invoices/${invoice.json.id}/void`, { key: sk() })).json.status).toBe('cancelled');
    const done = await answer(pagePath(res.json.nextAction.url), 'complete');
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(RETURN_URL);
    expect(await paymentsOf(s)).toMatchObject([{ status: 'failed', failure_code: 'invoice_not_payable' }]);
    expect((await t.database.db.selectFrom('invoices').select('status').where('id', '=', invoice.json.id).executeTakeFirstOrThrow()).status).toBe('cancelled');
    expect(await eventTypes(s)).toEqual(['payment.failed']);
  });
});
