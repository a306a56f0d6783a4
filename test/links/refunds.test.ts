// A payment link's `totalAmountCollected` is net of refunds (issue 35 §10): a refund of a payment
// made through the link, in part or in full, by the invoice refund or the payment refund, lowers
// it; `completedPaymentCount` still counts the payment. A refund made before the link's invoice is
// paid in full is left out when the invoice is counted.
import { describe, expect, it } from 'vitest';
import { AheadClock, payer, payerKit } from '../support/links.js';
import { commerceCard } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ clock: new AheadClock() });
const { sk, newLink, readLink, invoiced, pay } = payerKit(t);
const refundInvoice = (id: number, body: Record<string, unknown> = {}) => t.call('POST', `/v1/invoices/${id}/refund`, { key: sk(), body });
const refundPayment = (id: number, body: Record<string, unknown> = {}) => t.call('POST', `/v1/payments/${id}/refund`, { key: sk(), body });

describe("a link's totalAmountCollected", () => {
  it('is net of refunds: a part refund, then the rest, lower it; completedPaymentCount stays', async () => {
    const link = await newLink();
    const inv = await invoiced(link.identifier, { ...payer, quantity: '2' });
    const paid = await pay(inv.id);
    expect(paid.json, paid.text).toMatchObject({ isSuccess: true });
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 1, totalAmountCollected: '53.04' });
    const part = await refundInvoice(inv.id, { amount: 20 });
    expect(part.status, part.text).toBe(200);
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 1, totalAmountCollected: '33.04' });
    const rest = await refundPayment(paid.json.paymentId);
    expect(rest.status, rest.text).toBe(200);
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 1, totalAmountCollected: '0.00' });
    const again = await invoiced(link.identifier, payer);
    expect((await pay(again.id)).json).toMatchObject({ isSuccess: true });
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 2, totalAmountCollected: '26.52' });
  });

  it('leaves out what was refunded of a part payment before the invoice was paid in full', async () => {
    const link = await newLink();
    const inv = await invoiced(link.identifier, payer);
    const first = await t.call('POST', '/api/payment/payinvoice', {
      apiKey: sk(),
      body: { invoiceId: inv.id, paymentOptionId: 1, amount: 10, card: commerceCard() },
    });
    expect(first.json, first.text).toMatchObject({ isSuccess: true });
    expect((await refundInvoice(inv.id, { amount: 4 })).status).toBe(200);
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 0, totalAmountCollected: '0.00' });
    expect((await pay(inv.id)).json).toMatchObject({ isSuccess: true });
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 1, totalAmountCollected: '22.52' });
  });
});
