// The developer sections of the dashboard (webhooks, events, …) over HTTP: a restricted key without a
// section's read scope is refused its pages, one without the action's scope is refused the action
// (403, nothing done), and a failed delivery re-sent from the page succeeds.
import { expect, it } from 'vitest';
import { csrfOf, DashboardClient, restrictedKey } from '../support/dashboard.js';
import { createTestSession } from '../support/server.js';
import { PUBLIC_URL, useWebhookServer } from '../support/webhooks.js';

const w = useWebhookServer();

async function endpointWithFailedDelivery(name: string) {
  const m = await w.t.newMerchant(name);
  const receiver = await w.receiver((n) => (n === 0 ? 500 : 200));
  const created = await w.configure(m, { sandboxUrl: receiver.url, description: 'Orders' });
  expect(created.status).toBe(201);
  const id = created.json.id as number;
  const test = await w.t.call('POST', `/v1/WebhookConfiguration/${id}/SendTestEvent`, { key: m.keys.test.secret, body: {} });
  expect(test.status).toBe(200);
  expect(test.json.status).not.toBe('succeeded');
  return { m, receiver, id, deliveryId: test.json.deliveryId as string };
}

it('webhooks: a key without webhookconfiguration.read is refused the pages; one without .update the actions', async () => {
  const { m, id, deliveryId } = await endpointWithFailedDelivery('Dash ops access');
  const noRead = new DashboardClient(w.t.url);
  expect((await noRead.signIn(await restrictedKey(w.t, m, ['payment.read']))).status).toBe(303);
  for (const path of ['/dashboard/webhooks', `/dashboard/webhooks/${id}`, `/dashboard/webhooks/${id}/deliveries/${deliveryId}`])
    expect((await noRead.get(path)).status).toBe(403);
  expect((await noRead.get('/dashboard')).html).not.toContain('href="/dashboard/webhooks"');
  expect((await noRead.get('/dashboard/events')).status).toBe(403);
  const events = new DashboardClient(w.t.url);
  expect((await events.signIn(await restrictedKey(w.t, m, ['event.read']))).status).toBe(303);
  const list = await events.get('/dashboard/events?type=webhook.test');
  expect(list.status).toBe(200);
  const eventId = /href="\/dashboard\/events\/(evt_[^"]+)"/.exec(list.html)![1]!;
  expect((await events.get(`/dashboard/events/${eventId}`)).html).toContain(eventId);
  expect((await events.get('/dashboard/webhooks')).status).toBe(403);

  const readOnly = new DashboardClient(w.t.url);
  expect((await readOnly.signIn(await restrictedKey(w.t, m, ['webhookconfiguration.read']))).status).toBe(303);
  const page = await readOnly.get(`/dashboard/webhooks/${id}/deliveries/${deliveryId}`);
  expect(page.status).toBe(200);
  expect(page.html).toContain('Attempt 1');
  expect(page.html).not.toContain('Re-send now');
  const csrf = csrfOf(page.html);
  expect((await readOnly.post(`/dashboard/webhooks/${id}/deliveries/${deliveryId}/resend`, { csrf })).status).toBe(403);
  expect((await readOnly.post(`/dashboard/webhooks/${id}/disable`, { csrf })).status).toBe(403);
  const api = await w.t.call('GET', `/v1/WebhookConfiguration/${id}`, { key: m.keys.test.secret });
  expect(api.json.enabled).toBe(true);
  expect((await w.deliveries(m, id))[0].status).not.toBe('succeeded');
});

