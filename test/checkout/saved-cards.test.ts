// Saved cards: how a card gets on file, the saved-card list, OTP verification (codes, wrong-code
// lock, expiry, single use), paying with a verified card, and the test message outbox.
// Named after the rules they prove.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { hashSecret } from '../../server/shared/crypto.js';
import { recordMessage } from '../../server/domain/messages/message.service.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { createTestSession, startTestServer, type TestServer, usingPostgres } from '../support/server.js';

const clock = new ManualClock(new Date());
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(async () => {
  await t?.close();
});

const future = new Date().getUTCFullYear() + 2;
const card = (cardNumber: string) => ({ cardNumber, expiryMonth: 12, expiryYear: future, cvc: '123' });
const keysOf = (merchant: MerchantCredentials, livemode: boolean) => (livemode ? merchant.keys.live : merchant.keys.test);
const inMinutes = (n: number) => new Date(clock.now().getTime() + n * 60_000).toISOString();

let phoneSeq = 1000;
/** A customer of the merchant with a phone of its own (so outbox filters by phone are exact). */
async function customer(merchant = t.merchantA, phone: string | null = `+1 415 555 ${phoneSeq++}`): Promise<{ id: number; phone: string | null }> {
  const res = await t.call('POST', '/v1/customers', {
    key: merchant.keys.test.secret,
    body: { email: `c${Math.random().toString(36).slice(2)}@example.com`, name: 'Ana Lopez', ...(phone ? { phone } : {}) },
  });
  expect(res.status).toBe(201);
  return { id: res.json.data.id, phone };
}

interface Session {
  id: string;
  clientSecret: string;
  merchant: MerchantCredentials;
  livemode: boolean;
}

async function session(body: Record<string, unknown> = {}, merchant = t.merchantA, livemode = false): Promise<Session> {
  const s = await createTestSession(t, merchant, livemode, body);
  return { id: s.id, clientSecret: s.clientSecret, merchant, livemode };
}
const as = (s: Session) => ({ key: keysOf(s.merchant, s.livemode).publishable, clientSecret: s.clientSecret });
const tokenize = async (s: Session, number = '4242424242424242') => {
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { ...as(s), body: card(number) });
  expect(res.status).toBe(201);
  return res.json.id as string;
};
const confirm = (s: Session, paymentMethodId: string) => t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...as(s), body: { paymentMethodId } });
const listCards = (s: Session) => t.call('GET', `/v1/checkout-sessions/${s.id}/saved-cards`, as(s));
const verify = (s: Session, paymentMethodId: string) =>
  t.call('POST', `/v1/checkout-sessions/${s.id}/saved-cards/verify`, { ...as(s), body: { paymentMethodId } });
const confirmOtp = (s: Session, verificationId: string, otp: string) =>
  t.call('POST', `/v1/checkout-sessions/${s.id}/saved-cards/confirm-otp`, { ...as(s), body: { verificationId, otp } });
const messages = (query = '', key = t.merchantA.keys.test.secret) => t.call('GET', `/v1/test-helpers/messages${query}`, { key });

