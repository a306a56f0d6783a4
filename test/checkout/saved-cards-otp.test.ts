// Saved cards: OTP verification (codes, wrong-code lock, expiry, single use) and paying with a
// verified card. Named after the rules they prove. Racing codes: saved-cards.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { hashSecret } from '../../server/shared/crypto.js';
import { inMinutes as minutesAfter, savedCardKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const inMinutes = (n: number) => minutesAfter(clock, n);
const { customer, session, tokenize, confirm, listCards, verify, confirmOtp, messages, cardOnFile, savedSession } = savedCardKit(t);

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
});
