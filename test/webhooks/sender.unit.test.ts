// One attempt on the wire (sender.ts): connections kept alive between attempts, what an answer
// comes to (cut short, too long, too slow) and what each failure to connect is called in the log.
import http from 'node:http';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { type SendOptions, sendWebhook } from '../../server/domain/webhooks/sender.js';
import { receiverPool } from '../support/webhook-receiver.js';

const receivers = receiverPool();
afterAll(() => receivers.closeAll());

const attempt = (url: string, more: Partial<SendOptions> = {}) =>
  sendWebhook({
    url,
    secret: 'whsec_x',
    eventId: 'evt_AAAAAAAAAAAA',
    eventType: 'webhook.test',
    body: '{"id":"evt_AAAAAAAAAAAA"}',
    timestamp: 1,
    timeoutMs: 5_000,
    allowLoopback: true,
    ...more,
  });

/** A plain TCP or HTTP server on loopback, closed after the test file. */
async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

describe('sendWebhook', () => {
  it('keeps connections alive: 20 attempts one after another take at most two connections; 40, 8 at a time, fewer than 20', async () => {
    const one = await receivers.start();
    for (let i = 0; i < 20; i++) expect(await attempt(one.url)).toMatchObject({ ok: true, httpStatus: 200 });
    // undici's pool may open a second connection while the first is being handed back, never more.
    expect(one.connections()).toBeGreaterThanOrEqual(1);
    expect(one.connections()).toBeLessThanOrEqual(2);
    const r = await receivers.start();
    const outcomes = [];
    for (let round = 0; round < 5; round++) outcomes.push(...(await Promise.all(Array.from({ length: 8 }, () => attempt(r.url)))));
    expect(outcomes.every((o) => o.ok && o.httpStatus === 200)).toBe(true);
    expect(r.received).toHaveLength(40);
    expect(r.connections()).toBeGreaterThanOrEqual(8);
    expect(r.connections()).toBeLessThan(20);
  });

  it('an answer of 100 KB: its first 1000 characters in the log', async () => {
    const r = await receivers.start((_n, _req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('x'.repeat(100_000));
    });
    const outcome = await attempt(r.url);
    expect(outcome).toMatchObject({ ok: false, httpStatus: 503, error: 'http_status' });
    expect(outcome.responseSnippet).toBe('x'.repeat(1000));
  });

  it('an answer cut short: its status and what arrived of it', async () => {
    const r = await receivers.start((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      res.write('partial', () => setTimeout(() => res.socket?.destroy(), 50));
    });
    expect(await attempt(r.url)).toMatchObject({ ok: true, httpStatus: 200, responseSnippet: 'partial', error: null });
  });

  it('an answer whose body never ends is a timeout, as is one that never starts', async () => {
    const r = await receivers.start((n, _req, res) => {
      if (n === 1) return 'hang';
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started');
      return 'hang';
    });
    for (const n of [0, 1]) {
      const outcome = await attempt(r.url, { timeoutMs: 400 });
      expect(outcome, `request ${n}`).toMatchObject({ ok: false, httpStatus: null, responseSnippet: null, error: 'timeout', durationMs: 400 });
    }
  });

  it('a connection whose TLS handshake never ends is a timeout, answered at the timeout', async () => {
    const silent = net.createServer(() => undefined); // accepts, never answers the handshake
    const port = await listening(silent);
    const started = performance.now();
    expect(await attempt(`https://127.0.0.1:${port}/hooks`, { timeoutMs: 400 })).toMatchObject({
      ok: false,
      httpStatus: null,
      error: 'timeout',
      durationMs: 400,
    });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('nothing listening is connection_refused; a server that does not speak TLS is tls_error; a reset before the answer is connection_error', async () => {
    const closed = net.createServer();
    const port = await listening(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await attempt(`https://127.0.0.1:${port}/hooks`)).toMatchObject({ ok: false, httpStatus: null, error: 'connection_refused' });

    const plain = await listening(http.createServer((_req, res) => res.end('plain')));
    expect(await attempt(`https://127.0.0.1:${plain}/hooks`)).toMatchObject({ ok: false, httpStatus: null, error: 'tls_error' });

    const r = await receivers.start((_n, req, res) => {
      void req;
      res.socket?.destroy();
      return 'hang';
    });
    const outcome = await attempt(r.url);
    expect(outcome).toMatchObject({ ok: false, httpStatus: null, error: 'connection_error' });
    expect(outcome.requestHeaders?.['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
