// Saved cards under races, on PostgreSQL: right codes racing verify once, wrong codes racing are each counted.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { savedCardKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { customer, verify, confirmOtp, cardOnFile, savedSession } = savedCardKit(t);

describe('confirmSavedCardOtp and paying with a saved card', () => {
  it('racing right codes on one verification verify it exactly once', async () => {
    const c = await customer();
    const pm = await cardOnFile(c.id);
    const s = await savedSession(c.id);
    const v = await verify(s, pm);
    const results = await Promise.all(Array.from({ length: 8 }, () => confirmOtp(s, v.json.verificationId, '123456')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.json.error.code === 'otp_invalid')).toHaveLength(7);
  });

  it('racing wrong codes are each counted: exactly 4 answer otp_invalid and the rest card_locked', async () => {
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
