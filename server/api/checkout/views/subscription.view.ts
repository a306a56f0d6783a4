import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/checkout.js';
import type { SubscriptionDetails, SubscriptionStatus } from '../../../domain/billing/subscription.tables.js';
import type { Proration } from '../../../domain/billing/plan-change.js';
import type { RecordedUsage } from '../../../domain/billing/usage.js';
import { decimalToAmount } from '../../../shared/money.js';
import { SUBSCRIPTION_STATUS } from '../../commerce/wire-values.js';

type Schemas = components['schemas'];

/** The events' status words: the Commerce interface's one map (the type check holds them to the contract's). */
const PASCAL: Record<SubscriptionStatus, Schemas['SubscriptionEventObject']['status']> = SUBSCRIPTION_STATUS;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A subscription as the REST interface shows it (inside the envelope). */
export const subscriptionView = (s: SubscriptionDetails): Schemas['Subscription'] => ({
  id: s.id,
  object: 'subscription',
  status: s.status,
  clientId: s.customer_id,
  clientEmail: s.client_email ?? '',
  planId: s.plan_id,
  planName: s.plan_name,
  amount: decimalToAmount(s.amount, s.currency),
  currency: s.currency,
  interval: s.interval,
  intervalCount: s.interval_count,
  startDate: s.start_date.toISOString(),
  currentPeriodStart: s.current_period_start.toISOString(),
  currentPeriodEnd: s.current_period_end.toISOString(),
  trialEnd: iso(s.trial_end),
  cancelAtPeriodEnd: s.cancel_at_period_end,
  cancelAt: iso(s.cancel_at),
  canceledAt: iso(s.canceled_at),
  pausedAt: iso(s.paused_at),
  creditBalance: decimalToAmount(s.credit_balance, s.currency),
  nextPaymentAttempt: s.status === 'past_due' ? iso(s.next_retry_at) : null,
  hasPaymentMethod: s.payment_method_id !== null,
  livemode: s.livemode,
  items: s.items.map((i) => ({
    id: i.id,
    planId: i.plan_id,
    planName: i.plan_name,
    quantity: i.quantity,
    amount: decimalToAmount(i.amount, i.currency),
    currency: i.currency,
    isMetered: i.is_metered,
  })),
});

/** A usage record as the REST interface shows it (inside the envelope), with its item's usage so far. */
export function usageRecordView(u: RecordedUsage): Schemas['UsageRecord'] {
  const { record, subscription: s } = u;
  const item = s.items.find((i) => i.id === record.subscription_item_id)!;
  return {
    object: 'usage_record',
    id: record.id,
    subscriptionId: s.id,
    subscriptionItemId: record.subscription_item_id,
    quantity: record.quantity,
    usageId: record.usage_id,
    timestamp: record.recorded_at.toISOString(),
    createdAt: record.created_at.toISOString(),
    created: u.created,
    periodUsage: Number(u.periodUsage),
    periodAmount: decimalToAmount(new Decimal(u.periodUsage).times(item.amount).toFixed(), s.currency),
    currency: s.currency,
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    livemode: s.livemode,
  };
}

/**
 * The `subscription` object of `subscription.*` events: the whole subscription after the change,
 * statuses in PascalCase; a status transition adds `previousStatus`, a plan change `previousPlanId`
 * and `proratedAmount`.
 */
export function subscriptionEventObject(
  s: SubscriptionDetails,
  change: { reason: string | null; previousStatus?: SubscriptionStatus; previousPlanId?: number; proratedAmount?: string },
): Schemas['SubscriptionEventObject'] {
  return {
    object: 'subscription',
    id: s.id,
    clientId: s.customer_id,
    clientEmail: s.client_email,
    status: PASCAL[s.status],
    ...(change.previousStatus ? { previousStatus: PASCAL[change.previousStatus] } : {}),
    reason: change.reason ?? null,
    startDate: s.start_date.toISOString(),
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    cancelAtPeriodEnd: s.cancel_at_period_end,
    cancelAt: iso(s.cancel_at),
    canceledAt: iso(s.canceled_at),
    items: s.items.map((i) => ({
      id: i.id,
      planId: i.plan_id,
      planName: i.plan_name,
      quantity: i.quantity,
      amount: decimalToAmount(i.amount, i.currency),
      isMetered: i.is_metered,
    })),
    ...(change.previousPlanId !== undefined
      ? { previousPlanId: change.previousPlanId, proratedAmount: decimalToAmount(change.proratedAmount ?? '0', s.currency) }
      : {}),
    isLive: s.livemode,
    createdAt: s.created_at.toISOString(),
  };
}

/** Where a proration's net goes. */
const settlementOf = (p: Proration): Schemas['Proration']['settlement'] => {
  const net = Number(p.proratedAmount);
  return net > 0 ? 'charged_now' : net < 0 ? 'credited' : 'none';
};

/** A plan change's proration. */
export const prorationView = (p: Proration): Schemas['Proration'] => ({
  object: 'proration',
  previousPlanId: p.previousPlanId,
  planId: p.planId,
  credit: decimalToAmount(p.credit, p.currency),
  charge: decimalToAmount(p.charge, p.currency),
  proratedAmount: decimalToAmount(p.proratedAmount, p.currency),
  currency: p.currency,
  prorationDate: p.at.toISOString(),
  periodEnd: p.periodEnd.toISOString(),
  settlement: settlementOf(p),
});
