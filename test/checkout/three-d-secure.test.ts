// 3-D Secure on the sandbox processor: the test card 4000000000003220 asks for a challenge, and
// what confirm and cancel and expiry do while it is open. Named after the rules. The challenge
// page: three-d-secure-page.test.ts; races: three-d-secure.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { loadConfig } from '../../server/config.js';
import { expireDueSessions } from '../../server/domain/checkout/session.service.js';
import { THREE_DS_RETURN_URL as RETURN_URL, threeDSecureKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const pk = () => t.merchantA.keys.test.publishable;
const sk = () => t.merchantA.keys.test.secret;
const publicBaseUrl = loadConfig({ NODE_ENV: 'test' }).publicBaseUrl;
const { session, tokenize, confirm, retrieve, eventTypes, payments: paymentsOf, pagePath, getPage, formToken, answer, inChallenge } = threeDSecureKit(t);

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
    const payments = await paymentsOf(s);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ id: res.json.paymentResult.id, status: 'requires_action', invoice_id: null, captured_amount: null });
    const challenge = await t.database.db.selectFrom('three_ds_challenges').selectAll().where('session_id', '=', s.id).executeTakeFirstOrThrow();
    expect(challenge).toMatchObject({ status: 'open', return_url: RETURN_URL, payment_id: payments[0]!.id });
    expect((await retrieve(s)).status).toBe('payment_pending');
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: pk(), clientSecret: s.clientSecret })).json).toEqual({
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
    expect(await eventTypes(s)).toEqual([]);
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
    expect(await paymentsOf(s)).toHaveLength(0);
  });

  it('a second confirm while the challenge is open replaces it: the waiting payment fails, its page answers 410, and one payment is made', async () => {
    const { s, res: first, path } = await inChallenge();
    const second = await confirm(s, { paymentMethodId: await tokenize(s, '4242424242424242') });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded' }, nextAction: null });
    const payments = await paymentsOf(s);
    expect(payments.map((p) => [p.id, p.status, p.failure_code])).toEqual([
      [first.json.paymentResult.id, 'failed', 'authentication_abandoned'],
      [second.json.paymentResult.id, 'succeeded', null],
    ]);
    expect((await getPage(path)).status).toBe(410);
    expect((await answer(path, 'complete', 'x')).status).toBe(410);
    expect(await eventTypes(s)).toEqual(['payment.failed', 'payment.succeeded', 'checkout.session.completed']);
  });

  it('a second confirm with the 3-D Secure card opens a new challenge and closes the first', async () => {
    const { s, path: firstPath } = await inChallenge();
    const again = await confirm(s, { paymentMethodId: await tokenize(s), returnUrl: RETURN_URL });
    expect(again.json).toMatchObject({ status: 'payment_pending', paymentResult: { status: 'requires_action' } });
    const secondPath = pagePath(again.json.nextAction.url);
    expect(secondPath).not.toBe(firstPath);
    expect((await getPage(firstPath)).status).toBe(410);
    expect((await getPage(secondPath)).status).toBe(200);
    expect((await paymentsOf(s)).map((p) => p.status)).toEqual(['failed', 'requires_action']);
  });

  it('a payment in 3-D Secure is not refundable yet (400 payment_not_refundable, not_paid)', async () => {
    const { s } = await inChallenge();
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk(), body: {} });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, errorCode: 'payment_not_refundable', data: { reason: 'not_paid' } });
  });
});

describe('cancel and expiry during 3-D Secure', () => {
  it('cancel answers 204 and the session reads cancelled, but the open challenge may still complete: the payment is taken and the session reads completed (refund it)', async () => {
    const { s, res, path } = await inChallenge();
    const otherCard = await tokenize(s, '4242424242424242');
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() })).status).toBe(204);
    expect((await retrieve(s)).status).toBe('cancelled');
    expect((await confirm(s, { paymentMethodId: otherCard })).json.error).toMatchObject({ code: 'session_not_payable' });
    expect((await getPage(path)).status).toBe(200);
    expect((await answer(path, 'complete')).status).toBe(303);
    const got = await retrieve(s);
    expect(got).toMatchObject({ status: 'completed', refund: { refundable: true } });
    expect(await paymentsOf(s)).toMatchObject([{ id: res.json.paymentResult.id, status: 'succeeded' }]);
    expect(await eventTypes(s)).toEqual(['checkout.session.cancelled', 'payment.succeeded', 'checkout.session.completed']);
    const refund = await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk(), body: { reason: 'cancelled during 3-D Secure' } });
    expect(refund.json).toMatchObject({ status: 'refunded', refundAmount: 49.99 });
  });

  it('cancel then Fail authentication: the payment fails and the session stays cancelled', async () => {
    const { s, path } = await inChallenge();
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() });
    expect((await answer(path, 'fail')).status).toBe(303);
    expect((await retrieve(s)).status).toBe('cancelled');
    expect((await paymentsOf(s)).map((p) => p.status)).toEqual(['failed']);
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
      expect(await paymentsOf(s)).toMatchObject([{ status: 'failed', failure_code: 'authentication_expired' }]);
      expect(await eventTypes(s)).toEqual(['payment.failed', 'checkout.session.expired']);
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
      expect((await paymentsOf(s)).map((p) => p.status)).toEqual(['failed']);
      expect((await getPage(path)).status).toBe(410);
      expect(await eventTypes(s)).toEqual(['payment.failed', 'checkout.session.expired']);
    } finally {
      clock.advance(-31 * 60);
    }
  });

  it("a cancelled session's challenge ends at the session's expiry time: the page answers 410 and the payment fails", async () => {
    const { s, path } = await inChallenge();
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() });
    clock.advance(31 * 60);
    try {
      expect((await getPage(path)).status).toBe(410);
      expect((await retrieve(s)).status).toBe('cancelled');
      expect(await paymentsOf(s)).toMatchObject([{ status: 'failed', failure_code: 'authentication_expired' }]);
    } finally {
      clock.advance(-31 * 60);
    }
  });
});
