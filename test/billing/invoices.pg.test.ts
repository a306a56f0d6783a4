// Creation rule 6 under concurrency (PostgreSQL): creates racing on one invoice make one open
// session; a unique index lets one through, and the others answer with that one.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';
import { newInvoice, oneTimeSession } from '../support/billing.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;

describe('rule 6: paying an existing invoice', () => {
  it('6e: ten creates racing on one invoice make one open session', async () => {
    const inv = await newInvoice(t, sk());
    const results = await Promise.all(Array.from({ length: 10 }, () => oneTimeSession(t, sk(), { invoiceId: inv.id })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
  });
});
