// What only a receiver sees (checkout-billing-api.md › Events › Signature and headers): the signature over the
// raw body, the signed `id` and `created`, and the informational headers. A receiver on this machine gets the
// deliveries (fixtures/receiver.ts); with a target that will not deliver there, the delivery log's record of
// each request (its headers, over the body its event serializes to) is checked instead.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectStatus, sleep } from '../fixtures/http.js';
import { liveSecretKey, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';
import { SIGNATURE } from '../fixtures/sections.js';
import { deliveryOf, resend, sendTest, TEST_EVENT } from '../fixtures/deliveries.js';
import { loggedRequests, observingConfiguration, signedWith } from '../fixtures/receiver.js';

/** A signing secret of the run's own (16-200 characters). */
const ownSecret = (label: string, t: string) => `conformance-${label}-${t}-0123456789`;

export const signature: Scenario[] = [
  scenario(
    'webhooks.signature.header-format',
    '`X-Webhook-Signature` is `sha256=` followed by the lower-case hex HMAC-SHA256 of the raw body under the signing secret',
    SIGNATURE,
    TEST_EVENT,
    async (ctx) => {
      const secret = ownSecret('sandbox', tag(ctx));
      const { config, receiver, requests } = await observingConfiguration(ctx, { sandboxSecret: secret });
      const sent = await sendTest(ctx, config.id);
      expectStatus(sent, 200, 'send a test event');
      const hook = (await requests(sent.json.deliveryId, sent.json.eventId))[0]!;
      assert.match(String(hook.headers['x-webhook-signature']), /^sha256=[0-9a-f]{64}$/, 'sha256= and 64 lower-case hex digits');
      assert.ok(signedWith(hook, secret), `the HMAC-SHA256 of the raw body under the configuration's secret (got ${hook.headers['x-webhook-signature']})`);
      if (receiver) assert.equal(sent.json.status, 'succeeded', 'the receiver answered 200');
    },
  ),
  scenario(
    'webhooks.signature.id-and-created-signed',
    '`id` and `created` are inside the signed body, so old and repeated events can be rejected',
    SIGNATURE,
    TEST_EVENT,
    async (ctx) => {
      const { config, requests } = await observingConfiguration(ctx);
      const before = Date.now();
      const sent = await sendTest(ctx, config.id);
      expectStatus(sent, 200, 'send a test event');
      const hook = (await requests(sent.json.deliveryId, sent.json.eventId))[0]!;
      assert.ok(signedWith(hook, config.sandboxSecret), 'the body is signed');
      const body = JSON.parse(hook.raw);
      assert.equal(body.id, sent.json.eventId, 'the signed body carries the event id');
      const created = Date.parse(body.created);
      assert.ok(Number.isFinite(created), `the signed body carries created (got ${JSON.stringify(body.created)})`);
      assert.ok(Math.abs(created - before) < 5 * 60_000, `created is when the event happened (${body.created})`);
    },
  ),
  scenario(
    'webhooks.signature.informational-headers',
    'Deliveries carry `X-Webhook-Id` (event id), `X-Webhook-Event` (type) and `X-Webhook-Timestamp` (Unix seconds at send time), not signed',
    SIGNATURE,
    [...TEST_EVENT, 'resendWebhookDelivery'],
    async (ctx) => {
      const { config, receiver, requests } = await observingConfiguration(ctx);
      receiver?.respond((n) => (n === 0 ? 500 : 200));
      const sent = await sendTest(ctx, config.id);
      expectStatus(sent, 200, 'send a test event');
      await sleep(1100);
      expectStatus(await resend(ctx, config.id, sent.json.deliveryId), 200, 're-send it');
      const hooks = await requests(sent.json.deliveryId, sent.json.eventId);
      assert.equal(hooks.length, 2, 'the first attempt and the re-send made a request each');
      for (const hook of hooks) {
        assert.equal(hook.headers['x-webhook-id'], sent.json.eventId);
        assert.equal(hook.headers['x-webhook-event'], 'webhook.test');
        const ts = String(hook.headers['x-webhook-timestamp']);
        assert.match(ts, /^\d+$/, 'Unix seconds');
        assert.ok(Math.abs(Number(ts) * 1000 - hook.at) < 5000, `the time of that attempt's sending (${ts}, received at ${hook.at / 1000})`);
        assert.ok(signedWith(hook, config.sandboxSecret), 'the signature covers the body alone');
      }
      assert.ok(Number(hooks[1]!.headers['x-webhook-timestamp']) > Number(hooks[0]!.headers['x-webhook-timestamp']), 'each attempt is stamped when it is sent');
      if (receiver) assert.equal((await deliveryOf(ctx, config.id, sent.json.deliveryId)).status, 'succeeded');
    },
  ),
  scenario(
    'webhooks.signature.live-and-sandbox-secrets',
    'Sandbox deliveries are signed with the sandbox secret and live ones with the live secret',
    SIGNATURE,
    TEST_EVENT,
    async (ctx) => {
      // Live deliveries never reach a receiver on this machine (loopback is for test mode): the live side is
      // read from the live delivery log when the run has the live key.
      const [sandboxSecret, liveSecret] = [ownSecret('sandbox', tag(ctx)), ownSecret('live', tag(ctx))];
      const liveUrl = `https://conformance-${tag(ctx)}-live.till.invalid/hooks`;
      const { config, requests } = await observingConfiguration(ctx, { sandboxSecret, liveSecret, liveUrl });
      const sent = await sendTest(ctx, config.id);
      expectStatus(sent, 200, 'send a test event to the sandbox URL');
      const hook = (await requests(sent.json.deliveryId, sent.json.eventId))[0]!;
      assert.ok(signedWith(hook, sandboxSecret), 'signed with the sandbox secret');
      assert.ok(!signedWith(hook, liveSecret), 'not with the live secret');
      const live = await sendTest(ctx, config.id, { live: true });
      expectStatus(live, 200, 'send a test event to the live URL');
      assert.deepEqual([live.json.livemode, live.json.url], [true, liveUrl], 'the live test goes to the live URL');
      const liveKey = liveSecretKey(ctx);
      const log = await call(ctx, 'checkout', 'listWebhookDeliveries', {
        method: 'GET',
        path: `/v1/WebhookConfiguration/${config.id}/deliveries`,
        key: liveKey,
      });
      expectStatus(log, 200, 'the live delivery log');
      const [request] = loggedRequests((log.json.data as any[]).find((d) => d.id === live.json.deliveryId));
      assert.ok(request, 'the live delivery log shows the request of the live test');
      assert.ok(signedWith(request, liveSecret), 'the live test is signed with the live secret');
      assert.ok(!signedWith(request, sandboxSecret), 'not with the sandbox secret');
    },
  ),
];
