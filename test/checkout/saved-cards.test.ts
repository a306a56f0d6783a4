// Saved cards: how a card gets on file, and the saved-card list. Named after the rules they prove.
// OTP verification and paying with a saved card: saved-cards-otp.test.ts; races: saved-cards.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { CARD_EXPIRY_YEAR as future, savedCardKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { customer, session, tokenize, confirm, listCards, cardOnFile, savedSession, methodRow } = savedCardKit(t);

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

  it('hasPaymentMethod is per mode: a test card makes it true for test keys only, a live card for live keys only', async () => {
    const keys = t.merchantA.keys;
    const read = async (id: number, key: string) => (await t.call('GET', `/v1/customers/${id}`, { key })).json.data.hasPaymentMethod;
    const listed = async (id: number, key: string) =>
      (await t.call('GET', '/v1/customers?limit=100', { key })).json.data.data.find((c: { id: number }) => c.id === id).hasPaymentMethod;
    const testCard = await customer();
    await cardOnFile(testCard.id);
    expect([await read(testCard.id, keys.test.secret), await listed(testCard.id, keys.test.secret)]).toEqual([true, true]);
    expect([await read(testCard.id, keys.live.secret), await listed(testCard.id, keys.live.secret)]).toEqual([false, false]);
    const liveCard = await customer();
    await cardOnFile(liveCard.id, '4242424242424242', t.merchantA, true);
    expect([await read(liveCard.id, keys.live.secret), await listed(liveCard.id, keys.live.secret)]).toEqual([true, true]);
    expect([await read(liveCard.id, keys.test.secret), await listed(liveCard.id, keys.test.secret)]).toEqual([false, false]);
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
