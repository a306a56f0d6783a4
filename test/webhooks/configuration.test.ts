// The webhook configuration API (`/v1/WebhookConfiguration`): generated whsec_ secrets shown once,
// pages, the URLs it accepts (https, public; loopback only for the sandbox URL with
// TILL_ALLOW_LOOPBACK_WEBHOOKS), updates and rotation, tenancy, and deletion with the delivery log.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { PUBLIC_URL, useWebhookServer } from '../support/webhooks.js';

const { t, clock, receiver, deliver, configure } = useWebhookServer();

describe('the webhook configuration API', () => {
  it('creates a configuration with generated whsec_ secrets shown once; retrieve and list never show them', async () => {
    const m = await t.newMerchant();
    const res = await configure(m, { sandboxUrl: 'https://127.0.0.1:9/hooks', liveUrl: PUBLIC_URL, description: 'Orders' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      object: 'webhook_configuration',
      sandboxUrl: 'https://127.0.0.1:9/hooks',
      liveUrl: PUBLIC_URL,
      subscribedEvents: ['*'],
      enabled: true,
      description: 'Orders',
    });
    expect(res.json.sandboxSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.json.liveSecret).toMatch(/^whsec_/);
    expect(res.json.liveSecret).not.toBe(res.json.sandboxSecret);
    const got = await t.call('GET', `/v1/WebhookConfiguration/${res.json.id}`, { key: m.keys.live.secret });
    expect(got.status).toBe(200);
    expect(got.json.sandboxSecret).toBeUndefined();
    expect(got.json.liveSecret).toBeUndefined();
    const list = await t.call('GET', '/v1/WebhookConfiguration?limit=10', { key: m.keys.test.secret });
    expect(list.json).toMatchObject({ object: 'list', hasMore: false });
    expect(list.json.data.map((c: any) => c.id)).toEqual([res.json.id]);
    expect(list.json.data[0].sandboxSecret).toBeUndefined();
  });

  it('keeps a secret you send, and pages newest first', async () => {
    const m = await t.newMerchant();
    const a = await configure(m, { liveUrl: PUBLIC_URL, liveSecret: 'my-own-secret-0123456789' });
    expect(a.json.liveSecret).toBe('my-own-secret-0123456789');
    const b = await configure(m, { liveUrl: `${PUBLIC_URL}/b`, subscribedEvents: ['payment.*'] });
    const page1 = await t.call('GET', '/v1/WebhookConfiguration?limit=1', { key: m.keys.test.secret });
    expect(page1.json.data.map((c: any) => c.id)).toEqual([b.json.id]);
    expect(page1.json.hasMore).toBe(true);
    const page2 = await t.call('GET', `/v1/WebhookConfiguration?limit=1&startingAfter=${b.json.id}`, { key: m.keys.test.secret });
    expect(page2.json.data.map((c: any) => c.id)).toEqual([a.json.id]);
    expect(page2.json.hasMore).toBe(false);
  });

  it('refuses no URL, a non-https or private URL, an unknown event and a bad secret with 400 naming the field', async () => {
    const m = await t.newMerchant();
    const none = await configure(m, { subscribedEvents: ['*'] });
    expect(none.status).toBe(400);
    expect(none.json.error).toMatchObject({ code: 'parameter_missing', param: 'sandboxUrl' });
    expect((await configure(m, { liveUrl: 'http://shop.example.com/hooks' })).status).toBe(400);
    for (const url of [
      'https://10.0.0.8/h',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/h',
      'https://192.168.1.20/h',
      'https://localhost/h',
      'https://metadata.google.internal/h',
    ]) {
      const res = await configure(m, { liveUrl: url });
      expect(res.status, url).toBe(400);
      expect(res.json.error, url).toMatchObject({ code: 'parameter_invalid', param: 'liveUrl' });
    }
    const unknown = await configure(m, { liveUrl: PUBLIC_URL, subscribedEvents: ['payment.succeeded', 'payment.exploded'] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_invalid', param: 'subscribedEvents[1]' });
    expect((await configure(m, { liveUrl: PUBLIC_URL, subscribedEvents: ['nothing.*'] })).json.error.code).toBe('parameter_invalid');
    expect((await configure(m, { liveUrl: PUBLIC_URL, liveSecret: 'short' })).status).toBe(400);
  });

  it('allows loopback only for the sandbox URL with TILL_ALLOW_LOOPBACK_WEBHOOKS, never for the live URL', async () => {
    const m = await t.newMerchant();
    expect((await configure(m, { sandboxUrl: 'https://127.0.0.1:8443/h' })).status).toBe(201);
    const live = await configure(m, { liveUrl: 'https://127.0.0.1:8443/h' });
    expect(live.status).toBe(400);
    expect(live.json.error.param).toBe('liveUrl');
  });

  it('refuses TILL_ALLOW_LOOPBACK_WEBHOOKS in production at start, with a clear message', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true' })).toThrow(
      /TILL_ALLOW_LOOPBACK_WEBHOOKS=true is refused with NODE_ENV=production/,
    );
    expect(loadConfig({ NODE_ENV: 'test', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true', TILL_WEBHOOK_TIMEOUT_MS: '2000' })).toMatchObject({
      allowLoopbackWebhooks: true,
      webhookTimeoutMs: 2000,
    });
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ allowLoopbackWebhooks: false, webhookTimeoutMs: 30_000 });
  });

  it('updates any subset: events, enabled, URL removal; a rotated secret is returned once; secret and rotate together are refused', async () => {
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: 'https://127.0.0.1:9/h', liveUrl: PUBLIC_URL });
    const path = `/v1/WebhookConfiguration/${c.json.id}`;
    const upd = await t.call('PATCH', path, {
      key: m.keys.test.secret,
      body: { subscribedEvents: ['checkout.session.*'], enabled: false, liveUrl: null, description: 'x' },
    });
    expect(upd.status).toBe(200);
    expect(upd.json).toMatchObject({ subscribedEvents: ['checkout.session.*'], enabled: false, liveUrl: null, description: 'x' });
    expect(upd.json.sandboxSecret).toBeUndefined();
    const rotated = await t.call('PATCH', path, { key: m.keys.test.secret, body: { rotateSandboxSecret: true } });
    expect(rotated.json.sandboxSecret).toMatch(/^whsec_/);
    expect(rotated.json.sandboxSecret).not.toBe(c.json.sandboxSecret);
    expect(rotated.json.liveSecret).toBeUndefined();
    const both = await t.call('PATCH', path, { key: m.keys.test.secret, body: { sandboxSecret: 'a-secret-of-my-own-123', rotateSandboxSecret: true } });
    expect(both.status).toBe(400);
    expect(both.json.error.code).toBe('validation_error');
    const bad = await t.call('PATCH', path, { key: m.keys.test.secret, body: { liveUrl: 'https://10.1.2.3/h' } });
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: 'liveUrl' });
  });

  it("another merchant's configuration answers 404 like a missing one, on every operation", async () => {
    const m = await t.newMerchant();
    const other = await t.newMerchant();
    const c = await configure(m, { liveUrl: PUBLIC_URL });
    const key = other.keys.test.secret;
    const path = `/v1/WebhookConfiguration/${c.json.id}`;
    for (const [method, p, body] of [
      ['GET', path, undefined],
      ['PATCH', path, { enabled: false }],
      ['DELETE', path, undefined],
      ['POST', `${path}/SendTestEvent`, { live: true }],
      ['GET', `${path}/deliveries`, undefined],
      ['POST', `${path}/deliveries/whd_AAAAAAAAAAAAAAAA/resend`, undefined],
    ] as const) {
      const res = await t.call(method, p, { key, body });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.json.error.code).toBe('resource_not_found');
    }
    expect((await t.call('GET', '/v1/WebhookConfiguration', { key })).json.data).toEqual([]);
  });

  it('deletes a configuration with its pending retries and delivery log', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 500);
    const c = await configure(m, { sandboxUrl: r.url });
    await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: {} });
    expect(r.received).toHaveLength(1);
    const del = await t.call('DELETE', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret });
    expect(del.json).toEqual({ id: c.json.id, object: 'webhook_configuration', deleted: true });
    expect(await t.database.db.selectFrom('webhook_deliveries').select('id').where('configuration_id', '=', c.json.id).execute()).toEqual([]);
    clock.advance(120);
    await deliver();
    expect(r.received).toHaveLength(1);
    expect((await t.call('GET', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret })).status).toBe(404);
  });
});