/** Pays a session of the customer with allowSavedCards, so the card goes on file; answers its id. */
async function cardOnFile(customerId: number, number = '4242424242424242', merchant = t.merchantA, livemode = false): Promise<string> {
  const s = await session({ clientId: customerId, allowSavedCards: true }, merchant, livemode);
  const pm = await tokenize(s, number);
  expect((await confirm(s, pm)).status).toBe(200);
  return pm;
}
const savedSession = (customerId: number, extra: Record<string, unknown> = {}) => session({ clientId: customerId, allowSavedCards: true, ...extra });
const methodRow = (id: string) => t.database.db.selectFrom('payment_methods').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('how a card gets on file', () => {
  it('a card paid through a session with clientId and allowSavedCards is kept on file for that customer; the first is the default', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const row = await methodRow(pm);
    expect(row).toMatchObject({ customer_id: c.id, is_default: true });
    expect(row.saved_at).not.toBeNull();
    const got = await t.call('GET', `/v1/customers/${c.id}`, { key: t.merchantA.keys.test.secret });
    expect(got.json.data.hasPaymentMethod).toBe(true);
  });

  it('a session without allowSavedCards, or without a customer, keeps no card', async () => {
    const c = await customer();
    const noAllow = await session({ clientId: c.id });
    const pm1 = await tokenize(noAllow);
    expect((await confirm(noAllow, pm1)).status).toBe(200);
    const noCustomer = await session({ allowSavedCards: true });
    const pm2 = await tokenize(noCustomer);
    expect((await confirm(noCustomer, pm2)).status).toBe(200);
    for (const pm of [pm1, pm2]) expect((await methodRow(pm)).saved_at).toBeNull();
    const got = await t.call('GET', `/v1/customers/${c.id}`, { key: t.merchantA.keys.test.secret });
    expect(got.json.data.hasPaymentMethod).toBe(false);
  });

  it('a declined card is not kept; only a successful charge keeps it', async () => {
    const c = await customer();
    const s = await savedSession(c.id);
    const declined = await tokenize(s, '4000000000009995');
    expect((await confirm(s, declined)).status).toBe(400);
    expect((await methodRow(declined)).saved_at).toBeNull();
    expect((await listCards(await savedSession(c.id))).json.data).toEqual([]);
  });

  it('the card of a hold session is kept once authorized', async () => {
    const c = await customer();
    const s = await savedSession(c.id, { captureMethod: 'manual' });
    const pm = await tokenize(s);
    const res = await confirm(s, pm);
    expect(res.json.paymentStatus).toBe('authorized');
    expect((await methodRow(pm)).saved_at).not.toBeNull();
  });

  it('the same card paid again is kept once (by fingerprint); a second card is not the default', async () => {
    const c = await customer();
    const first = await cardOnFile(c.id, '4242424242424242');
    const again = await cardOnFile(c.id, '4242424242424242');
    const second = await cardOnFile(c.id, '5555555555554444');
    expect((await methodRow(again)).saved_at).toBeNull();
    const list = await listCards(await savedSession(c.id));
    expect(list.json.data.map((x: any) => [x.id, x.isDefault])).toEqual([
      [first, true],
      [second, false],
    ]);
  });
});

