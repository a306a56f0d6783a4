// A subscription started from a subscription payment link, as the Commerce interface shows it:
// the subscription (the Commerce subscriptions' view), its first invoice and the billing details.
import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/commerce.js';
import type { Merchant } from '../../../domain/merchants/merchant.tables.js';
import type { MerchantLocation } from '../../../domain/merchants/identity.tables.js';
import type { LinkSubscription } from '../../../domain/links/link-subscription.js';
import { minorUnits } from '../../../shared/money.js';
import { commerceInvoiceView } from './invoice.view.js';
import { offeredPlanView } from './payment-link.view.js';
import { commerceSubscriptionView } from './subscription.view.js';

type Schemas = components['schemas'];

/** `{subscription, invoice, billing}` of `CreateSubscription`. */
export function linkSubscriptionView(
  started: LinkSubscription,
  merchant: Merchant,
  baseUrl: string,
  location: MerchantLocation | null,
): Schemas['PaymentLinkSubscriptionCreated'] {
  const { subscription, invoice, plan } = started;
  const digits = minorUnits(plan.currency);
  const planView = offeredPlanView(plan, started.productName);
  return {
    subscription: commerceSubscriptionView(subscription),
    invoice: commerceInvoiceView(invoice, merchant, baseUrl, location),
    billing: {
      planId: plan.id,
      planName: plan.name,
      amount: planView.amount,
      currency: plan.currency,
      timeUnit: planView.timeUnit,
      timeInterval: plan.interval_count,
      subscriptionBillingType: planView.subscriptionBillingType,
      amountDueNow: new Decimal(invoice.total).toFixed(digits),
      nextBillingDate: plan.billing_type === 'one_time' ? null : subscription.current_period_end.toISOString(),
      invoicePageUrl: `${baseUrl}/invoice/${invoice.identifier}`,
    },
  };
}
