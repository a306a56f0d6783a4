// A subscription started from a subscription payment link, as the Commerce interface shows it:
// the subscription (`CommerceSubscription`), its first invoice and the billing details.
import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/commerce.js';
import type { Merchant } from '../../../db/tables/merchants.js';
import type { SubscriptionDetails, SubscriptionStatus } from '../../../db/tables/subscriptions.js';
import type { LinkSubscription } from '../../../domain/links/link-subscription.js';
import { decimalToAmount, minorUnits } from '../../../shared/money.js';
import { commerceInvoiceView } from './invoice.view.js';
import { linkPlanView } from './payment-link.view.js';

type Schemas = components['schemas'];

const STATUS: Record<SubscriptionStatus, Schemas['CommerceSubscriptionStatus']> = { active: 'Active', trialing: 'Trialing', past_due: 'PastDue', unpaid: 'Unpaid', paused: 'Paused', canceled: 'Canceled', pending: 'Pending' };
const TIME_UNIT = { day: 'Day', week: 'Week', month: 'Month', year: 'Year' } as const;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A subscription as `CommerceSubscription` (the Checkout interface's subscription, Commerce spelling). */
export function commerceSubscriptionView(s: SubscriptionDetails, productId: number): Schemas['CommerceSubscription'] {
  return {
    id: s.id,
    merchantId: s.merchant_id,
    clientId: s.customer_id,
    clientEmail: s.client_email,
    planId: s.plan_id,
    planName: s.plan_name,
    productId,
    status: STATUS[s.status],
    amount: decimalToAmount(s.amount, s.currency),
    currency: s.currency,
    timeUnit: TIME_UNIT[s.interval],
    timeInterval: s.interval_count,
    startDate: s.start_date.toISOString(),
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    trialEnd: iso(s.trial_end),
    cancelAtPeriodEnd: s.cancel_at !== null && s.cancel_at.getTime() === s.current_period_end.getTime(),
    cancelAt: iso(s.cancel_at),
    canceledAt: iso(s.canceled_at),
    pausedAt: iso(s.paused_at),
    createdDateTime: s.created_at.toISOString(),
  };
}

/** `{subscription, invoice, billing}` of `CreateSubscription`. */
export function linkSubscriptionView(started: LinkSubscription, merchant: Merchant, baseUrl: string): Schemas['PaymentLinkSubscriptionCreated'] {
  const { subscription, invoice, plan } = started;
  const digits = minorUnits(plan.currency);
  const planView = linkPlanView(plan, started.productName);
  return {
    subscription: commerceSubscriptionView(subscription, plan.product_id),
    invoice: invoice ? commerceInvoiceView(invoice, merchant, baseUrl) : null,
    billing: {
      planId: plan.id,
      planName: plan.name,
      amount: planView.amount,
      currency: plan.currency,
      timeUnit: planView.timeUnit,
      timeInterval: plan.interval_count,
      subscriptionBillingType: planView.subscriptionBillingType,
      amountDueNow: new Decimal(invoice?.total ?? 0).toFixed(digits),
      nextBillingDate: plan.billing_type === 'one_time' ? null : subscription.current_period_end.toISOString(),
      invoicePageUrl: invoice ? `${baseUrl}/invoice/${invoice.identifier}` : null,
    },
  };
}
