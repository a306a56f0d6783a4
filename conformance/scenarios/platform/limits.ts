// Limits: the rate-limit headers, list limits, field lengths, the notification URL and secret,
// and (run last) going over the rate limit.
import assert from 'node:assert/strict';
import type { HttpResult, Scenario } from '../../types.js';
import { postCustomer } from '../fixtures/catalog.js';
import { call, describe, envelopeData, expectEnvelopeError, expectError, expectStatus, rawFetch, sleep } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { SESSION } from '../fixtures/operations.js';
import { CHECKOUT_DOC, COMMERCE_DOC, pendingBecause, source } from '../fixtures/scenario.js';
import { LIMITS } from '../fixtures/sections.js';
import { postSession } from '../fixtures/sessions.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function expectRateHeaders(res: HttpResult, what: string): void {
  for (const name of RATE_HEADERS) {
    const value = res.headers.get(name);
    assert.match(value ?? '', /^\d+$/, `${what} (HTTP ${res.status}) must carry ${name} as an integer, got ${JSON.stringify(value)}`);
  }
}

export const limits: Scenario[] = [
  {
    id: 'platform.limits.rate-headers-on-every-response',
    title: 'Every response carries integer `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`, errors included',
    source: LIMITS,
    requires: ['listProducts', 'retrieveProduct', 'listPlans', 'createClientToken'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const answers: [string, HttpResult][] = [
        ['200 list', await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } })],
        ['400 bad limit', await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 101 } })],
        ['401 no key', await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null })],
        ['401 envelope', await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: null })],
        ['404 unknown product', await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: sk })],
        ['501 client token', await call(ctx, 'checkout', 'createClientToken', { method: 'POST', path: '/v1/client-token', key: null })],
        ['404 unknown route', await rawFetch(ctx, 'GET', '/v1/conformance-no-such-route', { Authorization: `Bearer ${sk}` })],
      ];
      for (const [what, res] of answers) expectRateHeaders(res, what);
      const limit = Number(answers[0]![1].headers.get('x-ratelimit-limit'));
      assert.ok(limit >= 100, `X-RateLimit-Limit should be the plan's rate (Standard 100/s, Enterprise 500/s), got ${limit}`);
    },
  },
  {
    id: 'platform.limits.list-limit-range',
    title: 'List `limit` is an integer 1-100: 0 and 101 are refused with 400 naming `limit`, 1 and 100 are accepted (products, plans, customers)',
    source: source(CHECKOUT_DOC, 'Resources and their fields', 'List wrapper'),
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      for (const [op, path, envelope] of [
        ['listProducts', '/v1/products', false],
        ['listPlans', '/v1/plans', true],
        ['listCustomers', '/v1/customers', true],
      ] as const) {
        for (const bad of [0, 101]) {
          const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: sk, query: { limit: bad } });
          if (envelope) expectEnvelopeError(res, 400, 'invalid_request', undefined, 'limit');
          else expectError(res, 400, 'invalid_request', undefined, 'limit');
        }
        for (const good of [1, 100]) {
          const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: sk, query: { limit: good } });
          expectStatus(res, 200, `${op} limit=${good}`);
          const list = envelope ? res.json.data : res.json;
          assert.ok(list.data.length <= good, `${op} limit=${good} answered ${list.data.length} items`);
        }
      }
    },
  },
  {
    id: 'platform.limits.session-field-lengths',
    title:
      'customerEmail, customerFirstName and customerLastName are at most 100 characters and customerPhone at most 50; longer values are refused with 400 naming the field',
    source: LIMITS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      // An email of exactly n characters: a 64-character local part (the most an address allows).
      const email = (n: number) => {
        const local = `conf.${tag(ctx)}.`.padEnd(64, 'x');
        const domain = '.example.com';
        return `${local}@${'d'.repeat(n - local.length - 1 - domain.length)}${domain}`;
      };
      const cases: [string, number, (n: number) => string][] = [
        ['customerEmail', 100, email],
        ['customerFirstName', 100, (n) => 'F'.repeat(n)],
        ['customerLastName', 100, (n) => 'L'.repeat(n)],
        ['customerPhone', 50, (n) => '+1' + '5'.repeat(n - 2)],
      ];
      for (const [field, max, make] of cases) {
        assert.equal(make(max).length, max);
        const ok = await postSession(ctx, { [field]: make(max) });
        expectStatus(ok, 201, `${field} of ${max} characters`);
        expectError(await postSession(ctx, { [field]: make(max + 1) }), 400, 'invalid_request', undefined, field);
      }
    },
  },
  {
    id: 'platform.limits.external-id-length',
    title: "A customer's externalId is at most 100 characters: 100 is accepted, 101 refused with 400 naming `externalId`",
    source: LIMITS,
    requires: ['createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const base = `conf-${tag(ctx)}-`;
      const ok = base + 'x'.repeat(100 - base.length);
      envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'ext100'), externalId: ok }), 201, 'externalId of 100 characters');
      expectEnvelopeError(await postCustomer(ctx, { email: emailFor(ctx, 'ext101'), externalId: ok + 'y' }), 400, 'invalid_request', undefined, 'externalId');
    },
  },
  {
    id: 'platform.limits.notification-url',
    title:
      'notificationUrl must be `https` on a public host (no localhost or private addresses; loopback only in test mode on a server that allows loopback webhooks) and at most 2048 characters; otherwise 400',
    source: LIMITS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      // Loopback hosts: refused by a deployment, accepted in test mode by a server started with
      // TILL_ALLOW_LOOPBACK_WEBHOOKS=true (development and CI receivers). The first answer says which
      // this server is; every loopback form must then be answered the same way.
      const loopback = [
        'https://localhost/hook',
        'https://foo.localhost/hook',
        'https://127.0.0.1/hook',
        'https://2130706433/hook', // 127.0.0.1 written as one number
        'https://[::1]/hook',
        'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped loopback
      ];
      const refused = [
        'http://hooks.example.com/till', // not https
        'http://localhost/hook', // not https, even where loopback is allowed
        'https://0.0.0.0/hook',
        'https://10.1.2.3/hook', // private
        'https://172.20.0.5/hook',
        'https://192.168.1.10/hook',
        'https://169.254.169.254/latest/meta-data', // link-local (cloud metadata)
        'https://[fe80::1]/hook', // IPv6 link-local
        'https://[fd12:3456::1]/hook', // IPv6 unique-local
        'https://[::ffff:10.0.0.1]/hook',
      ];
      const probe = await postSession(ctx, { notificationUrl: loopback[0]! });
      const loopbackAllowed = probe.status === 201;
      if (loopbackAllowed) {
        for (const url of loopback)
          expectStatus(
            await postSession(ctx, { notificationUrl: url }),
            201,
            `notificationUrl ${url} (this server allows test-mode loopback webhooks, so every loopback form)`,
          );
      } else refused.push(...loopback);
      for (const url of refused) {
        const res = await postSession(ctx, { notificationUrl: url });
        assert.equal(
          res.status,
          400,
          `notificationUrl ${url} must be refused with 400${loopbackAllowed ? ' (loopback is allowed here, but not this)' : ''}, got ${res.status} ${res.text.slice(0, 200)}`,
        );
        expectError(res, 400, 'invalid_request', undefined, 'notificationUrl');
      }
      const host = 'https://hooks.example.com/';
      const at = (n: number) => host + `conf-${tag(ctx)}-`.padEnd(n - host.length, 'x');
      expectStatus(await postSession(ctx, { notificationUrl: at(2048) }), 201, 'a notificationUrl of 2048 characters');
      expectError(await postSession(ctx, { notificationUrl: at(2049) }), 400, 'invalid_request', undefined, 'notificationUrl');
    },
  },
  {
    id: 'platform.limits.notification-secret-length',
    title: 'notificationSecret must be 16-200 characters; 15 or 201 are refused with 400',
    source: LIMITS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const secret = (n: number) => `conf${tag(ctx)}`.padEnd(n, 's').slice(0, n);
      const notificationUrl = `https://hooks.example.com/conf-${tag(ctx)}`;
      for (const n of [16, 200])
        expectStatus(await postSession(ctx, { notificationUrl, notificationSecret: secret(n) }), 201, `a notificationSecret of ${n} characters`);
      for (const n of [15, 201])
        expectError(await postSession(ctx, { notificationUrl, notificationSecret: secret(n) }), 400, 'invalid_request', undefined, 'notificationSecret');
    },
  },
];

