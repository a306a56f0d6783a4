// The test message outbox (listTestMessages): newest first, filtered by recipient and kind, paged,
// the merchant's own in test mode only. The messages are saved-card codes sent by text.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { recordMessage } from '../../server/domain/messages/message.service.js';
import { savedCardKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { customer, session, verify, messages, cardOnFile, savedSession } = savedCardKit(t);

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