describe('listSavedCards', () => {
  it("lists the session customer's cards in the session's mode: id, card, isDefault; default first, then newest", async () => {
    const c = await customer();
    const visa = await cardOnFile(c.id, '4242424242424242');
    clock.advance(60);
    const mastercard = await cardOnFile(c.id, '5555555555554444');
    clock.advance(60);
    const discover = await cardOnFile(c.id, '6011111111111117');
    const res = await listCards(await savedSession(c.id));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      object: 'list',
      data: [
        { id: visa, card: { brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: future }, isDefault: true },
        { id: discover, card: { brand: 'discover', last4: '1117', expiryMonth: 12, expiryYear: future }, isDefault: false },
        { id: mastercard, card: { brand: 'mastercard', last4: '4444', expiryMonth: 12, expiryYear: future }, isDefault: false },
      ],
      hasMore: false,
    });
  });

  it('a session without allowSavedCards or without a customer lists none, and retrieval reports allowGuestSavedCards', async () => {
    const c = await customer();
    await cardOnFile(c.id);
    const noAllow = await session({ clientId: c.id });
    expect((await listCards(noAllow)).json).toEqual({ object: 'list', data: [], hasMore: false });
    expect((await listCards(await session({ allowSavedCards: true }))).json.data).toEqual([]);
    const sk = t.merchantA.keys.test.secret;
    expect((await t.call('GET', `/v1/checkout-sessions/${noAllow.id}`, { key: sk })).json.allowGuestSavedCards).toBe(false);
    const allowed = await savedSession(c.id);
    expect((await t.call('GET', `/v1/checkout-sessions/${allowed.id}`, { key: sk })).json.allowGuestSavedCards).toBe(true);
  });

  it("never lists another customer's, another merchant's or the other mode's cards", async () => {
    const c = await customer();
    await cardOnFile(c.id);
    const other = await customer();
    expect((await listCards(await savedSession(other.id))).json.data).toEqual([]);
    // The same customer in live mode: its test-mode cards are not there.
    expect((await listCards(await session({ clientId: c.id, allowSavedCards: true }, t.merchantA, true))).json.data).toEqual([]);
    // Another merchant cannot even make a session naming this customer's id.
    const foreign = await t.call('POST', '/v1/checkout-sessions', {
      key: t.merchantB.keys.test.secret,
      body: { amount: 25, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', clientId: c.id, allowSavedCards: true },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toMatchObject({ code: 'validation_error', param: 'clientId' });
  });

  it('needs the publishable key with the client secret', async () => {
    const s = await savedSession((await customer()).id);
    const res = await t.call('GET', `/v1/checkout-sessions/${s.id}/saved-cards`, { key: t.merchantA.keys.test.secret });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('permission_denied');
  });
});

describe('verifySavedCard', () => {
  it('starts an OTP verification (vrf_, otp_sent, masked phone, 10-minute expiry) and sends the code by text message through the outbox', async () => {
    const c = await customer(t.merchantA, '+1 415 555 0142');
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const res = await verify(s, pm);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      verificationId: expect.stringMatching(/^vrf_test_/),
      status: 'otp_sent',
      maskedPhone: '+1 *** *** 0142',
      expiresAt: inMinutes(10),
    });
    const row = await t.database.db.selectFrom('card_verifications').selectAll().where('id', '=', res.json.verificationId).executeTakeFirstOrThrow();
    expect(row.code_hash).toBe(hashSecret(`${row.id}:123456`));
    const sent = await messages(`?kind=otp&to=${encodeURIComponent('+1 415 555 0142')}`);
    expect(sent.json.data).toHaveLength(1);
    expect(sent.json.data[0]).toMatchObject({
      object: 'message',
      channel: 'sms',
      kind: 'otp',
      to: '+1 415 555 0142',
      subject: null,
      sessionId: s.id,
      createdAt: clock.now().toISOString(),
    });
    expect(sent.json.data[0].id).toMatch(/^msg_/);
    expect(sent.json.data[0].body).toContain('123456');
  });

  it("refuses a card that is not on file of the session's customer", async () => {
    const c = await customer();
    await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const tokenized = await tokenize(s);
    expect((await verify(s, tokenized)).json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
    const othersCard = await cardOnFile((await customer()).id);
    expect((await verify(s, othersCard)).json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
    const mine = (await listCards(s)).json.data[0].id;
    const noAllow = await session({ clientId: c.id });
    expect((await verify(noAllow, mine)).json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
  });

  it("the code goes to the session's customerPhone when the customer has no phone; with neither, 400 validation_error", async () => {
    const c = await customer(t.merchantA, null);
    const pm = await cardOnFile(c.id);
    const withPhone = await savedSession(c.id, { customerPhone: '+44 20 7946 0958' });
    expect((await verify(withPhone, pm)).json.maskedPhone).toBe('+44 ** **** 0958');
    const res = await verify(await savedSession(c.id), pm);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'paymentMethodId' });
  });

  it('in live mode the code is random and only a hash of it is stored; the outbox never holds it', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id, '4242424242424242', t.merchantA, true);
    const s = await session({ clientId: c.id, allowSavedCards: true }, t.merchantA, true);
    const res = await verify(s, pm);
    expect(res.status).toBe(200);
    expect(res.json.verificationId).toMatch(/^vrf_live_/);
    const row = await t.database.db.selectFrom('card_verifications').selectAll().where('id', '=', res.json.verificationId).executeTakeFirstOrThrow();
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    const sent = await t.database.db.selectFrom('messages').selectAll().where('session_id', '=', s.id).executeTakeFirstOrThrow();
    expect(sent).toMatchObject({ livemode: true, kind: 'otp' });
    expect(sent.body).not.toMatch(/[0-9]{6}/);
  });

  it('a cancelled session refuses verification with session_not_payable', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: t.merchantA.keys.test.secret });
    expect((await verify(s, pm)).json.error).toMatchObject({ code: 'session_not_payable' });
  });
});

