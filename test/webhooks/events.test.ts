// The events API: a key's events read back as webhooks deliver them (newest first, pages, type
// filter, the mode, tenancy), and the test-mode stream (`GET /v1/events/stream`) that `npm run
// listen` reads: events written after connecting arrive, Last-Event-ID resumes, from any process.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { createLogger } from '../../server/log.js';
import { systemClock } from '../../server/shared/clock.js';
import { createTestSession, startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { openStream, type SseStream } from '../support/sse.js';

let t: TestServer;
let sk: string;
const streams: SseStream[] = [];
beforeAll(async () => {
  t = await startTestServer();
  sk = t.merchantA.keys.test.secret;
});
afterAll(async () => {
  for (const s of streams) s.close();
  await t?.close();
});

/** Cancels a new session of merchant A in test mode: one `checkout.session.cancelled` event. Returns the session id. */
async function cancelledSession(): Promise<string> {
  const s = await createTestSession(t, t.merchantA);
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk, body: {} });
  expect(res.status).toBe(204);
  return s.id;
}

/** A `webhook.test` event of merchant A's test mode (through a webhook configuration's SendTestEvent). */
async function testEvent(eventType = 'payment.succeeded'): Promise<void> {
  const config = await t.call('POST', '/v1/WebhookConfiguration', { key: sk, body: { sandboxUrl: 'https://hooks.example.org/till' } });
  await t.call('POST', `/v1/WebhookConfiguration/${config.json.id}/SendTestEvent`, { key: sk, body: { eventType } });
}

async function stream(headers: Record<string, string> = {}, url = t.url): Promise<SseStream> {
  const s = await openStream(`${url}/v1/events/stream`, { authorization: `Bearer ${sk}`, ...headers });
  streams.push(s);
  return s;
}

describe('GET /v1/events', () => {
  it('lists the mode’s events newest first, as the envelopes webhooks carry, in pages', async () => {
    const first = await cancelledSession();
    const second = await cancelledSession();
    const page = await t.call('GET', '/v1/events?limit=1', { key: sk });
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
    const next = await t.call('GET', `/v1/events?limit=1&startingAfter=${newest.id}`, { key: sk });
    expect(next.json.data[0].data.object.sessionId).toBe(first);
  });

  it('filters by an event type or a family, and refuses a name that is neither', async () => {
    await cancelledSession();
    await testEvent();
    const cancelled = await t.call('GET', '/v1/events?type=checkout.session.cancelled', { key: sk });
    expect(cancelled.json.data.length).toBeGreaterThan(0);
    expect(cancelled.json.data.every((e: any) => e.type === 'checkout.session.cancelled')).toBe(true);
    const family = await t.call('GET', '/v1/events?type=checkout.session.*', { key: sk });
    expect(family.json.data.map((e: any) => e.type)).toContain('checkout.session.cancelled');
    expect(family.json.data.every((e: any) => e.type.startsWith('checkout.session.'))).toBe(true);
    const tests = await t.call('GET', '/v1/events?type=webhook.*', { key: sk });
    expect(tests.json.data[0].type).toBe('webhook.test');
    for (const bad of ['payment.nothing', 'nothing.*']) {
      const refused = await t.call('GET', `/v1/events?type=${bad}`, { key: sk });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: 'parameter_invalid', param: 'type' });
    }
    expect((await t.call('GET', '/v1/events?type=*', { key: sk })).status).toBe(400);
  });

  it('retrieves one event as the list shows it; another merchant’s, the other mode’s or an unknown cursor answer 404', async () => {
    await cancelledSession();
    const [event] = (await t.call('GET', '/v1/events?limit=1', { key: sk })).json.data;
    const one = await t.call('GET', `/v1/events/${event.id}`, { key: sk });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(event);
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      const hidden = await t.call('GET', `/v1/events/${event.id}`, { key });
      expect(hidden.status).toBe(404);
      expect(hidden.json.error.code).toBe('resource_not_found');
      expect((await t.call('GET', `/v1/events?startingAfter=${event.id}`, { key })).status).toBe(404);
      expect((await t.call('GET', '/v1/events', { key })).json.data.map((e: any) => e.id)).not.toContain(event.id);
    }
    expect((await t.call('GET', '/v1/events/evt_doesNotExist0000', { key: sk })).status).toBe(404);
    expect((await t.call('GET', '/v1/events/not-an-event', { key: sk })).status).toBe(400);
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
    const before = await cancelledSession();
    const s = await stream();
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const after = await cancelledSession();
    const message = await s.next();
    const envelope = JSON.parse(message.data);
    expect(message.event).toBe('checkout.session.cancelled');
    expect(envelope.data.object.sessionId).toBe(after);
    expect(envelope.data.object.sessionId).not.toBe(before);
    expect(message.id).toBe(envelope.id);
    expect((await t.call('GET', `/v1/events/${envelope.id}`, { key: sk })).json).toEqual(envelope);
  });

  it('hears only its own merchant and mode', async () => {
    const s = await stream();
    const other = await createTestSession(t, t.merchantB);
    await t.call('POST', `/v1/checkout-sessions/${other.id}/cancel`, { key: t.merchantB.keys.test.secret, body: {} });
    const mine = await cancelledSession();
    const first = await s.next();
    expect(JSON.parse(first.data).data.object.sessionId).toBe(mine);
    expect(s.messages).toHaveLength(1);
  });

  it('resumes after Last-Event-ID: what was written meanwhile comes first, in order', async () => {
    const s = await stream();
    await cancelledSession();
    const last = await s.next();
    s.close();
    const missed = [await cancelledSession(), await cancelledSession()];
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
      const id = await cancelledSession();
      expect(JSON.parse((await s.next()).data).data.object.sessionId).toBe(id);
    } finally {
      await sibling.close();
    }
  });

  // Another process: its own database pool and its own LISTEN connection; only PostgreSQL's NOTIFY links the two.
  it.runIf(usingPostgres)('hears an event written by a server on another database connection (PostgreSQL)', async () => {
    const database = await openDatabase({ databaseUrl: t.databaseUrl });
    const app = createApp({ database, clock: systemClock, config: loadConfig({ NODE_ENV: 'test' }), logger: createLogger('silent') });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const s = await stream({}, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
      const id = await cancelledSession();
      expect(JSON.parse((await s.next()).data).data.object.sessionId).toBe(id);
      s.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    }
  });
});
