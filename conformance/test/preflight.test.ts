// The preflight's answers that need no Till server: a URL nobody answers, keys of the wrong kind,
// a URL that answers but not as Till, and the mock (which accepts any key). Against a server it is
// exercised by the conformance runs (scripts/conformance-ci.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../preflight.js';

let html: Server;
let json: Server;
const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
beforeAll(async () => {
  html = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>'));
  json = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}'));
  await Promise.all([html, json].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
});
afterAll(async () => {
  await Promise.all([html, json].map((s) => new Promise((r) => s.close(r))));
});

const key = 'sk_test_0123456789abcdefghij';

describe('preflight', () => {
  it('says which URL cannot be reached, and why', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const gone = url(closed);
    await new Promise((r) => closed.close(r));
    const result = await preflight({ baseUrl: gone, secretKey: key, target: 'server' });
    expect(result.ok).toBe(false);
    expect(result.lines).toContain(`✗ cannot reach ${gone}: ECONNREFUSED`);
  });

  it('refuses a live key and a publishable key given as the secret key, and a secret key given as the publishable one', async () => {
    const live = await preflight({ baseUrl: url(json), secretKey: 'sk_live_0123456789abcdefghij', target: 'server' });
    expect(live.ok).toBe(false);
    expect(live.lines.join('\n')).toContain('--secret-key sk_live_… is a live key');
    const swapped = await preflight({ baseUrl: url(json), secretKey: 'pk_test_0123456789abcdefghij', publishableKey: key, target: 'server' });
    expect(swapped.lines.filter((l) => l.startsWith('✗'))).toEqual([
      "✗ --secret-key pk_test_… is a publishable key: give the merchant's test secret key (sk_test_…)",
      "✗ --publishable-key sk_test_… is a secret key: give the merchant's test publishable key (pk_test_…)",
    ]);
  });

  it('tells a URL that answers, but not as Till', async () => {
    const result = await preflight({ baseUrl: url(html), secretKey: key, target: 'server' });
    expect(result.ok).toBe(false);
    expect(result.lines.at(-1)).toMatch(/answers, but not as Till: GET \/v1\/products → 404 text\/html/);
  });

  it('against a mock, checks the URL and the key kinds and says the rest cannot be checked', async () => {
    const result = await preflight({ baseUrl: url(json), secretKey: key, otherSecretKey: key, target: 'mock' });
    expect(result.ok).toBe(false); // the same key twice is never a second merchant
    const fine = await preflight({ baseUrl: url(json), secretKey: key, target: 'mock' });
    expect(fine.ok).toBe(true);
    expect(fine.lines.at(-1)).toBe('- keys, merchants and modes not checked: the mock accepts any key');
  });
});