it('webhooks: a failed delivery re-sent from the page succeeds; disable and enable show in the API', async () => {
  const { m, receiver, id, deliveryId } = await endpointWithFailedDelivery('Dash ops resend');
  const c = new DashboardClient(w.t.url);
  expect((await c.signIn(await restrictedKey(w.t, m, ['webhookconfiguration.read', 'webhookconfiguration.update']))).status).toBe(303);
  const path = `/dashboard/webhooks/${id}/deliveries/${deliveryId}`;
  const res = await c.submit(path, `${path}/resend`);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${path}?done=resent`);
  const after = await c.get(`${path}?done=resent`);
  expect(after.html).toContain('The delivery was re-sent.');
  expect(after.html).toContain('Attempt 2');
  expect(receiver.received).toHaveLength(2);
  expect((await w.deliveries(m, id))[0].status).toBe('succeeded');

  expect((await c.submit(`/dashboard/webhooks/${id}`, `/dashboard/webhooks/${id}/disable`)).status).toBe(303);
  expect((await w.t.call('GET', `/v1/WebhookConfiguration/${id}`, { key: m.keys.test.secret })).json.enabled).toBe(false);
  expect((await c.submit(`/dashboard/webhooks/${id}`, `/dashboard/webhooks/${id}/enable`)).status).toBe(303);
  expect((await w.t.call('GET', `/v1/WebhookConfiguration/${id}`, { key: m.keys.test.secret })).json.enabled).toBe(true);
  // Both changes are in the audit log, made by this dashboard session (never a key's prefix).
  const audit = await w.t.call('GET', '/v1/audit-entries?action=webhook_configuration.updated', { key: m.keys.test.secret });
  expect(audit.status, audit.text).toBe(200);
  const entries = (audit.json.data as { actor: { type: string; keyPrefix: string | null; session: string | null }; target: { id: string } }[]).filter(
    (e) => e.target.id === String(id),
  );
  expect(entries).toHaveLength(2);
  for (const e of entries) expect(e.actor).toMatchObject({ type: 'dashboard', keyPrefix: null, session: expect.stringMatching(/^ds_[0-9a-f]{16}$/) });
  // Another merchant's endpoint is not found, never shown.
  const other = await w.t.newMerchant('Dash ops other');
  const o = new DashboardClient(w.t.url);
  expect((await o.signIn(other.keys.test.secret)).status).toBe(303);
  expect((await o.get(`/dashboard/webhooks/${id}`)).status).toBe(404);
});

it('test clock: advanced from the page, the sessions that fell due expire and the page lists their events; refused without testhelpers.write and in live mode', async () => {
  const m = await w.t.newMerchant('Dash ops clock');
  const session = await createTestSession(w.t, m);
  const noScope = new DashboardClient(w.t.url);
  expect((await noScope.signIn(await restrictedKey(w.t, m, ['event.read']))).status).toBe(303);
  expect((await noScope.get('/dashboard/test-clock')).status).toBe(403);
  const csrf = csrfOf((await noScope.get('/dashboard/events')).html);
  expect((await noScope.post('/dashboard/test-clock/advance', { csrf, amount: '2', unit: 'days' })).status).toBe(403);
  expect((await w.t.call('GET', `/v1/checkout-sessions/${session.id}`, { key: m.keys.test.secret })).json.status).not.toBe('expired');

  const c = new DashboardClient(w.t.url);
  expect((await c.signIn(await restrictedKey(w.t, m, ['testhelpers.write']))).status).toBe(303);
  const before = await c.get('/dashboard/test-clock');
  expect(before.status).toBe(200);
  expect((await c.submit('/dashboard/test-clock', '/dashboard/test-clock/advance', { amount: 'ten', unit: 'days' })).status).toBe(400);
  const res = await c.submit('/dashboard/test-clock', '/dashboard/test-clock/advance', { amount: '2', unit: 'days' });
  expect(res.status).toBe(303);
  const after = await c.get(res.headers.get('location')!);
  expect(after.html).toContain('The test clock was advanced');
  expect(after.html).toContain('checkout.session.expired');
  expect((await w.t.call('GET', `/v1/checkout-sessions/${session.id}`, { key: m.keys.test.secret })).json.status).toBe('expired');

  const live = new DashboardClient(w.t.url);
  expect((await live.signIn(m.keys.live.secret)).status).toBe(303);
  expect((await live.get('/dashboard/test-clock')).status).not.toBe(200);
  expect((await live.get('/dashboard')).html).not.toContain('href="/dashboard/test-clock"');
});

it('request log: filtered by operation, a request and its redacted bodies show; refused without requestlog.read', async () => {
  const m = await w.t.newMerchant('Dash ops requests');
  const made = await w.configure(m, { sandboxUrl: PUBLIC_URL, description: 'Logged' });
  expect(made.status).toBe(201);
  const noScope = new DashboardClient(w.t.url);
  expect((await noScope.signIn(await restrictedKey(w.t, m, ['event.read']))).status).toBe(303);
  expect((await noScope.get('/dashboard/request-log')).status).toBe(403);

  const key = await restrictedKey(w.t, m, ['requestlog.read']);
  const c = new DashboardClient(w.t.url);
  expect((await c.signIn(key)).status).toBe(303);
  const list = async () => (await c.get('/dashboard/request-log?operation=createWebhookConfiguration')).html;
  await expect.poll(list, { timeout: 10_000 }).toContain('/v1/WebhookConfiguration');
  const id = /href="\/dashboard\/request-log\/(rl_[^"]+)"/.exec(await list())![1]!;
  const page = await c.get(`/dashboard/request-log/${id}`);
  expect(page.status).toBe(200);
  expect(page.html).toContain('Logged');
  for (const secret of [made.json.sandboxSecret, made.json.liveSecret, m.keys.test.secret, key]) expect(page.html).not.toContain(secret);
  expect((await c.get('/dashboard/request-log?status=500')).html).toContain('No requests match.');
});
