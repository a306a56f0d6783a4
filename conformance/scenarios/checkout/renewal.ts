// Renewal with the card on file: the card that pays the first invoice is kept, and renewals are charged to it.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { newPlan } from '../fixtures/catalog.js';
import { call, envelopeData, expectStatus, rawFetch } from '../fixtures/http.js';
import { publishableKey, secretKey } from '../fixtures/keys.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { addCardInPortal } from '../fixtures/portal.js';
import { clocked } from '../fixtures/scenario.js';
import { RENEWAL } from '../fixtures/sections.js';
import { newSession, retrieveSession } from '../fixtures/sessions.js';
import {
  advancePast,
  dailySubscription,
  paidSubscription,
  postSubscriptionSession,
  subscriptionInvoices,
  subscriptionOf,
  subscriptionParts,
  trialSubscription,
} from '../fixtures/subscriptions.js';

/** The sandbox's succeeding Mastercard. */
const MASTERCARD = '5555555555554444';

const customerOf = async (ctx: ConformanceContext, id: number): Promise<any> =>
  envelopeData(await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${id}`, key: secretKey(ctx) }), 200, `customer ${id}`);

/** The customer's saved cards, as a session for them with saved cards lists them: `[last4, isDefault]`. */
async function savedCardsOf(ctx: ConformanceContext, clientId: number): Promise<[string, boolean][]> {
  const s = await newSession(ctx, { clientId, allowSavedCards: true });
  const res = await call(ctx, 'checkout', 'listSavedCards', {
    method: 'GET',
    path: `/v1/checkout-sessions/${s.id}/saved-cards`,
    key: publishableKey(ctx),
    clientSecret: s.clientSecret,
  });
  expectStatus(res, 200, 'list saved cards');
  return res.json.data.map((c: any) => [c.card.last4, c.isDefault]);
}

export const renewals: Scenario[] = [
  {
    id: 'checkout.renewal.card-kept-on-subscription',
    title: 'A card paying the first invoice of a subscription is kept for renewals: the subscription has `hasPaymentMethod` true',
    source: RENEWAL,
    requires: [...SUBSCRIBE],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await paidSubscription(ctx, 'subscription card kept');
      const sub = await subscriptionOf(ctx, subscriptionId);
      assert.equal(sub.status, 'active', 'the first payment makes it active');
      assert.equal(sub.hasPaymentMethod, true, 'the paying card is on file');
      assert.equal(sub.trialEnd, null, 'no trial');
    },
  },
  {
    id: 'checkout.renewal.card-kept-on-customer',
    title: 'The card is attached to the customer if they have none yet (`hasPaymentMethod` becomes true), and not when they already have one',
    source: RENEWAL,
    requires: [...SUBSCRIBE, 'retrieveCustomer', 'listSavedCards'],
    serverOnly: true,
    async run(ctx) {
      const parts = await subscriptionParts(ctx, 'customer card kept');
      assert.equal((await customerOf(ctx, parts.customer.id)).hasPaymentMethod, false, 'a new customer has no card');
      await paidSubscription(ctx, '', parts);
      assert.equal((await customerOf(ctx, parts.customer.id)).hasPaymentMethod, true, 'the paying card went on the customer');
      assert.deepEqual(await savedCardsOf(ctx, parts.customer.id), [['4242', true]], "the first card is the customer's (default)");
      // A second subscription paid with another card: the customer already has one, so it is not attached.
      const second = await newPlan(ctx, parts.plan.productId, 'customer card kept second');
      await paidSubscription(ctx, '', { plan: second, customer: parts.customer }, MASTERCARD);
      assert.deepEqual(await savedCardsOf(ctx, parts.customer.id), [['4242', true]], 'the second card is not added to a customer who has one');
    },
  },
  {
    id: 'checkout.renewal.customer-told-beforehand',
    title: 'The checkout tells the customer beforehand that the card is kept (hosted page of a subscription session)',
    source: RENEWAL,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const { plan, customer } = await subscriptionParts(ctx, 'told beforehand');
      const res = await postSubscriptionSession(ctx, {
        subscriptionPlanId: plan.id,
        clientId: customer.id,
        mode: 'hosted',
        successUrl: 'https://shop.example.com/done',
        cancelUrl: 'https://shop.example.com/cancel',
      });
      expectStatus(res, 201, 'create a hosted subscription session');
      assert.ok(typeof res.json.url === 'string', 'a hosted session has a page');
      const page = await rawFetch(ctx, 'GET', res.json.url);
      expectStatus(page, 200, 'open the hosted page');
      const text = page.text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      assert.match(text, /kept on file|saved (for|on file)|stored for/i, 'the page says, before paying, that the card is kept');
      assert.match(text, /renewal|automatically|recurring/i, 'and that it pays the renewals');
      assert.equal((await retrieveSession(ctx, res.json.id)).status, 'created', 'nothing was paid yet: the notice comes beforehand');
    },
  },
  clocked(
    'checkout.renewal.merchant-initiated',
    'Renewals are charged automatically to the card on file (merchant-initiated): the renewal invoice is paid without the customer',
    RENEWAL,
    [...SUBSCRIBE, 'listSubscriptionInvoices'],
    {
      async run(ctx) {
        const { subscriptionId, plan } = await dailySubscription(ctx, 'merchant initiated');
        const before = await subscriptionOf(ctx, subscriptionId);
        await advancePast(ctx, before.currentPeriodEnd);
        const [renewal, first] = await subscriptionInvoices(ctx, subscriptionId);
        assert.ok(first, 'a renewal invoice was raised');
        assert.equal(renewal.status, 'paid', 'the renewal invoice is paid by the card on file, with no customer action');
        assert.equal(renewal.amountPaid, plan.amount);
        const after = await subscriptionOf(ctx, subscriptionId);
        assert.equal(after.status, 'active');
        assert.equal(after.hasPaymentMethod, true, 'the card stays on file');
      },
    },
  ),
  {
    id: 'checkout.renewal.free-trial-no-card',
    title: 'A subscription starting on a free trial keeps no card at checkout (`hasPaymentMethod` false); the customer adds one in the portal',
    source: RENEWAL,
    requires: [...SUBSCRIBE_TRIAL, 'retrieveCustomer', 'createPortalSession'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId, customer } = await trialSubscription(ctx, 'trial no card');
      const trial = await subscriptionOf(ctx, subscriptionId);
      assert.equal(trial.status, 'trialing');
      assert.equal(trial.hasPaymentMethod, false, 'no card is kept at a free-trial checkout');
      assert.equal((await customerOf(ctx, customer.id)).hasPaymentMethod, false, 'nor on the customer');
      await addCardInPortal(ctx, customer.id);
      assert.equal((await subscriptionOf(ctx, subscriptionId)).hasPaymentMethod, true, 'the card added in the portal is on file for the subscription');
      assert.equal((await customerOf(ctx, customer.id)).hasPaymentMethod, true, 'and for the customer');
    },
  },
];