/**
 * Public look-ups by a secret code (`getByReference`) are limited per client address (Till's
 * design: 20 at once, then 5 a second). Runs alone, at the end: among the others its 70 look-ups
 * were answered slower than the limit refills (pending at load 2-4). It spends this address's
 * look-ups and does not wait for them to refill: only the key's 429 check, which makes none, runs
 * after it (a look-up answered 429 later is sent again after its Retry-After anyway).
 */
export const publicLookup429: Scenario = {
  id: 'platform.limits.public-lookup-429',
  title: 'Public invoice look-ups (`getByReference`) are rate-limited per client address: past the limit 429 rate_limit_exceeded with an integer `Retry-After`',
  source: source(COMMERCE_DOC, 'Endpoints', 'Invoices'),
  requires: ['getInvoiceByReference'],
  serverOnly: true,
  exclusive: true,
  async run(ctx) {
    // Straight over fetch: the suite's own requests wait and retry on 429.
    const base = (ctx.options.commerceBaseUrl ?? ctx.options.baseUrl).replace(/\/+$/, '');
    const lookup = () => rawFetch(ctx, 'GET', `${base}/v1/invoice/getByReference(code='CF${tag(ctx).slice(-12)}NONE')`);
    const probe = await lookup();
    expectError(probe, 404, 'not_found', 'invoice_not_found');
    const limit = Number(probe.headers.get('x-ratelimit-limit'));
    if (!(limit > 0) || limit > 50) pendingBecause(`the look-up limit is ${limit}/s; provoking a 429 would take too many requests`);
    const answers = await Promise.all(Array.from({ length: 10 * limit + 20 }, lookup));
    for (const a of answers) assert.ok(a.status === 404 || a.status === 429, `a look-up answer must be 404 or 429, got ${describe(a)}`);
    const limited = answers.find((a) => a.status === 429);
    if (!limited) pendingBecause(`${answers.length} concurrent look-ups were not refused (sent slower than the limit from here?)`);
    expectError(limited, 429, 'rate_limit', 'rate_limit_exceeded');
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/, 'a 429 carries Retry-After in whole seconds, at least 1');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0', 'a refused look-up has nothing remaining');
  },
};