describe('confirmSavedCardOtp and paying with a saved card', () => {
  it('the right code answers verified and a paymentMethodId that confirm accepts on this session', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id, { amount: 42 });
    const v = await verify(s, pm);
    const ok = await confirmOtp(s, v.json.verificationId, '123456');
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ verified: true, paymentMethodId: pm });
    const paid = await confirm(s, ok.json.paymentMethodId);
    expect(paid.status).toBe(200);
    expect(paid.json).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded', amount: 42 } });
    const payment = await t.database.db
      .selectFrom('payments')
      .select('payment_method_id')
      .where('id', '=', paid.json.paymentResult.id)
      .executeTakeFirstOrThrow();
    expect(payment.payment_method_id).toBe(pm);
  });

  it('a confirm with a saved card that was not verified for this session is refused', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    expect((await confirm(s, pm)).json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
    // Sent but not yet confirmed with the code: still refused.
    await verify(s, pm);
    expect((await confirm(s, pm)).status).toBe(400);
    // Verified on another session does not count here.
    const elsewhere = await savedSession(c.id);
    const v = await verify(elsewhere, pm);
    expect((await confirmOtp(elsewhere, v.json.verificationId, '123456')).status).toBe(200);
    expect((await confirm(s, pm)).json.error).toMatchObject({ code: 'parameter_invalid', param: 'paymentMethodId' });
  });

  it('a verification is single use: a second confirm-otp is refused, and the confirm uses it up', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const v = await verify(s, pm);
    expect((await confirmOtp(s, v.json.verificationId, '123456')).status).toBe(200);
    const again = await confirmOtp(s, v.json.verificationId, '123456');
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({ code: 'otp_invalid', param: 'verificationId' });
    expect((await confirm(s, pm)).status).toBe(200);
    const row = await t.database.db
      .selectFrom('card_verifications')
      .select(['status', 'used_at'])
      .where('id', '=', v.json.verificationId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('used');
    expect(row.used_at).not.toBeNull();
  });

  it('wrong codes are counted; the 5th locks the card for 30 minutes (403 card_locked on both operations), then it can be verified again', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id, { expiresAt: inMinutes(120) });
    const v = await verify(s, pm);
    for (const left of [4, 3, 2, 1]) {
      const wrong = await confirmOtp(s, v.json.verificationId, '000000');
      expect(wrong.status).toBe(400);
      expect(wrong.json.error).toMatchObject({ type: 'invalid_request', code: 'otp_invalid', param: 'otp' });
      expect(wrong.json.error.message).toContain(`${left} attempt`);
    }
    const locked = await confirmOtp(s, v.json.verificationId, '000000');
    expect(locked.status).toBe(403);
    expect(locked.json.error).toMatchObject({ type: 'permission_denied', code: 'card_locked', param: 'paymentMethodId' });
    // Locked: even the right code and a new verification are refused, on any session.
    expect((await confirmOtp(s, v.json.verificationId, '123456')).json.error.code).toBe('card_locked');
    expect((await verify(s, pm)).status).toBe(403);
    expect((await verify(await savedSession(c.id), pm)).json.error.code).toBe('card_locked');

    clock.advance(29 * 60);
    expect((await verify(s, pm)).json.error.code).toBe('card_locked');
    clock.advance(60);
    const fresh = await verify(s, pm);
    expect(fresh.status).toBe(200);
    // The count starts again: a wrong code leaves 4 attempts.
    expect((await confirmOtp(s, fresh.json.verificationId, '999999')).json.error.message).toContain('4 attempts');
    expect((await confirmOtp(s, fresh.json.verificationId, '123456')).json.verified).toBe(true);
  });

  it('the right code clears the wrong-code count', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const first = await verify(s, pm);
    for (let i = 0; i < 4; i++) await confirmOtp(s, first.json.verificationId, '000000');
    expect((await confirmOtp(s, first.json.verificationId, '123456')).status).toBe(200);
    const second = await verify(s, pm);
    expect((await confirmOtp(s, second.json.verificationId, '000000')).json.error.message).toContain('4 attempts');
  });

  it('an expired code is refused with otp_invalid and is not counted', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id, { expiresAt: inMinutes(60) });
    const v = await verify(s, pm);
    clock.advance(10 * 60);
    const expired = await confirmOtp(s, v.json.verificationId, '123456');
    expect(expired.status).toBe(400);
    expect(expired.json.error).toMatchObject({ code: 'otp_invalid', param: 'otp' });
    expect(expired.json.error.message).toContain('expired');
    const state = await t.database.db
      .selectFrom('saved_card_otp_state')
      .select('failed_attempts')
      .where('payment_method_id', '=', pm)
      .executeTakeFirstOrThrow();
    expect(state.failed_attempts).toBe(0);
  });

  it('a newer code replaces the earlier one', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const first = await verify(s, pm);
    const second = await verify(s, pm);
    expect((await confirmOtp(s, first.json.verificationId, '123456')).json.error).toMatchObject({ code: 'otp_invalid', param: 'verificationId' });
    expect((await confirmOtp(s, second.json.verificationId, '123456')).status).toBe(200);
  });

  it("an unknown verification, or another session's, answers 404", async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const other = await savedSession(c.id);
    const v = await verify(other, pm);
    for (const id of ['vrf_test_doesNotExist', v.json.verificationId]) {
      const res = await confirmOtp(s, id, '123456');
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ code: 'resource_not_found', param: 'verificationId' });
    }
  });

  it.skipIf(!usingPostgres)('racing right codes on one verification verify it exactly once', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const v = await verify(s, pm);
    const results = await Promise.all(Array.from({ length: 8 }, () => confirmOtp(s, v.json.verificationId, '123456')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.json.error.code === 'otp_invalid')).toHaveLength(7);
  });

  it.skipIf(!usingPostgres)('racing wrong codes are each counted: exactly 4 answer otp_invalid and the rest card_locked', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const v = await verify(s, pm);
    const results = await Promise.all(Array.from({ length: 10 }, () => confirmOtp(s, v.json.verificationId, '000000')));
    expect(results.filter((r) => r.status === 400)).toHaveLength(4);
    expect(results.filter((r) => r.status === 403 && r.json.error.code === 'card_locked')).toHaveLength(6);
    const state = await t.database.db.selectFrom('saved_card_otp_state').selectAll().where('payment_method_id', '=', pm).executeTakeFirstOrThrow();
    expect(state.failed_attempts).toBe(5);
  });
});

