// A subscription that waits for its first payment (a subscription payment link starts one): it is
// `pending` with its first invoice open; paying that invoice (payinvoice, the invoice page) makes
// it `active` for one plan interval from then, with the paying card on file for the renewals.
// A `OneTime` plan's subscription covers that one period (its end scheduled from the start, as at
// checkout); no subscription starts on a `Usage` plan (the caller offers none).
import type { Trx } from '../../db/database.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { SubscriptionDetails, SubscriptionRow } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { addInterval } from '../../shared/time.js';
import { findOwnPlan } from '../catalog/catalog.service.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { raiseBillingInvoice } from '../invoices/invoice-billing.js';
import { hasOtherCardOnFile, keepCardOnFile } from '../payments/cards-on-file.js';
import { findPaymentMethod } from '../payments/payment-method.repository.js';
import { findPayment } from '../payments/payment.repository.js';
import { subscriptionEvent } from './subscription-events.js';
import {
  type DescribedSubscription,
  dueAtOf,
  findDescribedSubscription,
  insertItem,
  insertSubscription,
  lockSubscription,
  updateSubscription,
} from './subscription.repository.js';

/** Who subscribes: one of the merchant's customers. */
export interface Subscriber {
  id: number;
  email: string | null;
  name: string | null;
}

/** Starts `customer`'s subscription on `plan` (Recurring or OneTime), pending with its first invoice; `subscription.created`. */
export async function startPendingSubscription(
  trx: Trx,
  clock: Clock,
  tenant: Tenant,
  plan: Plan,
  customer: Subscriber,
): Promise<{ subscription: DescribedSubscription; invoice: InvoiceRow }> {
  const now = clock.now();
  const periodEnd = addInterval(now, plan.interval, plan.interval_count);
  const status = 'pending';
  const row = await insertSubscription(trx, {
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    customer_id: customer.id,
    plan_id: plan.id,
    session_id: null,
    status,
    amount: plan.amount,
    currency: plan.currency,
    interval: plan.interval,
    interval_count: plan.interval_count,
    start_date: now,
    current_period_start: now,
    current_period_end: periodEnd,
    trial_end: null,
    cancel_at: null,
    canceled_at: null,
    paused_at: null,
    payment_method_id: null,
    billing_anchor: now,
    next_due_at: dueAtOf({ status, current_period_end: periodEnd, cancel_at: null, next_retry_at: null }),
    created_at: now,
    updated_at: now,
  });
  await insertItem(trx, {
    subscription_id: row.id,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    plan_id: plan.id,
    quantity: 1,
    amount: plan.amount,
    currency: plan.currency,
    created_at: now,
  });
  const invoice = await raiseBillingInvoice(trx, clock, {
    tenant,
    subscriptionId: row.id,
    customer,
    currency: plan.currency,
    lines: [{ name: plan.name, description: plan.description ?? undefined, quantity: 1, unitAmount: plan.amount }],
    credit: '0',
    periodStart: now,
    periodEnd,
    description: `Subscription to ${plan.name}`,
  });
  const details = await updateSubscription(trx, (await lockSubscription(trx, tenant, row.id))!, { open_invoice_id: invoice.id }, now);
  await subscriptionEvent(trx, clock, 'subscription.created', details, { reason: 'payment_link' });
  return { subscription: (await findDescribedSubscription(trx, tenant, row.id))!, invoice };
}

/**
 * The first invoice of a pending subscription was paid: it is active for one interval from now,
 * the paying card kept on file (and the customer's, when they had none); `subscription.activated`.
 */
export async function activateOnFirstPayment(trx: Trx, clock: Clock, s: SubscriptionRow, paymentId: number): Promise<SubscriptionDetails> {
  const tenant = tenantOf(s);
  const now = clock.now();
  const payment = await findPayment(trx, tenant, paymentId);
  const method = payment?.payment_method_id ? await findPaymentMethod(trx, tenant, payment.payment_method_id) : undefined;
  if (method) {
    await findOwnCustomer(trx, tenant, s.customer_id, { lock: true });
    if (!(await hasOtherCardOnFile(trx, method, s.customer_id))) await keepCardOnFile(trx, clock, method, s.customer_id);
  }
  const periodEnd = addInterval(now, s.interval, s.interval_count);
  const oneTime = (await findOwnPlan(trx, tenant, s.plan_id))?.billing_type === 'one_time';
  const changes = {
    status: 'active' as const,
    open_invoice_id: null,
    payment_method_id: method?.id ?? null,
    current_period_start: now,
    current_period_end: periodEnd,
    billing_anchor: now,
    cancel_at: oneTime ? periodEnd : null,
    cancel_at_period_end: oneTime,
  };
  const active = await updateSubscription(trx, s, changes, now);
  await subscriptionEvent(trx, clock, 'subscription.activated', active, { previousStatus: 'pending', reason: 'first_payment', paymentId });
  return active;
}
