// Confirms racing on one session, across two app instances on one PostgreSQL database.
import { describe, expect, it } from 'vitest';
import { checkoutKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const kit = checkoutKit(t, { amount: 49.99 });

describe('racing confirms (PostgreSQL)', () => {
  it('ten confirms racing on one session, across two app instances, make exactly one payment', async () => {
    const sibling = await t.startSibling();
    try {
      const s = await kit.session();
      const methods = await Promise.all(Array.from({ length: 10 }, () => kit.tokenize(s, '4242424242424242')));
      const results = await Promise.all(methods.map((m, i) => kit.confirm(s, { paymentMethodId: m.json.id }, i % 2 ? sibling.url : t.url)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(9);
      const payments = await t.database.db.selectFrom('payments').select('id').where('session_id', '=', s.id).execute();
      expect(payments).toHaveLength(1);
    } finally {
      await sibling.close();
    }
  });
});
