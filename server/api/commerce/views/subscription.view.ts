// A subscription as the Commerce interface shows it: the same subscription as the Checkout
// interface's, with PascalCase statuses and the plan's `timeUnit`/`timeInterval` spelling.
import type { components } from '../../../../generated/commerce.js';
import type { DescribedSubscription } from '../../../domain/billing/subscription.service.js';
import { decimalToAmount } from '../../../shared/money.js';
import { SUBSCRIPTION_STATUS } from '../wire-values.js';

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
});
