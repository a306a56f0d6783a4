// Idempotency keys: replay, reuse with other parameters, concurrent repeats, per merchant. The POSTs
// that move money and the 24-hour expiry are in idempotency-posts.ts.
import assert from 'node:assert/strict';
import type { RequestSpec, Scenario } from '../../types.js';
import { call, expectEnvelopeError, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { IDEMPOTENCY } from '../fixtures/sections.js';

export const idempotency: Scenario[] = [
  {
    id: 'platform.idempotency.replay',
    title: 'Repeating a POST with the same `Idempotency-Key` and parameters returns the first response without doing it again',
    source: IDEMPOTENCY,
    requires: ['createProduct', 'createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const key = `conf-${tag(ctx)}-replay`;
      const spec: RequestSpec = {
        method: 'POST',
        path: '/v1/products',
        key: sk,
        headers: { 'Idempotency-Key': key },
        body: { name: `Conformance ${tag(ctx)} replay` },
      };
      const first = await call(ctx, 'checkout', 'createProduct', spec);
      expectStatus(first, 201, 'first request');
      const again = await call(ctx, 'checkout', 'createProduct', spec);
      assert.equal(again.status, first.status, 'the repeat must answer the first status');
      assert.equal(again.text, first.text, 'the repeat must answer the first body, byte for byte (same product, not a new one)');
      assert.equal(again.headers.get('idempotent-replayed'), 'true', 'a replayed answer carries Idempotent-Replayed: true');
      // The envelope endpoints too.
      const customerKey = `conf-${tag(ctx)}-replay-customer`;
      const cSpec: RequestSpec = {
        method: 'POST',
        path: '/v1/customers',
        key: sk,
        headers: { 'Idempotency-Key': customerKey },
        body: { email: emailFor(ctx, 'replay'), externalId: `conf-${tag(ctx)}-replay` },
      };
      const c1 = await call(ctx, 'checkout', 'createCustomer', cSpec);
      const c2 = await call(ctx, 'checkout', 'createCustomer', cSpec);
      assert.equal(c2.status, c1.status, 'customer repeat: same status');
      assert.equal(c2.text, c1.text, 'customer repeat: same body');
    },
  },
  {
    id: 'platform.idempotency.key-reused-409',
    title: 'The same `Idempotency-Key` with other parameters is refused with 409 conflict (`idempotency_key_reused`)',
    source: IDEMPOTENCY,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const key = `conf-${tag(ctx)}-mismatch`;
      const first = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: sk,
        headers: { 'Idempotency-Key': key },
        body: { name: `Conformance ${tag(ctx)} one` },
      });
      expectStatus(first, 201, 'first request');
      const second = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: sk,
        headers: { 'Idempotency-Key': key },
        body: { name: `Conformance ${tag(ctx)} two` },
      });
      expectError(second, 409, 'conflict', 'idempotency_key_reused');
      // Envelope endpoint: the same key on another operation is other parameters too.
      const plan = await call(ctx, 'checkout', 'createPlan', {
        method: 'POST',
        path: '/v1/plans',
        key: sk,
        headers: { 'Idempotency-Key': key },
        body: { productId: first.json.id, name: 'x', amount: 5, currency: 'USD', interval: 'month' },
      });
      expectEnvelopeError(plan, 409, 'conflict', 'idempotency_key_reused');
    },
  },
  {
    id: 'platform.idempotency.concurrent-once',
    title: 'Concurrent repeats of one `Idempotency-Key` run the operation once: each answer is the first response or 409 `idempotency_request_in_progress`',
    source: IDEMPOTENCY,
    requires: ['createProduct'],
    serverOnly: true,
    async run(ctx) {
      const spec: RequestSpec = {
        method: 'POST',
        path: '/v1/products',
        key: secretKey(ctx),
        headers: { 'Idempotency-Key': `conf-${tag(ctx)}-race` },
        body: { name: `Conformance ${tag(ctx)} race` },
      };
      const answers = await Promise.all(Array.from({ length: 5 }, () => call(ctx, 'checkout', 'createProduct', spec)));
      const created = answers.filter((a) => a.status === 201);
      assert.ok(created.length >= 1, `at least one answer must be the created product: ${answers.map((a) => a.status).join(', ')}`);
      for (const a of answers) {
        if (a.status === 201) continue;
        expectError(a, 409, 'conflict', 'idempotency_request_in_progress');
      }
      assert.equal(new Set(created.map((a) => a.json.id)).size, 1, 'every successful answer must be the same product (one execution)');
    },
  },
  {
    id: 'platform.idempotency.per-merchant',
    title: 'Idempotency keys belong to one merchant: another merchant using the same key runs its own request',
    source: IDEMPOTENCY,
    requires: ['createProduct'],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const key = `conf-${tag(ctx)}-per-merchant`;
      const body = { name: `Conformance ${tag(ctx)} shared key` };
      const mine = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: secretKey(ctx),
        headers: { 'Idempotency-Key': key },
        body,
      });
      const theirs = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: other,
        headers: { 'Idempotency-Key': key },
        body,
      });
      expectStatus(mine, 201, 'my request');
      expectStatus(theirs, 201, "the other merchant's request");
      assert.notEqual(theirs.json.id, mine.json.id, 'each merchant must get its own product');
      assert.equal(theirs.headers.get('idempotent-replayed'), null, "the other merchant's answer must not be a replay");
    },
  },
];
