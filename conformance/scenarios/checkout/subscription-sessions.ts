// Creation rule 7: a subscription checkout session needs a plan and a customer of the merchant.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { newPlan, newProduct, postCustomer } from '../fixtures/catalog.js';
import { envelopeData, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, otherSecretKey } from '../fixtures/keys.js';
import { SESSION, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { waitForEvents } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { CREATION_RULES } from '../fixtures/sections.js';
import { retrieveSession } from '../fixtures/sessions.js';
import { postSubscriptionSession, subscriptionParts, trialSubscription } from '../fixtures/subscriptions.js';

export const subscriptionSessions: Scenario[] = [
  // Rule 7: subscription sessions.
  {
    id: 'checkout.sessions.rule-7-needs-plan-and-client',
    title: 'A subscription session needs `subscriptionPlanId` and `clientId`; without them it is refused with 400',
    source: CREATION_RULES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const { plan, customer } = await subscriptionParts(ctx, 'needs plan and client');
      // Never both: a complete subscription session would start a subscription.
      const noPlan = await postSubscriptionSession(ctx, { clientId: customer.id });
      expectError(noPlan, 400, 'invalid_request', undefined, 'subscriptionPlanId');
      const noClient = await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id });
      expectError(noClient, 400, 'invalid_request', undefined, 'clientId');
      const neither = await postSubscriptionSession(ctx, {});
      expectStatus(neither, 400, 'a subscription session with neither');
      assert.ok(
        ['subscriptionPlanId', 'clientId'].includes(neither.json?.error?.param),
        `the refusal names subscriptionPlanId or clientId: ${neither.text.slice(0, 200)}`,
      );
    },
  },
  {
    id: 'checkout.sessions.rule-7-foreign-client',
    title: "A subscription session with another merchant's `clientId` is refused with `validation_error`",
    source: CREATION_RULES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const { plan } = await subscriptionParts(ctx, 'foreign client');
      const theirs = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'foreign-client') }, other), 201, "the other merchant's customer");
      expectError(
        await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id, clientId: theirs.id }),
        400,
        'invalid_request',
        'validation_error',
        'clientId',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-7-foreign-plan',
    title: "A subscription session with another merchant's `subscriptionPlanId` is refused with `validation_error`",
    source: CREATION_RULES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const { customer } = await subscriptionParts(ctx, 'foreign plan');
      const theirProduct = await newProduct(ctx, 'foreign plan product', other);
      const theirPlan = await newPlan(ctx, theirProduct.id, 'foreign plan', {}, other);
      expectError(
        await postSubscriptionSession(ctx, { subscriptionPlanId: theirPlan.id, clientId: customer.id }),
        400,
        'invalid_request',
        'validation_error',
        'subscriptionPlanId',
      );
    },
  },
  {
    id: 'checkout.sessions.rule-7-free-trial-completes',
    title: 'A subscription session that starts a free trial (nothing to pay now) completes at once and still sends `checkout.session.completed`',
    source: CREATION_RULES,
    requires: [...SUBSCRIBE_TRIAL, 'createWebhookConfiguration', 'listWebhookDeliveries'],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['checkout.session.completed'], async (w) => {
        const { session, subscriptionId } = await trialSubscription(ctx, 'trial completes');
        const read = await retrieveSession(ctx, session.id);
        assert.equal(read.status, 'completed', 'the free-trial session is completed at once, with no payment');
        assert.equal(read.subscriptionId, subscriptionId);
        const [completed] = await waitForEvents(ctx, w, (e) => e.type === 'checkout.session.completed' && e.data?.object?.sessionId === session.id);
        assert.equal(String(completed.data.object.status).toLowerCase(), 'completed', 'the event carries the completed session');
      });
    },
  },
];