describe('listTestMessages', () => {
  it('lists the outbox newest first, filtered by recipient (case-insensitive) and kind, paged with limit and startingAfter', async () => {
    const merchant = await t.newMerchant('Outbox');
    const c = await customer(merchant, '+1 212 555 0100');
    const pm = await cardOnFile(c.id, '4242424242424242', merchant);
    const s = await session({ clientId: c.id, allowSavedCards: true }, merchant);
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await verify(s, pm)).json.verificationId);
    const key = merchant.keys.test.secret;
    const all = await messages('', key);
    expect(all.status).toBe(200);
    expect(all.json.object).toBe('list');
    expect(all.json.data).toHaveLength(3);
    expect(all.json.hasMore).toBe(false);
    const first = await messages('?limit=2', key);
    expect(first.json.data).toHaveLength(2);
    expect(first.json.hasMore).toBe(true);
    expect(first.json.data.map((m: any) => m.id)).toEqual(all.json.data.slice(0, 2).map((m: any) => m.id));
    const rest = await messages(`?limit=2&startingAfter=${first.json.data[1].id}`, key);
    expect(rest.json.data.map((m: any) => m.id)).toEqual([all.json.data[2].id]);
    expect(rest.json.hasMore).toBe(false);
    // Newest first: seq order of writing.
    const rows = await t.database.db.selectFrom('messages').select('id').where('merchant_id', '=', merchant.merchantId).orderBy('seq', 'desc').execute();
    expect(all.json.data.map((m: any) => m.id)).toEqual(rows.map((r) => r.id));

    expect((await messages(`?to=${encodeURIComponent('+1 212 555 0100')}&kind=otp`, key)).json.data).toHaveLength(3);
    expect((await messages('?kind=receipt', key)).json.data).toEqual([]);
    expect((await messages('?to=nobody%40example.com', key)).json.data).toEqual([]);
  });

  it('the recipient filter ignores case', async () => {
    const merchant = await t.newMerchant('Outbox case');
    await t.database.db.transaction().execute((trx) =>
      recordMessage(trx, clock, {
        tenant: { merchantId: merchant.merchantId, livemode: false },
        channel: 'email',
        kind: 'other',
        to: 'Ana.Lopez@Example.com',
        subject: 'Hello',
        body: 'Hi',
      }),
    );
    const found = await messages('?to=ana.lopez%40example.com', merchant.keys.test.secret);
    expect(found.json.data).toHaveLength(1);
    expect(found.json.data[0]).toMatchObject({ channel: 'email', kind: 'other', to: 'Ana.Lopez@Example.com', subject: 'Hello', body: 'Hi', sessionId: null });
  });

  it("answers the merchant's own messages only, in test mode", async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    await verify(await savedSession(c.id), pm);
    const mine = await messages('?kind=otp');
    expect(mine.json.data.length).toBeGreaterThan(0);
    const theirs = await messages('?kind=otp', t.merchantB.keys.test.secret);
    expect(theirs.status).toBe(200);
    expect(theirs.json.data).toEqual([]);
    const live = await messages('', t.merchantA.keys.live.secret);
    expect(live.status).toBe(403);
    expect(live.json.error.code).toBe('livemode_not_allowed');
  });

  it("a startingAfter that is not one of the merchant's messages answers 400", async () => {
    const mine = await messages('?limit=1');
    const res = await messages(`?startingAfter=${mine.json.data[0].id}`, t.merchantB.keys.test.secret);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'startingAfter' });
  });
});
