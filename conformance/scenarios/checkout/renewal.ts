// Renewal with the card on file: the card that pays the first invoice is kept, and renewals are charged to it.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { clocked, pending } from '../fixtures/scenario.js';
import { RENEWAL } from '../fixtures/sections.js';
import { advancePast, dailySubscription, paidSubscription, subscriptionInvoices, subscriptionOf } from '../fixtures/subscriptions.js';

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
  pending(
    'checkout.renewal.card-kept-on-customer',
    'The card is attached to the customer if they have none yet (`hasPaymentMethod` becomes true), and not when they already have one',
    RENEWAL,
    [...SUBSCRIBE, 'retrieveCustomer', 'listSavedCards'],
  ),
  pending(
    'checkout.renewal.customer-told-beforehand',
    'The checkout tells the customer beforehand that the card is kept (hosted page of a subscription session)',
    RENEWAL,
    [...SUBSCRIBE_TRIAL],
  ),
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
  pending(
    'checkout.renewal.free-trial-no-card',
    'A subscription starting on a free trial keeps no card at checkout (`hasPaymentMethod` false); the customer adds one in the portal',
    RENEWAL,
    [...SUBSCRIBE_TRIAL, 'retrieveCustomer', 'createPortalSession'],
  ),
];
