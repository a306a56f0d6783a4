// The merchant dashboard's HTTP rules, without a browser: sign-in by key into a server-side
// session (the cookie's flags, only a hash stored), restricted keys held to their scopes on pages
// and on form posts, the form token, sign-out, the mode toggle, the sign-in limit, and a refund
// made in the page seen by the API and as an event.
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../server/shared/crypto.js';
import { paidCardPayment } from '../support/checkout.js';
import { DashboardClient, restrictedKey, restrictedKeyWithIds } from '../support/dashboard.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
const client = () => new DashboardClient(t.url);

describe('signing in to the dashboard', () => {
  it('a secret key opens a 12-hour session: an HttpOnly, SameSite cookie; the server keeps only the hash of its token, and no page shows the key', async () => {
    const c = client();
    const signedIn = await c.signIn(t.merchantA.keys.test.secret);
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.getSetCookie().find((l) => l.startsWith('till_dashboard='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/dashboard/);
    const expires = new Date(/Expires=([^;]+)/.exec(cookie)![1]!).getTime();
    expect(Math.abs(expires - (Date.now() + 12 * 3_600_000))).toBeLessThan(120_000);
    const token = c.cookie('till_dashboard')!;
    const rows = await t.database.db.selectFrom('dashboard_sessions').selectAll().execute();
    expect(rows.some((r) => r.token_hash === hashSecret(token))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(token);
    const home = await c.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(home.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(home.html).toContain('Test mode');
    expect(home.html).not.toContain(t.merchantA.keys.test.secret);
  });

  it('refuses a publishable key and an unknown key; without a session a page goes to sign-in', async () => {
    for (const key of [t.merchantA.keys.test.publishable, 'sk_test_notAKeyAtAllNotAKeyAtAll12', 'hello']) {
      const c = client();
      const res = await c.signIn(key);
      expect(res.status).toBe(401);
      expect(res.html).toContain('not a valid secret or restricted key');
      expect(res.html).not.toContain(key);
      expect(c.cookie('till_dashboard')).toBeUndefined();
    }
    const page = await client().get('/dashboard/payments');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fpayments');
  });

  it('revoking the key ends the session: its next page goes to sign-in, and the key signs in no more', async () => {
    const { key, roleId, keyId } = await restrictedKeyWithIds(t, t.merchantA, ['payment.read']);
    const c = client();
    expect((await c.signIn(key)).status).toBe(303);
    expect((await c.get('/dashboard/payments')).status).toBe(200);
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${keyId}`, { apiKey: t.merchantA.keys.test.secret })).status).toBeLessThan(300);
    expect((await c.get('/dashboard/payments')).status).toBe(303);
    expect((await client().signIn(key)).status).toBe(401);
  });

  it('a sign-in form without its form token is refused', async () => {
    const c = client();
    await c.get('/dashboard/sign-in');
    const res = await c.post('/dashboard/sign-in', { key: t.merchantA.keys.test.secret });
    expect(res.status).toBe(403);
    expect(c.cookie('till_dashboard')).toBeUndefined();
  });

  it('signing out ends the session on the server', async () => {
    const c = client();
    await c.signIn(t.merchantA.keys.test.secret);
    const token = c.cookie('till_dashboard')!;
    const out = await c.submit('/dashboard', '/dashboard/sign-out');
    expect(out.status).toBe(303);
    const row = await t.database.db.selectFrom('dashboard_sessions').select('token_hash').where('token_hash', '=', hashSecret(token)).executeTakeFirst();
    expect(row).toBeUndefined();
    const again = await new DashboardClient(t.url).get('/dashboard');
    expect(again.status).toBe(303);
  });

  it('the toggle shows live mode once the live key signed in too; a key of another merchant is refused into the session', async () => {
    const c = client();
    await c.signIn(t.merchantA.keys.test.secret);
    expect((await c.get('/dashboard')).html).toContain('href="/dashboard/sign-in?mode=live"');
    expect((await c.signIn(t.merchantB.keys.live.secret)).status).toBe(401);
    expect((await c.signIn(t.merchantA.keys.live.secret)).status).toBe(303);
    expect((await c.get('/dashboard')).html).toContain('Live mode');
    expect((await c.submit('/dashboard', '/dashboard/mode', { mode: 'test' })).status).toBe(303);
    expect((await c.get('/dashboard')).html).toContain('Test mode');
  });
});

describe('what a key may do in the dashboard', () => {
  it('a restricted key without payment.read is refused the payments list and a payment page (GET), and a refund (POST)', async () => {
    const { paymentId } = await paidCardPayment(t);
    const c = client();
    expect((await c.signIn(await restrictedKey(t, t.merchantA, ['event.read']))).status).toBe(303);
    const home = await c.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.html).not.toContain('href="/dashboard/payments"');
    expect((await c.get('/dashboard/payments')).status).toBe(403);
    expect((await c.get(`/dashboard/payments/${paymentId}`)).status).toBe(403);
    const refund = await c.submit('/dashboard', `/dashboard/payments/${paymentId}/refund`, {});
    expect(refund.status).toBe(403);
    const payment = await t.database.db.selectFrom('payments').select('refunded_amount').where('id', '=', paymentId).executeTakeFirstOrThrow();
    expect(payment.refunded_amount).toMatch(/^0(\.0+)?$/);
  });

  it('a restricted key that reads payments but may not refund sees the payment without the refund form, and its refund POST is refused', async () => {
    const { paymentId } = await paidCardPayment(t);
    const c = client();
    await c.signIn(await restrictedKey(t, t.merchantA, ['payment.read']));
    const page = await c.get(`/dashboard/payments/${paymentId}`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('refund-form');
    const refund = await c.submit(`/dashboard/payments/${paymentId}`, `/dashboard/payments/${paymentId}/refund`, { amount: '1' });
    expect(refund.status).toBe(403);
    expect(refund.html).toContain('checkout.session.refund');
  });

  it('a form POST without the form token, or with another session’s, is refused and changes nothing', async () => {
    const { paymentId } = await paidCardPayment(t);
    const c = client();
    await c.signIn(t.merchantA.keys.test.secret);
    expect((await c.post(`/dashboard/payments/${paymentId}/refund`, { amount: '1' })).status).toBe(403);
    const other = client();
    await other.signIn(t.merchantA.keys.test.secret);
    const otherToken = /name="csrf" value="([^"]+)"/.exec((await other.get('/dashboard')).html)![1]!;
    expect((await c.post(`/dashboard/payments/${paymentId}/refund`, { amount: '1', csrf: otherToken })).status).toBe(403);
    const payment = await t.database.db.selectFrom('payments').select('refunded_amount').where('id', '=', paymentId).executeTakeFirstOrThrow();
    expect(payment.refunded_amount).toMatch(/^0(\.0+)?$/);
  });

  it("another merchant's payment is not found", async () => {
    const { paymentId } = await paidCardPayment(t, { merchant: t.merchantB });
    const c = client();
    await c.signIn(t.merchantA.keys.test.secret);
    expect((await c.get(`/dashboard/payments/${paymentId}`)).status).toBe(404);
  });
});

describe('holds in the dashboard', () => {
  it('captures part of a hold and releases another, as the API would', async () => {
    const c = client();
    await c.signIn(t.merchantA.keys.test.secret);
    const held = await paidCardPayment(t, { body: { amount: 40, captureMethod: 'manual' } });
    expect((await c.get(`/dashboard/payments/${held.paymentId}`)).html).toContain('capture-form');
    const captured = await c.submit(`/dashboard/payments/${held.paymentId}`, `/dashboard/payments/${held.paymentId}/capture`, { amount: '30' });
    expect(captured.status).toBe(303);
    const after = await t.database.db.selectFrom('payments').select(['status', 'captured_amount']).where('id', '=', held.paymentId).executeTakeFirstOrThrow();
    expect(after.status).toBe('captured');
    expect(Number(after.captured_amount)).toBe(30);
    const other = await paidCardPayment(t, { body: { amount: 15, captureMethod: 'manual' } });
    const released = await c.submit(`/dashboard/payments/${other.paymentId}`, `/dashboard/payments/${other.paymentId}/release`);
    expect(released.status).toBe(303);
    const releasedRow = await t.database.db.selectFrom('payments').select('status').where('id', '=', other.paymentId).executeTakeFirstOrThrow();
    expect(releasedRow.status).toBe('released');
  });

  it('a restricted key with checkout.session.read sees checkout sessions but not customers', async () => {
    const c = client();
    await c.signIn(await restrictedKey(t, t.merchantA, ['checkout.session.read']));
    expect((await c.get('/dashboard/checkout-sessions')).status).toBe(200);
    expect((await c.get('/dashboard/customers')).status).toBe(403);
    expect((await c.get('/dashboard')).html).not.toContain('href="/dashboard/customers"');
  });
});

describe('a refund made in the dashboard', () => {
  it('shows in the API (the session and the payment) and as a payment.refunded event', async () => {
    const { paymentId, sessionId } = await paidCardPayment(t, { body: { amount: 30 } });
    const c = client();
    await c.signIn(t.merchantA.keys.test.secret);
    const done = await c.submit(`/dashboard/payments/${paymentId}`, `/dashboard/payments/${paymentId}/refund`, { amount: '10' });
    expect(done.status).toBe(303);
    expect((await c.get(done.headers.get('location')!)).html).toContain('The refund was made.');
    const session = await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: t.merchantA.keys.test.secret });
    expect(session.json.refund.lastAttempt.outcome).toBe('completed');
    const events = await t.call('GET', '/v1/events?type=payment.refunded', { key: t.merchantA.keys.test.secret });
    const refunded = events.json.data.find((e: any) => e.data.object.id === paymentId);
    expect(refunded.data.object).toMatchObject({ refundAmount: 10, refundedAmount: 10 });
    const over = await c.submit(`/dashboard/payments/${paymentId}`, `/dashboard/payments/${paymentId}/refund`, { amount: '100' });
    expect(over.status).toBe(400);
    expect(over.html).toContain('id="alert"');
  });
});

describe('the sign-in limit', () => {
  const strict = useTestServer({ rateLimitScale: 1 });
  it('an address gets 10 sign-in attempts a minute, then 429 with Retry-After', async () => {
    const c = new DashboardClient(strict.url);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await c.signIn(`sk_test_wrongwrongwrongwrong${i}`)).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const refused = await c.signIn(strict.merchantA.keys.test.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
