// Versioning: the /v1 prefix, its /api/v1 alias, and the webhook apiVersion (of a test event and of a real one).
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, envelopeData, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { sendTest, waitForEvents } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { SESSION } from '../fixtures/operations.js';
import { cancelSession, newSession } from '../fixtures/sessions.js';
import { VERSIONING } from '../fixtures/sections.js';

export const versioning: Scenario[] = [
  {
    id: 'platform.versioning.api-v1-alias',
    title: 'The earlier prefix `/api/v1` is accepted for the same operations and answers as `/v1` does',
    source: VERSIONING,
    requires: ['createProduct', 'retrieveProduct', 'listPlans', 'createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const created = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/api/v1/products',
        key: sk,
        body: { name: `Conformance ${tag(ctx)} alias` },
      });
      expectStatus(created, 201, 'POST /api/v1/products');
      const viaV1 = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${created.json.id}`, key: sk });
      const viaApi = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/api/v1/products/${created.json.id}`, key: sk });
      expectStatus(viaApi, 200, 'GET /api/v1/products/{id}');
      assert.deepEqual(viaApi.json, viaV1.json, '/api/v1 must answer exactly as /v1');
      expectStatus(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/api/v1/plans', key: sk, query: { limit: 1 } }), 200, 'GET /api/v1/plans');
      const customer = await call(ctx, 'checkout', 'createCustomer', {
        method: 'POST',
        path: '/api/v1/customers',
        key: sk,
        body: { email: emailFor(ctx, 'alias') },
      });
      envelopeData(customer, 201, 'POST /api/v1/customers');
      // The alias keeps the error behaviour too.
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/api/v1/products/2147483000', key: sk }), 404, 'not_found');
    },
  },
  {
    id: 'platform.versioning.v1-prefix',
    title: 'Paths begin with `/v1`',
    source: VERSIONING,
    requires: ['listProducts'],
    serverOnly: true,
    async run(ctx) {
      expectStatus(
        await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 1 } }),
        200,
        'GET /v1/products',
      );
    },
  },
  {
    id: 'platform.versioning.webhook-api-version',
    title: 'Each webhook event carries `apiVersion`, a `YYYY-MM-DD` date',
    source: VERSIONING,
    requires: ['createWebhookConfiguration', 'sendWebhookTestEvent', 'listWebhookDeliveries', SESSION, 'cancelCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['checkout.session.cancelled'], async (w) => {
        const sent = await sendTest(ctx, w.id, { eventType: 'webhook.test' });
        expectStatus(sent, 200, 'send a test event');
        const s = await newSession(ctx);
        expectStatus(await cancelSession(ctx, s.id), 204, 'cancel a session');
        const [test] = await waitForEvents(ctx, w, (e) => e.type === 'webhook.test');
        const [cancelled] = await waitForEvents(ctx, w, (e) => e.type === 'checkout.session.cancelled' && e.data?.object?.sessionId === s.id);
        for (const event of [test, cancelled]) {
          assert.match(
            String(event.apiVersion),
            /^\d{4}-\d{2}-\d{2}$/,
            `${event.type} carries apiVersion as YYYY-MM-DD, got ${JSON.stringify(event.apiVersion)}`,
          );
          const day = new Date(`${event.apiVersion}T00:00:00Z`);
          assert.equal(day.toISOString().slice(0, 10), event.apiVersion, `${event.type}: apiVersion is a real date`);
          assert.ok(day.getTime() <= Date.now(), `${event.type}: apiVersion is not in the future`);
        }
        assert.equal(test.apiVersion, cancelled.apiVersion, 'one API version for every event');
      });
    },
  },
];
