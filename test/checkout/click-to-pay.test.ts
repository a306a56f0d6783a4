// Click to pay (SRC) on the sandbox network: lookup by email, authentication with the sandbox
// validation data, the payment token that confirm accepts, and the refusals. Named after the rules.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { inMinutes as minutesAfter } from '../support/checkout.js';
import { createTestSession, useTestServer } from '../support/server.js';
import { delivered } from '../support/events.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const pk = () => t.merchantA.keys.test.publishable;
const sk = () => t.merchantA.keys.test.secret;

const inMinutes = (n: number) => minutesAfter(clock, n);
const session = (body: Record<string, unknown> = {}) => createTestSession(t, t.merchantA, false, { enableClickToPay: true, ...body });
type S = { id: string; clientSecret: string };
const lookup = (s: S, email: string) =>
  t.call('POST', `/v1/checkout-sessions/${s.id}/src/lookup`, { key: pk(), clientSecret: s.clientSecret, body: { email } });
const authenticate = (s: S, srcCardId: string, validationData = '123456') =>
  t.call('POST', `/v1/checkout-sessions/${s.id}/src/authenticate`, { key: pk(), clientSecret: s.clientSecret, body: { srcCardId, validationData } });
const confirm = (s: S, paymentMethodId: string) =>
  t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk(), clientSecret: s.clientSecret, body: { paymentMethodId } });

describe('lookupSrcCards', () => {
  it('an enrolled email (any case) answers enrolled and its cards: srcCardId, brand, last4, expiry, artUri', async () => {
    const s = await session();
    const one = await lookup(s, 'Maria.Lopez@Example.com');
    expect(one.status).toBe(200);
    expect(one.json).toEqual({
      enrolled: true,
      cards: [
        {
          srcCardId: 'src_3f8a2c1e9b7d4a60',
          brand: 'visa',
          last4: '0003',
          expiryMonth: 5,
          expiryYear: 2030,
          artUri: 'https://art.src.example.com/cards/visa-classic.png',
        },
      ],
    });
    const two = await lookup(s, 'src.two.cards@example.com');
    expect(two.json.enrolled).toBe(true);
    expect(two.json.cards.map((c: any) => [c.brand, c.last4, c.artUri === null])).toEqual([
      ['mastercard', '4444', false],
      ['visa', '1111', true],
    ]);
  });

  it('an unknown email answers enrolled false with no cards', async () => {
    expect((await lookup(await session(), 'nobody@example.com')).json).toEqual({ enrolled: false, cards: [] });
  });

  it('a session without enableClickToPay is refused with 400 validation_error', async () => {
    const s = await session({ enableClickToPay: false });
    const res = await lookup(s, 'maria.lopez@example.com');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'validation_error' });
    expect((await authenticate(s, 'src_3f8a2c1e9b7d4a60')).json.error.code).toBe('validation_error');
  });

  it('a failure of the click-to-pay network answers 502 processing_error (sandbox email src.network.error@example.com)', async () => {
    const res = await lookup(await session(), 'src.network.error@example.com');
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'processor_error', code: 'processing_error' });
  });

  it('a cancelled session refuses lookup with session_not_payable', async () => {
    const s = await session();
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() });
    expect((await lookup(s, 'maria.lopez@example.com')).json.error.code).toBe('session_not_payable');
  });

  it('needs the publishable key with the client secret', async () => {
    const s = await session();
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/src/lookup`, { key: sk(), body: { email: 'maria.lopez@example.com' } })).status).toBe(403);
  });
});

describe('authenticateSrcCard', () => {
  it('the sandbox validation data answers the token (pm_, srcCardId, card, expiresAt in 15 minutes), and confirm pays with it', async () => {
    const s = await session({ amount: 18.5 });
    const res = await authenticate(s, 'src_7b1d9e4f2a6c8053');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      paymentMethodId: expect.stringMatching(/^pm_/),
      srcCardId: 'src_7b1d9e4f2a6c8053',
      card: { brand: 'mastercard', last4: '4444', expiryMonth: 11, expiryYear: 2029 },
      expiresAt: inMinutes(15),
    });
    const paid = await confirm(s, res.json.paymentMethodId);
    expect(paid.status).toBe(200);
    expect(paid.json).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded', amount: 18.5 } });
    const events = (await t.database.db.selectFrom('events').select(['type', 'data']).where('session_id', '=', s.id).orderBy('seq').execute()).map(delivered);
    expect(events.map((e) => e.type)).toEqual(['payment.succeeded', 'checkout.session.completed']);
    expect(events[0]!.data).toMatchObject({ paymentMethod: { type: 'card', brand: 'mastercard', last4: '4444' } });
  });

  it('the token expires with the session when that is sooner than 15 minutes', async () => {
    const s = await session({ expiresAt: inMinutes(12) });
    expect((await authenticate(s, 'src_3f8a2c1e9b7d4a60')).json.expiresAt).toBe(inMinutes(12));
  });

  it('wrong validation data answers 400 otp_invalid; an unknown card 400 naming srcCardId', async () => {
    const s = await session();
    const wrong = await authenticate(s, 'src_3f8a2c1e9b7d4a60', '000000');
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toMatchObject({ code: 'otp_invalid', param: 'validationData' });
    const unknown = await authenticate(s, 'src_doesnotexist');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_invalid', param: 'srcCardId' });
    expect(await t.database.db.selectFrom('payment_methods').select('id').where('session_id', '=', s.id).execute()).toEqual([]);
  });

  it('the token pays on its own session only, and only until it expires', async () => {
    const s = await session({ expiresAt: inMinutes(60) });
    const token = (await authenticate(s, 'src_3f8a2c1e9b7d4a60')).json.paymentMethodId;
    const other = await session();
    expect((await confirm(other, token)).json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
    clock.advance(15 * 60);
    const late = await confirm(s, token);
    expect(late.status).toBe(400);
    expect(late.json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
    expect(late.json.error.message).toContain('expired');
    // Authenticate again: a new token pays.
    expect((await confirm(s, (await authenticate(s, 'src_3f8a2c1e9b7d4a60')).json.paymentMethodId)).status).toBe(200);
  });

  it('a click-to-pay card is not kept on file, even when the session allows saved cards', async () => {
    const customer = await t.call('POST', '/v1/customers', {
      key: sk(),
      body: { email: `src${Date.now()}@example.com`, name: 'Maria Lopez', phone: '+1 415 555 0199' },
    });
    const s = await session({ clientId: customer.json.data.id, allowSavedCards: true });
    const token = (await authenticate(s, 'src_3f8a2c1e9b7d4a60')).json.paymentMethodId;
    expect((await confirm(s, token)).status).toBe(200);
    const row = await t.database.db.selectFrom('payment_methods').select(['saved_at', 'customer_id']).where('id', '=', token).executeTakeFirstOrThrow();
    expect(row).toEqual({ saved_at: null, customer_id: null });
    expect((await t.call('GET', `/v1/customers/${customer.json.data.id}`, { key: sk() })).json.data.hasPaymentMethod).toBe(false);
  });
});
