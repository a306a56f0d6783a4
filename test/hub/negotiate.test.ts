// The notification hub's negotiate (`POST /hubs/notifications/negotiate`): the versions of the
// SignalR handshake, who may negotiate (keys, in Authorization or x-api-key, the browser rule for
// secret keys), CORS, and a plain GET of the hub. The WebSocket itself: connecting.test.ts; the
// other transports: transports.test.ts.
import { describe, expect, it } from 'vitest';
import { rawHub } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const skA = () => t.merchantA.keys.test.secret;
const ALL_TRANSPORTS = [
  { transport: 'WebSockets', transferFormats: ['Text'] },
  { transport: 'ServerSentEvents', transferFormats: ['Text'] },
  { transport: 'LongPolling', transferFormats: ['Text'] },
];

describe('negotiate', () => {
  const negotiate = (query = '?negotiateVersion=1', headers: Record<string, string> = {}) =>
    fetch(`${t.url}/hubs/notifications/negotiate${query}`, { method: 'POST', headers });

  it('answers version 1 with a connection id and token and all three transports; version 0 with the id alone', async () => {
    const res = await negotiate('?negotiateVersion=1', { authorization: `Bearer ${skA()}` });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      negotiateVersion: 1,
      connectionId: expect.any(String),
      connectionToken: expect.any(String),
      availableTransports: ALL_TRANSPORTS,
    });
    expect(body.connectionToken).not.toBe(body.connectionId);
    const v0 = await (await negotiate('')).json();
    expect(v0).toEqual({
      negotiateVersion: 0,
      connectionId: expect.any(String),
      availableTransports: ALL_TRANSPORTS,
    });
  });

  it('accepts the key in x-api-key, as the Commerce interface takes it', async () => {
    expect((await negotiate('?negotiateVersion=1', { 'x-api-key': skA() })).status).toBe(200);
    expect((await negotiate('?negotiateVersion=1', { 'x-api-key': skA(), authorization: `Bearer ${skA()}` })).status).toBe(200);
    for (const headers of <Record<string, string>[]>[
      { 'x-api-key': 'sk_test_NotARealKeyAtAll0000000000' },
      { 'x-api-key': t.merchantA.keys.test.publishable },
      { 'x-api-key': skA(), authorization: `Bearer ${t.merchantB.keys.test.secret}` },
    ]) {
      const res = await negotiate('?negotiateVersion=1', headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect((await res.json()).error.code).toBe('invalid_api_key');
    }
    const fromBrowser = await negotiate('?negotiateVersion=1', { 'x-api-key': skA(), origin: 'https://shop.example' });
    expect((await fromBrowser.json()).error.code).toBe('secret_key_in_browser');
  });

  it('refuses an unknown key, a publishable key and a malformed Authorization with 401 and a JSON error', async () => {
    for (const authorization of ['Bearer sk_test_NotARealKeyAtAll0000000000', `Bearer ${t.merchantA.keys.test.publishable}`, `Basic ${skA()}`]) {
      const res = await negotiate('?negotiateVersion=1', { authorization });
      expect(res.status, authorization).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication', code: 'invalid_api_key', message: expect.any(String) });
    }
  });

  it('answers CORS for any origin with credentials, and preflights with 204', async () => {
    const origin = 'https://shop.example';
    const preflight = await fetch(`${t.url}/hubs/notifications/negotiate?negotiateVersion=1`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, x-signalr-user-agent' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Requested-With, X-SignalR-User-Agent, X-Api-Key');
    const res = await negotiate('?negotiateVersion=1', { origin, authorization: `Bearer ${t.merchantA.keys.test.publishable}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('refuses a secret key sent from a browser (with an Origin) at negotiate and at the upgrade, with 403 secret_key_in_browser', async () => {
    const origin = 'https://shop.example';
    const res = await negotiate('?negotiateVersion=1', { origin, authorization: `Bearer ${skA()}` });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('secret_key_in_browser');
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    await expect(rawHub(t.url, `?access_token=${skA()}`, { origin })).rejects.toMatchObject({
      status: 403,
      body: expect.stringContaining('secret_key_in_browser'),
    });
    expect((await negotiate('?negotiateVersion=1', { origin })).status).toBe(200);
  });

  it('answers a plain GET of the hub (no id) with 400 naming the WebSocket and the id the other transports need', async () => {
    const res = await fetch(`${t.url}/hubs/notifications`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('WebSocket');
  });
});
