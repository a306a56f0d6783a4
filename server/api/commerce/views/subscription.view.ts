// A subscription as the Commerce interface shows it: the same subscription as the Checkout
// interface's, with PascalCase statuses and the plan's `timeUnit`/`timeInterval` spelling.
import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/commerce.js';
import type { DescribedSubscription } from '../../../domain/billing/subscription.service.js';
import type { RecordedUsage } from '../../../domain/billing/usage.js';
import { decimalToAmount, minorUnits } from '../../../shared/money.js';
import { SUBSCRIPTION_STATUS } from '../wire-values.js';
import { BILLING_TYPE_OF } from './catalog.view.js';

type Schemas = components['schemas'];

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export const commerceSubscriptionView = (s: DescribedSubscription): Schemas['CommerceSubscription'] => ({
  id: s.id,
  merchantId: s.merchant_id,
  clientId: s.customer_id,
  clientEmail: s.client_email,
  planId: s.plan_id,
  planName: s.plan_name,
  productId: s.product_id,
  status: SUBSCRIPTION_STATUS[s.status] as Schemas['CommerceSubscriptionStatus'],
  amount: decimalToAmount(s.amount, s.currency),
  currency: s.currency,
  timeUnit: (s.interval.charAt(0).toUpperCase() + s.interval.slice(1)) as Schemas['CommerceSubscription']['timeUnit'],
  timeInterval: s.interval_count,
  startDate: s.start_date.toISOString(),
  currentPeriodStart: s.current_period_start.toISOString(),
  currentPeriodEnd: s.current_period_end.toISOString(),
  trialEnd: iso(s.trial_end),
  cancelAtPeriodEnd: s.cancel_at_period_end,
  cancelAt: iso(s.cancel_at),
  canceledAt: iso(s.canceled_at),
  pausedAt: iso(s.paused_at),
  createdDateTime: s.created_at.toISOString(),
  subscriptionBillingType: BILLING_TYPE_OF[s.plan_billing_type],
  isMetered: s.plan_billing_type === 'usage',
});

/** A usage record as this interface shows it: decimal strings, `createdDateTime`. */
export function commerceUsageRecordView(u: RecordedUsage): Schemas['CommerceUsageRecord'] {
  const { record, subscription: s } = u;
  const item = s.items.find((i) => i.id === record.subscription_item_id)!;
  return {
    id: record.id,
    subscriptionId: s.id,
    subscriptionItemId: record.subscription_item_id,
    quantity: record.quantity,
    usageId: record.usage_id,
    timestamp: record.recorded_at.toISOString(),
    createdDateTime: record.created_at.toISOString(),
    created: u.created,
    periodUsage: Number(u.periodUsage),
    periodAmount: new Decimal(u.periodUsage).times(item.amount).toFixed(minorUnits(s.currency)),
    currency: s.currency,
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
  };
}
