// Checkout sessions after their creation: retrieval, the status endpoint, cancel and expiry.
// Each test is named after the rule of checkout-billing-api.md it proves.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { expireDueSessions } from '../../server/domain/checkout/session.service.js';
import { checkoutKit, inMinutes, sessionCreator, threeDSecureKit } from '../support/checkout.js';
import { createTestSession, useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const create = sessionCreator(t);
const events = checkoutKit(t).events;
const minutes = (n: number) => inMinutes(clock, n);
const threeDs = threeDSecureKit(t);

describe('retrieving a session', () => {
  it('returns every retrieval field, paymentType one_time, status created and the refund object', async () => {
    const created = await create({ allowSavedCards: true, metadata: { orderId: '8841' } });
    const res = await t.call('GET', `/v1/checkout-sessions/${created.json.id}`, { key: sk() });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'checkout_session',
      id: created.json.id,
      sessionId: created.json.id,
      status: 'created',
      paymentType: 'one_time',
      merchantName: expect.stringContaining('Merchant A'),
      merchantLogoUrl: null,
      clientId: null,
      subscriptionId: null,
      invoiceId: null,
      refund: { refundable: false, reason: 'no_payment', manualRefundRequired: false, lastAttempt: null },
    });
    expect(res.json.allowedPaymentMethods).toEqual(['card', 'saved_card', 'wallet:qr']);
  });

  it('a hold session offers only card options that can hold', async () => {
    const created = await create({ captureMethod: 'manual' });
    const res = await t.call('GET', `/v1/checkout-sessions/${created.json.id}`, { key: sk() });
    expect(res.json.allowedPaymentMethods).toEqual(['card']);
  });

  it("another merchant's session, or the other mode's, answers 404", async () => {
    const mine = await create({});
    expect((await t.call('GET', `/v1/checkout-sessions/${mine.json.id}`, { key: t.merchantB.keys.test.secret })).status).toBe(404);
    expect((await t.call('GET', `/v1/checkout-sessions/${mine.json.id}`, { key: t.merchantA.keys.live.secret })).status).toBe(404);
  });

  it('the status endpoint answers the status, for the publishable key and the secret key', async () => {
    const s = await createTestSession(t, t.merchantA);
    const viaPk = await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret });
    expect(viaPk.json).toEqual({ status: 'created' });
    const viaSk = await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk() });
    expect(viaSk.json).toEqual({ status: 'created' });
  });
});

describe('cancelling a session', () => {
  it('answers 204, reads cancelled and writes checkout.session.cancelled once', async () => {
    const s = await createTestSession(t, t.merchantA, false, { metadata: { orderId: '77' } });
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: sk() })).json.status).toBe('cancelled');
    const again = await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() });
    expect(again.status).toBe(204);
    const written = await events(s);
    expect(written.map((e) => e.type)).toEqual(['checkout.session.cancelled']);
    expect(written[0]!.data).toMatchObject({
      object: 'checkout_session',
      status: 'Cancelled',
      paymentStatus: 'Unpaid',
      metadata: { orderId: '77' },
      isLive: false,
    });
    expect(written[0]!.id).toMatch(/^evt_/);
  });

  it('the publishable key with the client secret may cancel too', async () => {
    const s = await createTestSession(t, t.merchantA);
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret });
    expect(res.status).toBe(204);
  });

  it('another merchant cannot cancel it (404), and nothing changes', async () => {
    const s = await createTestSession(t, t.merchantA);
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: t.merchantB.keys.test.secret })).status).toBe(404);
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: sk() })).json.status).toBe('created');
  });
});

describe('expiry', () => {
  it('after expiresAt the session reads expired, and checkout.session.expired is written exactly once', async () => {
    const s = await createTestSession(t, t.merchantA, false, { expiresAt: minutes(15) });
    clock.advance(16 * 60);
    const [first, second] = await Promise.all([expireDueSessions(t.database.db, clock), t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: sk() })]);
    expect(second.json.status).toBe('expired');
    expect(first).toBeGreaterThanOrEqual(0);
    await expireDueSessions(t.database.db, clock);
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk() })).json).toEqual({ status: 'expired' });
    const written = await events(s);
    expect(written.map((e) => e.type)).toEqual(['checkout.session.expired']);
    expect(written[0]!.data).toMatchObject({ status: 'Expired', refund: { reason: 'no_payment' } });
  });

  it('cancelling an expired session changes nothing and sends no event', async () => {
    const s = await createTestSession(t, t.merchantA, false, { expiresAt: minutes(12) });
    clock.advance(13 * 60);
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() })).status).toBe(204);
    expect((await events(s)).map((e) => e.type)).toEqual(['checkout.session.expired']);
  });

  it('the expiry job expires every due session in one run, once, with one event each in the order they fell due; a challenge ends with its session; the rest stay open', async () => {
    const due = [];
    for (const at of [17, 15, 16]) due.push(await createTestSession(t, t.merchantA, false, { expiresAt: minutes(at) }));
    const later = await createTestSession(t, t.merchantA, false, { expiresAt: minutes(60) });
    const { s: challenged } = await threeDs.inChallenge();
    clock.advance(31 * 60);
    try {
      expect(await expireDueSessions(t.database.db, clock)).toBeGreaterThanOrEqual(4);
      for (const s of [...due, challenged])
        expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk() })).json).toEqual({ status: 'expired' });
      expect(await threeDs.eventTypes(challenged)).toEqual(['payment.failed', 'checkout.session.expired']);
      expect((await threeDs.payments(challenged)).map((p) => p.status)).toEqual(['failed']);
      expect((await t.call('GET', `/v1/checkout-sessions/${later.id}/status`, { key: sk() })).json).toEqual({ status: 'created' });
      expect(await events(later)).toEqual([]);
      await expireDueSessions(t.database.db, clock);
      const written = await t.database.db
        .selectFrom('events')
        .select(['session_id', 'type'])
        .where(
          'session_id',
          'in',
          due.map((s) => s.id),
        )
        .orderBy('seq')
        .execute();
      expect(written.map((e) => [e.session_id, e.type])).toEqual([due[1], due[2], due[0]].map((s) => [s!.id, 'checkout.session.expired']));
      for (const s of due) expect((await events(s)).map((e) => e.data)).toMatchObject([{ status: 'Expired', refund: { reason: 'no_payment' } }]);
    } finally {
      clock.advance(-31 * 60);
    }
  });
});
