// Two confirms racing on one subscription session (PostgreSQL: row locks of concurrent transactions):
// the session row is locked for the whole confirmation, so exactly one subscription starts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { CARD_YEAR, subscriptionSessions } from '../support/billing.js';

const t = useTestServer({ clock: new ManualClock(new Date()), rateLimitScale: 100 });
const kit = subscriptionSessions(t);
const pk = () => t.merchantA.keys.test.publishable;

describe('confirming a subscription session with a card ("Renewal and card on file", "Subscription status")', () => {
  it('two confirms racing on one subscription session start exactly one subscription', async () => {
    const { session } = await kit.subscriptionSession();
    const tokenize = () =>
      t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
        key: pk(),
        clientSecret: session.clientSecret,
        body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
      });
    const [a, b] = [(await tokenize()).json.id, (await tokenize()).json.id];
    const results = await Promise.all(
      [a, b].map((paymentMethodId) =>
        t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, { key: pk(), clientSecret: session.clientSecret, body: { paymentMethodId } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await t.database.db.selectFrom('subscriptions').select('id').where('session_id', '=', session.id).execute()).toHaveLength(1);
  });
});
