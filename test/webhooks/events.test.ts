// The events API: a key's events read back as webhooks deliver them (newest first, pages, type
// filter, the mode, tenancy), and the test-mode stream (`GET /v1/events/stream`) that `npm run
// listen` reads: events written after connecting arrive, Last-Event-ID resumes, from any app
// instance on the database (another process on PostgreSQL: events.pg.test.ts).
import { describe, expect, it } from 'vitest';
import { cancelledSession, useEventStreams } from '../support/events.js';
import { createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;
const stream = useEventStreams(t);

/** A `webhook.test` event of merchant A's test mode (through a webhook configuration's SendTestEvent). */
async function testEvent(eventType = 'payment.succeeded'): Promise<void> {
  const config = await t.call('POST', '/v1/WebhookConfiguration', { key: sk(), body: { sandboxUrl: 'https://hooks.example.org/till' } });
  await t.call('POST', `/v1/WebhookConfiguration/${config.json.id}/SendTestEvent`, { key: sk(), body: { eventType } });
}

describe('GET /v1/events', () => {
  it('lists the mode’s events newest first, as the envelopes webhooks carry, in pages', async () => {
    const first = await cancelledSession(t);
    const second = await cancelledSession(t);
    const page = await t.call('GET', '/v1/events?limit=1', { key: sk() });
    expect(page.status).toBe(200);
    expect(page.json).toMatchObject({ object: 'list', hasMore: true });
    const [newest] = page.json.data;
    expect(newest).toMatchObject({
      object: 'event',
      type: 'checkout.session.cancelled',
      livemode: false,
      merchantId: t.merchantA.merchantId,
      data: { object: { sessionId: second } },
    });
    expect(newest.id).toMatch(/^evt_/);
    const next = await t.call('GET', `/v1/events?limit=1&startingAfter=${newest.id}`, { key: sk() });
    expect(next.json.data[0].data.object.sessionId).toBe(first);
  });

  it('filters by an event type or a family, and refuses a name that is neither', async () => {
    await cancelledSession(t);
    await testEvent();
    const cancelled = await t.call('GET', '/v1/events?type=checkout.session.cancelled', { key: sk() });
    expect(cancelled.json.data.length).toBeGreaterThan(0);
    expect(cancelled.json.data.every((e: any) => e.type === 'checkout.session.cancelled')).toBe(true);
    const family = await t.call('GET', '/v1/events?type=checkout.session.*', { key: sk() });
    expect(family.json.data.map((e: any) => e.type)).toContain('checkout.session.cancelled');
    expect(family.json.data.every((e: any) => e.type.startsWith('checkout.session.'))).toBe(true);
    const tests = await t.call('GET', '/v1/events?type=webhook.*', { key: sk() });
    expect(tests.json.data[0].type).toBe('webhook.test');
    for (const bad of ['payment.nothing', 'nothing.*']) {
      const refused = await t.call('GET', `/v1/events?type=${bad}`, { key: sk() });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: 'parameter_invalid', param: 'type' });
    }
    expect((await t.call('GET', '/v1/events?type=*', { key: sk() })).status).toBe(400);
  });

  it('retrieves one event as the list shows it; another merchant’s, the other mode’s or an unknown cursor answer 404', async () => {
    await cancelledSession(t);
    const [event] = (await t.call('GET', '/v1/events?limit=1', { key: sk() })).json.data;
    const one = await t.call('GET', `/v1/events/${event.id}`, { key: sk() });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(event);
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      const hidden = await t.call('GET', `/v1/events/${event.id}`, { key });
      expect(hidden.status).toBe(404);
      expect(hidden.json.error.code).toBe('resource_not_found');
      expect((await t.call('GET', `/v1/events?startingAfter=${event.id}`, { key })).status).toBe(404);
      expect((await t.call('GET', '/v1/events', { key })).json.data.map((e: any) => e.id)).not.toContain(event.id);
    }
    expect((await t.call('GET', '/v1/events/evt_doesNotExist0000', { key: sk() })).status).toBe(404);
    expect((await t.call('GET', '/v1/events/not-an-event', { key: sk() })).status).toBe(400);
  });

  it('needs a secret key', async () => {
    const s = await createTestSession(t, t.merchantA);
    const pk = await t.call('GET', '/v1/events', { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret });
    expect(pk.status).toBe(403);
    expect(pk.json.error.code).toBe('permission_denied');
    expect((await t.call('GET', '/v1/events')).status).toBe(401);
  });
});

describe('GET /v1/events/stream', () => {
  it('sends each event written after connecting, as id, type and the webhook envelope', async () => {
    const before = await cancelledSession(t);
    const s = await stream();
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const after = await cancelledSession(t);
    const message = await s.next();
    const envelope = JSON.parse(message.data);
    expect(message.event).toBe('checkout.session.cancelled');
    expect(envelope.data.object.sessionId).toBe(after);
    expect(envelope.data.object.sessionId).not.toBe(before);
    expect(message.id).toBe(envelope.id);
    expect((await t.call('GET', `/v1/events/${envelope.id}`, { key: sk() })).json).toEqual(envelope);
  });

  it('hears only its own merchant and mode', async () => {
    const s = await stream();
    const other = await createTestSession(t, t.merchantB);
    await t.call('POST', `/v1/checkout-sessions/${other.id}/cancel`, { key: t.merchantB.keys.test.secret, body: {} });
    const mine = await cancelledSession(t);
    const first = await s.next();
    expect(JSON.parse(first.data).data.object.sessionId).toBe(mine);
    expect(s.messages).toHaveLength(1);
  });

  it('resumes after Last-Event-ID: what was written meanwhile comes first, in order', async () => {
    const s = await stream();
    await cancelledSession(t);
    const last = await s.next();
    s.close();
    const missed = [await cancelledSession(t), await cancelledSession(t)];
    const resumed = await stream({ 'last-event-id': last.id! });
    const got = [await resumed.next(), await resumed.next()].map((m) => JSON.parse(m.data).data.object.sessionId);
    expect(got).toEqual(missed);
  });

  it('refuses an unknown Last-Event-ID, a live key and a publishable key', async () => {
    const unknown = await stream({ 'last-event-id': 'evt_doesNotExist0000' });
    expect(unknown.status).toBe(404);
    const live = await stream({ authorization: `Bearer ${t.merchantA.keys.live.secret}` });
    expect(live.status).toBe(403);
    expect(JSON.parse(live.text!).error.code).toBe('livemode_not_allowed');
    const theirs = (await t.call('GET', '/v1/events?limit=1', { key: t.merchantB.keys.test.secret })).json.data[0];
    expect((await stream({ 'last-event-id': theirs.id })).status).toBe(404);
    const session = await createTestSession(t, t.merchantA);
    const pk = await stream({ authorization: `Bearer ${t.merchantA.keys.test.publishable}`, 'x-client-secret': session.clientSecret });
    expect(pk.status).toBe(403);
  });

  it('hears an event written through another app instance on the same database', async () => {
    const sibling = await t.startSibling();
    try {
      const s = await stream({}, sibling.url);
      const id = await cancelledSession(t);
      expect(JSON.parse((await s.next()).data).data.object.sessionId).toBe(id);
    } finally {
      await sibling.close();
    }
  });
});
