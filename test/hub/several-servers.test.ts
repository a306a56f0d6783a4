// The notification hub on several app instances over one database (each with its own hub and
// listener): a change made through one reaches clients connected to another. Separate processes on
// PostgreSQL: processes.pg.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { connectHub, newInvoice, payInvoice, stopHubClients } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const skA = () => t.merchantA.keys.test.secret;
afterEach(stopHubClients);

describe('several processes', () => {
  it('a change made through one server reaches clients connected to another', async () => {
    const sibling = await t.startSibling();
    const merchant = await connectHub(sibling.url, { key: skA() });
    const invoice = await newInvoice(t);
    const visitor = await connectHub(sibling.url);
    await visitor.connection.invoke('SubscribeToInvoice', invoice.identifier);
    await payInvoice(t, invoice.id);
    expect(await merchant.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Paid' });
    expect(await visitor.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Paid' });
    await stopHubClients();
    await sibling.close();
  });
});
