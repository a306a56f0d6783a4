// Commit or nothing, for Idempotency-Key: a request whose transaction committed is never run
// again, even when its answer could not be stored afterwards. The database is made to refuse the
// storing of the answer (a trigger raising an error for keys named `lose-answer-…`), the way a
// connection lost between the commit and the store would.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { createTestSession, useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
beforeAll(async () => {
  await t.database.sql.exec(`
    CREATE FUNCTION refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.state = 'done' AND NEW.key LIKE 'lose-answer-%' THEN RAISE EXCEPTION 'the answer cannot be stored'; END IF;
        RETURN NEW;
      END $$;
    CREATE TRIGGER refuse_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_answer();`);
});

const sk = () => t.merchantA.keys.test.secret;

async function paidSession() {
  const s = await createTestSession(t, t.merchantA);
  const client = { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret };
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
    ...client,
    body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123' },
  });
  const paid = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
  expect(paid.status).toBe(200);
  return s.id;
}

const refundCount = async (sessionId: string) =>
  Number(
    (await t.database.sql.query('SELECT count(*) AS n FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.session_id = $1', [sessionId])).rows[0].n,
  );

describe('a request that committed but whose answer was lost', () => {
  it('is never run again: retries answer 409 idempotency_answer_lost, and the refund exists once', async () => {
    const sessionId = await paidSession();
    const refund = () =>
      t.call('POST', `/v1/checkout-sessions/${sessionId}/refund`, {
        key: sk(),
        body: { amount: 5 },
        headers: { 'idempotency-key': `lose-answer-${sessionId}` },
      });
    const first = await refund();
    expect(first.status, first.text).toBe(200);
    expect(await refundCount(sessionId)).toBe(1);

    // At once: the key is still held by the first request, so a retry waits.
    const soon = await refund();
    expect(soon.status).toBe(409);
    expect(soon.json).toMatchObject({ success: false, errorCode: 'idempotency_request_in_progress' });

    // Past the 60 seconds after which an uncommitted claim is taken over: a committed one is not.
    clock.advance(61);
    const later = await refund();
    expect(later.status, later.text).toBe(409);
    expect(later.json).toMatchObject({ success: false, errorCode: 'idempotency_answer_lost', data: { param: 'Idempotency-Key' } });
    expect(await refundCount(sessionId)).toBe(1);
  });
});
