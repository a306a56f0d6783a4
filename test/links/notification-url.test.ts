// A payment link's notificationUrl (issue 16 §1): the `invoice.paid` of each invoice made through
// the link reaches it, signed with the link's secret, through the webhook pipeline (retries, the
// same SSRF rules); the configured endpoints get it as ever.
import { createHmac } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/webhooks.js';
import { deliverySettings } from '../../server/api/kit.js';
import { ManualClock } from '../../server/shared/clock.js';
import { deliverDueWebhooks } from '../../server/domain/webhooks/due-deliveries.js';
import { commerceCard } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';
import { receiverPool } from '../support/webhook-receiver.js';

const clock = new ManualClock(new Date());
const config = { allowLoopbackWebhooks: true, webhookTimeoutMs: 1500 };
const receivers = receiverPool();
const t = useTestServer({ clock, config });
afterAll(() => receivers.closeAll());

const deliver = () => deliverDueWebhooks(t.database.db, clock, deliverySettings({ config }));
const hexSig = (raw: string, secret: string) => `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex')}`;
const VISA = commerceCard();

describe("a link's notificationUrl", () => {
  it('gets the invoice.paid of its invoices only, signed with the generated secret; the configured endpoint gets it too', async () => {
    const m = await t.newMerchant('Link hooks');
    const apiKey = m.keys.test.secret;
    const [linkUrl, endpoint] = [await receivers.start(), await receivers.start()];
    const configured = await t.call('POST', '/v1/WebhookConfiguration', {
      key: apiKey,
      body: { sandboxUrl: endpoint.url, subscribedEvents: ['invoice.paid'] },
    });
    expect(configured.status, configured.text).toBe(201);
    const link = await t.call('POST', '/v1/PaymentLink', {
      apiKey,
      body: { name: 'Beans', currencyCode: 'USD', unitPrice: '10.00', notificationUrl: linkUrl.url },
    });
    expect(link.status, link.text).toBe(201);
    const secret = link.json.notificationSecret as string;
    const inv = await t.call('POST', `/v1/PaymentLink/CreateInvoice(identifier='${link.json.identifier}')`, {
      body: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' },
    });
    const other = await t.call('POST', '/v1/invoice', { apiKey, body: { currencyCode: 'USD', items: [{ name: 'Other', unitCost: 5, quantity: 1 }] } });
    for (const id of [inv.json.id, other.json.id])
      expect((await t.call('POST', '/api/payment/payinvoice', { apiKey, body: { invoiceId: id, paymentOptionId: 1, card: VISA } })).json.isSuccess).toBe(true);
    await deliver();
    expect(linkUrl.received.map((h) => [h.json.type, h.json.data.object.id])).toEqual([['invoice.paid', inv.json.id]]);
    const hook = linkUrl.received[0]!;
    expect(hook.headers['x-webhook-signature']).toBe(hexSig(hook.raw, secret));
    expect(verifyWebhook(hook.raw, hook.headers['x-webhook-signature'] as string, secret, { now: clock.now() }).id).toBe(hook.json.id);
    expect(endpoint.received.map((h) => h.json.data.object.id).sort()).toEqual([inv.json.id, other.json.id].sort());
    // Deleting the paid link deletes it with its deliveries (a delivery needs its one target).
    expect((await t.call('DELETE', `/v1/PaymentLink/${link.json.id}`, { apiKey })).status).toBe(204);
  });

  it('a notificationUrl that is not public https is refused; a merchant-chosen secret signs', async () => {
    const m = await t.newMerchant('Link hooks 2');
    const apiKey = m.keys.test.secret;
    expect(
      (await t.call('POST', '/v1/PaymentLink', { apiKey, body: { name: 'X', currencyCode: 'USD', unitPrice: '1', notificationUrl: 'https://10.0.0.1/hook' } }))
        .json.error,
    ).toMatchObject({ param: 'notificationUrl' });
    expect(
      (
        await t.call('POST', '/v1/PaymentLink', {
          apiKey: m.keys.live.secret,
          body: { name: 'X', currencyCode: 'USD', unitPrice: '1', notificationUrl: 'https://localhost:4000/hook' },
        })
      ).json.error,
    ).toMatchObject({ param: 'notificationUrl' });
    const r = await receivers.start();
    const link = await t.call('POST', '/v1/PaymentLink', {
      apiKey,
      body: { name: 'X', currencyCode: 'USD', unitPrice: '1', notificationUrl: r.url, notificationSecret: 'my-own-secret-0123456789' },
    });
    expect(link.json).not.toHaveProperty('notificationSecret');
    const inv = await t.call('POST', `/v1/PaymentLink/CreateInvoice(identifier='${link.json.identifier}')`, {
      body: { email: 'bo@example.com', firstName: 'Bo', lastName: 'Li' },
    });
    await t.call('POST', '/api/payment/payinvoice', { apiKey, body: { invoiceId: inv.json.id, paymentOptionId: 1, card: VISA } });
    await deliver();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.headers['x-webhook-signature']).toBe(hexSig(r.received[0]!.raw, 'my-own-secret-0123456789'));
  });
});
