// SendTestEvent: a `webhook.test` event to one configuration's sandbox URL (or its live one when
// asked), whatever its filter and enabled flag.
import { describe, expect, it } from 'vitest';
import { expectEventMatchesContract as checkEnvelope } from '../support/event-contract.js';
import { hexSig, useWebhookServer } from '../support/webhooks.js';

const { t, receiver, deliver, configure } = useWebhookServer();

describe('test events', () => {
  it('SendTestEvent sends webhook.test to the sandbox URL, whatever the filter and enabled flag, naming the asked eventType', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url, subscribedEvents: ['invoice.*'], enabled: false });
    const res = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, {
      key: m.keys.test.secret,
      body: { eventType: 'payment.succeeded' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ url: r.url, livemode: false, status: 'succeeded' });
    expect(res.json.eventId).toMatch(/^evt_/);
    expect(res.json.deliveryId).toMatch(/^whd_/);
    expect(r.received).toHaveLength(1);
    const hook = r.received[0]!;
    expect(hook.json).toMatchObject({
      id: res.json.eventId,
      type: 'webhook.test',
      data: { object: { object: 'test', eventType: 'payment.succeeded', isLive: false } },
    });
    checkEnvelope(hook.json);
    expect(hook.headers['x-webhook-signature']).toBe(hexSig(hook.raw, c.json.sandboxSecret));
    // Only this configuration gets it.
    const other = await receiver();
    await configure(m, { sandboxUrl: other.url });
    await deliver();
    expect(other.received).toHaveLength(0);
  });

  it('a configuration without a URL for the asked mode answers 409 invalid_state', async () => {
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: 'https://127.0.0.1:9/h' });
    const res = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: { live: true } });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('invalid_state');
  });
});