/** How long the 429 check sends before it gives up, and how many of its requests are in flight at most. */
const BURST_DEADLINE_MS = 30_000;
const BURST_IN_FLIGHT = 200;

export const rateLimit429: Scenario = {
  id: 'platform.limits.429-retry-after',
  title: 'Over the rate limit (Standard 100/s, burst 200) the answer is 429 rate_limit with an integer `Retry-After`; after waiting, requests pass again',
  source: LIMITS,
  requires: ['listProducts'],
  serverOnly: true,
  // On a sandbox merchant of its own (its own key): the burst it empties is no other check's key's.
  ownMerchant: true,
  // Alone all the same: on a loaded machine its requests, sent as fast as the target answers for up
  // to 30 s, held the other checks' requests past their 60 s (six clock scenarios failed so).
  exclusive: true,
  async run(ctx) {
    const sk = secretKey(ctx);
    // Answered as they come: the suite's own requests wait out a 429 and retry.
    const list = (limit: number) =>
      ctx.request('checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit }, no429Retry: true });
    const probe = await list(1);
    expectStatus(probe, 200, 'list one product');
    const limit = Number(probe.headers.get('x-ratelimit-limit'));
    if (!(limit > 0) || limit > 500) pendingBecause(`the key's limit is ${limit}/s; provoking a 429 would take too many requests`);
    // Every request counts against the key, a refused one too: `limit=101` (400) is the cheapest for the
    // target to answer, so the requests go out faster than the rate even where the target lists slowly.
    // Sent at once (at most BURST_IN_FLIGHT in flight) until one is refused, or the deadline.
    let limited: HttpResult | undefined;
    let sent = 0;
    const started = Date.now();
    const worker = async () => {
      while (!limited && Date.now() - started < BURST_DEADLINE_MS) {
        sent++;
        const res = await list(101);
        assert.ok(res.status === 400 || res.status === 429, `a burst answer must be 400 (limit=101) or 429, got ${describe(res)}`);
        if (res.status === 429) limited ??= res;
      }
    };
    await Promise.all(Array.from({ length: Math.min(BURST_IN_FLIGHT, 2 * limit) }, worker));
    const seconds = (Date.now() - started) / 1000;
    if (!limited) {
      // Only meaningful when the requests really went out faster than the limit allows.
      if (sent / seconds > 1.5 * limit) assert.fail(`${sent} requests in ${seconds.toFixed(1)} s (limit ${limit}/s) and none answered 429`);
      pendingBecause(`could not send faster than the limit from here (${sent} requests in ${seconds.toFixed(1)} s)`);
    }
    expectError(limited, 429, 'rate_limit');
    const retryAfter = limited.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^\d+$/, `429 must carry Retry-After in seconds, got ${JSON.stringify(retryAfter)}`);
    assert.ok(Number(retryAfter) >= 1, 'Retry-After must be at least 1 second');
    expectRateHeaders(limited, '429');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0', 'a refused request has nothing remaining');
    // Wait as told, then check that requests pass again (each answer taken as it comes). The key is
    // its own sandbox merchant's: nothing after it needs the burst refilled (the run's clean-up waits out a 429).
    await sleep(Number(retryAfter) * 1000);
    let recovered: HttpResult | undefined;
    for (let i = 0; i < 15 && recovered?.status !== 200; i++) {
      if (i > 0) await sleep(1000);
      recovered = await list(1);
    }
    expectStatus(recovered!, 200, 'a request after waiting Retry-After');
  },
};
