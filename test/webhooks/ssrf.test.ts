// SSRF: webhooks never reach loopback, private, link-local or unique-local addresses (checked at
// connect time, on the addresses a name resolves to), loopback only for test-mode deliveries with
// TILL_ALLOW_LOOPBACK_WEBHOOKS; and the Standard Webhooks key of a secret.
import { describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../../server/domain/webhooks/due-deliveries.js';
import { sendWebhook, standardWebhooksKey } from '../../server/domain/webhooks/sender.js';
import { createTestSession } from '../support/server.js';
import { useWebhookServer } from '../support/webhooks.js';

const { t, clock, settings, receiver, configure, deliveries } = useWebhookServer();

describe('SSRF', () => {
  it('refuses at connect time a name that resolves to loopback, and loopback literals, when loopback is not allowed', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    // A refusal comes before any connection, so a long timeout costs nothing. A short one failed:
    // resolving `localhost` waits for a free libuv thread, and lookups of other tests' hosts that
    // this offline machine cannot resolve may hold them all for several seconds (10 s ran out in CI).
    const base = { secret: 'whsec_x', eventId: 'evt_AAAAAAAAAAAA', eventType: 'webhook.test', body: '{}', timestamp: 1, timeoutMs: 60_000 };
    expect(await sendWebhook({ ...base, url: `https://localhost:${port}/hooks`, allowLoopback: false })).toMatchObject({
      ok: false,
      error: 'address_not_allowed',
    });
    for (const url of [
      `https://127.0.0.1:${port}/hooks`,
      `https://[::1]:${port}/hooks`,
      `https://[::ffff:127.0.0.1]:${port}/hooks`,
      'https://10.0.0.1/h',
      'https://169.254.169.254/h',
      'https://[fd12::1]/h',
    ]) {
      expect(await sendWebhook({ ...base, url, allowLoopback: false }), url).toMatchObject({ ok: false, error: 'address_not_allowed', httpStatus: null });
    }
    // Private addresses stay refused even when loopback is allowed.
    expect(await sendWebhook({ ...base, url: 'https://192.168.0.10/h', allowLoopback: true })).toMatchObject({ error: 'address_not_allowed' });
    expect(r.received).toHaveLength(0);
    expect(await sendWebhook({ ...base, url: `https://localhost:${port}/hooks`, allowLoopback: true })).toMatchObject({ ok: true, httpStatus: 200 });
  }, 180_000);

  it('a delivery to loopback is refused without TILL_ALLOW_LOOPBACK_WEBHOOKS, and a live-mode delivery never reaches loopback', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await deliverDueWebhooks(t.database.db, clock, { ...settings, allowLoopbackWebhooks: false });
    expect(r.received).toHaveLength(0);
    const [d] = await deliveries(m, c.json.id);
    expect(d).toMatchObject({ status: 'failed' });
    expect(d.attempts[0]).toMatchObject({ error: 'address_not_allowed', httpStatus: null });
    // A live-mode delivery whose URL points at loopback (stored directly) is refused even with the setting.
    await t.database.db.updateTable('webhook_configurations').set({ live_url: r.url }).where('id', '=', c.json.id).execute();
    const res = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: { live: true } });
    expect(res.json).toMatchObject({ livemode: true, status: 'failed' });
    expect(r.received).toHaveLength(0);
    await t.call('DELETE', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret });
  });

  it('the Standard Webhooks key of a whsec_ secret is its base64-decoded bytes; any other secret keys with its UTF-8 bytes', () => {
    expect(standardWebhooksKey('whsec_AAEC')).toEqual(Buffer.from([0, 1, 2]));
    expect(standardWebhooksKey('my-own-secret-0123456789')).toEqual(Buffer.from('my-own-secret-0123456789'));
  });
});
