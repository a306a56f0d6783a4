// Idempotency on the POSTs that move money (session create, confirm, refund, capture: a retry never
// pays or refunds twice), and the key's 24 hours (on the sandbox clock).
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, RequestSpec, Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { call, expectStatus } from '../fixtures/http.js';
import { publishableKey, secretKey, tag } from '../fixtures/keys.js';
import { HOLD, PAY_CARD } from '../fixtures/operations.js';
import { clocked } from '../fixtures/scenario.js';
import { IDEMPOTENCY } from '../fixtures/sections.js';
import { newHoldSession, payByCard, sessionBody, tokenizeOn } from '../fixtures/sessions.js';

/** Sends the same request twice under one `Idempotency-Key`; checks the second is the first, replayed; answers the first. */
async function twice(ctx: ConformanceContext, operationId: string, label: string, spec: RequestSpec): Promise<HttpResult> {
  const withKey: RequestSpec = { ...spec, headers: { ...spec.headers, 'Idempotency-Key': `conf-${tag(ctx)}-${label}` } };
  const first = await call(ctx, 'checkout', operationId, withKey);
  const again = await call(ctx, 'checkout', operationId, withKey);
  assert.equal(again.status, first.status, `${label}: the retry answers the first status`);
  assert.equal(again.text, first.text, `${label}: the retry answers the first body (nothing done twice)`);
  assert.equal(again.headers.get('idempotent-replayed'), 'true', `${label}: the retry is a replay`);
  return first;
}

/** A product created under `key` (the sandbox merchant's secret key). */
const createProduct = (ctx: ConformanceContext, idempotencyKey: string) =>
  call(ctx, 'checkout', 'createProduct', {
    method: 'POST',
    path: '/v1/products',
    key: secretKey(ctx),
    headers: { 'Idempotency-Key': idempotencyKey },
    body: { name: `Conformance ${tag(ctx)} idempotency expiry` },
  });

export const idempotencyPosts: Scenario[] = [
  clocked(
    'platform.idempotency.expires-after-24h',
    'An `Idempotency-Key` is remembered for 24 hours; after that the same key runs a new request',
    IDEMPOTENCY,
    ['createProduct'],
    {
      async run(ctx) {
        const key = `conf-${tag(ctx)}-expiry`;
        const first = await createProduct(ctx, key);
        expectStatus(first, 201, 'the first request');
        await advanceClock(ctx, 23 * 3600);
        const within = await createProduct(ctx, key);
        assert.equal(within.text, first.text, 'within 24 hours the key replays the first answer');
        assert.equal(within.headers.get('idempotent-replayed'), 'true');
        await advanceClock(ctx, 3600 + 60);
        const after = await createProduct(ctx, key);
        expectStatus(after, 201, 'after 24 hours the same key runs the request again');
        assert.notEqual(after.json.id, first.json.id, 'a new product, not the first one replayed');
        assert.equal(after.headers.get('idempotent-replayed'), null, 'not a replay');
      },
    },
  ),
  {
    id: 'platform.idempotency.any-post',
    title: 'Any POST accepts `Idempotency-Key`, including session create, confirm, refund and capture (a retry does not repeat the payment)',
    source: IDEMPOTENCY,
    requires: [...PAY_CARD, ...HOLD, 'refundCheckoutSession', 'capturePayment'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const created = await twice(ctx, 'createCheckoutSession', 'any-post-create', {
        method: 'POST',
        path: '/v1/checkout-sessions',
        key: sk,
        body: sessionBody(ctx),
      });
      expectStatus(created, 201, 'create a session');
      const s = created.json;
      const pm = await tokenizeOn(ctx, s);
      const at = (suffix: string) => `/v1/checkout-sessions/${s.id}${suffix}`;
      const payer = { key: publishableKey(ctx), clientSecret: s.clientSecret };
      const confirmed = await twice(ctx, 'confirmCheckoutSession', 'any-post-confirm', {
        method: 'POST',
        path: at('/confirm'),
        ...payer,
        body: { paymentMethodId: pm },
      });
      expectStatus(confirmed, 200, 'confirm');
      const refund = (label: string) => twice(ctx, 'refundCheckoutSession', label, { method: 'POST', path: at('/refund'), key: sk, body: { amount: 5 } });
      const part = await refund('any-post-refund');
      expectStatus(part, 200, 'refund 5');
      assert.equal(part.json.refundedAmount, 5, 'one refund of 5, however often it was sent');
      // What the processor saw: a refund without a key now finds 5 refunded, once.
      const rest = await call(ctx, 'checkout', 'refundCheckoutSession', { method: 'POST', path: at('/refund'), key: sk, body: {} });
      expectStatus(rest, 200, 'refund the rest');
      assert.equal(rest.json.refundAmount, 7.5, 'the rest is the amount less the one refund of 5');
      // Capture of a hold.
      const hold = await newHoldSession(ctx);
      const authorized = await payByCard(ctx, hold);
      const captured = await twice(ctx, 'capturePayment', 'any-post-capture', {
        method: 'POST',
        path: `/v1/payments/${authorized.paymentResult.id}/capture`,
        key: sk,
        body: { amount: 5 },
      });
      expectStatus(captured, 200, 'capture 5');
      assert.equal(captured.json.capturedAmount, 5);
      assert.equal(captured.json.alreadyDone, false, 'the replay is the first capture, not a second one answered alreadyDone');
    },
  },
];
