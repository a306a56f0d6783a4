// How a subscription starts: from a subscription checkout session, on a free trial (nothing paid
// now) or with its first period paid. The session itself is the checkout flow's business: these
// functions answer the subscription, and the flow links its session to it.
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { SubscriptionDetails, SubscriptionStatus } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { addDays, addInterval } from '../../shared/time.js';
import { findOwnPlan } from '../catalog/catalog.service.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { linkToSubscription } from '../invoices/invoice-paying.js';
import { defaultCardOnFile, hasOtherCardOnFile, keepCardOnFile } from '../payments/cards-on-file.js';
import { subscriptionEvent } from './subscription-events.js';
import { dueAtOf, findSubscription, insertItem, insertSubscription, lockSubscription, updateSubscription } from './subscription.repository.js';

/** What a subscription session asks for (the fields of a session create that concern it). */
export interface SubscriptionRequest {
  subscriptionPlanId?: number | undefined;
  clientId?: number | undefined;
  captureMethod?: 'automatic' | 'manual' | undefined;
  currency?: string | undefined;
  /** In the currency's units, exact decimal text. */
  amount?: string | undefined;
  trialDays?: number | undefined;
}

/** What a subscription session charges, decided at its creation from the plan. */
export interface SubscriptionSessionTerms {
  plan: Plan;
  clientId: number;
  currency: string;
  /** What is paid now: the plan's amount, or 0 when a free trial starts. */
  amountDueNow: string;
  /** Days of free trial; 0 when the first period is paid at once. */
  trialDays: number;
  /** A `Usage` plan: nothing is paid now, usage is billed at each period's end; the session completes at creation. */
  metered: boolean;
}

function refuse(param: string, message: string): never {
  throw new AppError('validation_error', { param, message });
}

/** Whether a subscription can start on the plan now (anyone else's plan is undefined): available, active, within its validity. */
function checkStartable(plan: Plan | undefined, now: Date): asserts plan is Plan {
  if (!plan || plan.status !== 'available' || !plan.active) refuse('subscriptionPlanId', 'subscriptionPlanId must be one of your available, active plans.');
  if (plan.valid_from !== null && plan.valid_from.getTime() > now.getTime())
    refuse('subscriptionPlanId', `Subscriptions can start on this plan from ${plan.valid_from.toISOString()} (its validFrom).`);
  if (plan.valid_to !== null && plan.valid_to.getTime() <= now.getTime())
    refuse('subscriptionPlanId', `This plan's validity ended at ${plan.valid_to.toISOString()} (its validTo); no new subscription can start on it.`);
}

/**
 * Creation rule 7: a subscription session needs one of the tenant's available, active plans (within
 * its validity) and one of its customers (anyone else's is refused with
 * `validation_error`). Amount and currency come from the plan; if the caller sends them too they
 * must match it. Holds are for one-time sessions only. With `trialDays` > 0 nothing is paid now;
 * a one-time plan takes no trial.
 */
export async function subscriptionSessionTerms(db: Db, now: Date, tenant: Tenant, input: SubscriptionRequest): Promise<SubscriptionSessionTerms> {
  if (input.subscriptionPlanId === undefined) refuse('subscriptionPlanId', 'A subscription session needs subscriptionPlanId.');
  if (input.clientId === undefined) refuse('clientId', 'A subscription session needs clientId, one of your customers.');
  const plan = await findOwnPlan(db, tenant, input.subscriptionPlanId);
  checkStartable(plan, now);
  if (!(await findOwnCustomer(db, tenant, input.clientId))) refuse('clientId', 'clientId must be one of your customers.');
  if (input.captureMethod === 'manual') refuse('captureMethod', 'captureMethod manual (a card hold) is available for oneTime sessions only.');
  if (input.currency !== undefined && input.currency.toUpperCase() !== plan.currency) {
    refuse('currency', `currency must match the plan's (${plan.currency}), or be left out.`);
  }
  if (input.amount !== undefined && !new Decimal(amountToDecimal(input.amount, plan.currency)).equals(new Decimal(plan.amount))) {
    refuse('amount', `amount must match the plan's amount per period (${new Decimal(plan.amount).toFixed()} ${plan.currency}), or be left out.`);
  }
  const trialDays = input.trialDays ?? 0;
  if (trialDays > 0 && plan.billing_type === 'one_time')
    refuse('trialDays', 'A OneTime plan is paid once at checkout and takes no free trial; leave trialDays out.');
  if (plan.billing_type === 'usage') {
    if (trialDays > 0)
      refuse('trialDays', 'A Usage plan bills usage at the end of each period, nothing up front, and takes no free trial; leave trialDays out.');
    return { plan, clientId: input.clientId, currency: plan.currency, amountDueNow: '0', trialDays: 0, metered: true };
  }
  if (trialDays === 0 && new Decimal(plan.amount).lessThan(1)) {
    throw new AppError('amount_too_small', {
      param: 'amount',
      message: `The plan's amount (the session's amount) is below the minimum of 1.00 ${plan.currency} a session can charge; start it with trialDays or use another plan.`,
    });
  }
  return { plan, clientId: input.clientId, currency: plan.currency, amountDueNow: trialDays > 0 ? '0' : plan.amount, trialDays, metered: false };
}

/**
 * The checkout session a subscription starts from: the columns billing reads of its row. Checkout
 * sits above billing (it starts subscriptions), so billing names them rather than importing its type.
 */
export interface SubscribingSession {
  id: string;
  merchant_id: number;
  livemode: boolean;
  payment_type: 'one_time' | 'subscription';
  subscription_plan_id: number | null;
  client_id: number | null;
  subscription_id: number | null;
}

interface NewSubscription {
  session: SubscribingSession;
  /** When it starts: its start date and the start of its first period. */
  start: Date;
  status: SubscriptionStatus;
  periodEnd: Date;
  trialEnd: Date | null;
  paymentMethodId: string | null;
}

/**
 * Inserts the subscription and its one item (the session's plan) for the session's customer. On a
 * one-time plan it covers its first period only: its cancellation is scheduled for that period's
 * end from the start, so it never renews.
 */
async function createSubscription(trx: Trx, s: NewSubscription): Promise<SubscriptionDetails> {
  const { session, start: now } = s;
  const tenant = tenantOf(session);
  const plan = (await findOwnPlan(trx, tenant, session.subscription_plan_id!))!;
  const cancelAt = plan.billing_type === 'one_time' ? s.periodEnd : null;
  const row = await insertSubscription(trx, {
    merchant_id: session.merchant_id,
    livemode: session.livemode,
    customer_id: session.client_id!,
    plan_id: plan.id,
    session_id: session.id,
    status: s.status,
    amount: plan.amount,
    currency: plan.currency,
    interval: plan.interval,
    interval_count: plan.interval_count,
    start_date: now,
    current_period_start: now,
    current_period_end: s.periodEnd,
    trial_end: s.trialEnd,
    cancel_at_period_end: cancelAt !== null,
    cancel_at: cancelAt,
    canceled_at: null,
    paused_at: null,
    payment_method_id: s.paymentMethodId,
    billing_anchor: s.trialEnd ?? now,
    next_due_at: dueAtOf({ status: s.status, current_period_end: s.periodEnd, cancel_at: cancelAt, next_retry_at: null }),
    created_at: now,
    updated_at: now,
  });
  await insertItem(trx, {
    subscription_id: row.id,
    merchant_id: session.merchant_id,
    livemode: session.livemode,
    plan_id: plan.id,
    quantity: 1,
    amount: plan.amount,
    currency: plan.currency,
    created_at: now,
  });
  return (await findSubscription(trx, tenant, row.id))!;
}

/**
 * A free trial starts as the session is created (nothing is paid now): the subscription is
 * `trialing` until `trialEnd` (that is its current period), no card is kept (the customer adds
 * one in the portal before the trial ends), and `subscription.created` is written. Call it in the
 * transaction that creates the completed session.
 */
export async function startTrialSubscription(trx: Trx, clock: Clock, session: SubscribingSession, trialDays: number): Promise<SubscriptionDetails> {
  const now = clock.now();
  const trialEnd = addDays(now, trialDays);
  const subscription = await createSubscription(trx, { session, start: now, status: 'trialing', periodEnd: trialEnd, trialEnd, paymentMethodId: null });
  await subscriptionEvent(trx, clock, 'subscription.created', subscription, { sessionId: session.id });
  return subscription;
}

/**
 * A subscription on a `Usage` plan starts as the session is created (nothing is paid now: its usage
 * is billed at the end of each period): `active` for one plan interval from now, with the
 * customer's default card on file in the session's mode for its invoices (none when they have
 * none: they add one in the portal before the period ends), and `subscription.created`. Call it in
 * the transaction that creates the completed session.
 */
export async function startMeteredSubscription(trx: Trx, clock: Clock, session: SubscribingSession): Promise<SubscriptionDetails> {
  const now = clock.now();
  const tenant = tenantOf(session);
  const plan = (await findOwnPlan(trx, tenant, session.subscription_plan_id!))!;
  const card = await defaultCardOnFile(trx, tenant, session.client_id!);
  const periodEnd = addInterval(now, plan.interval, plan.interval_count);
  const subscription = await createSubscription(trx, { session, start: now, status: 'active', periodEnd, trialEnd: null, paymentMethodId: card?.id ?? null });
  await subscriptionEvent(trx, clock, 'subscription.created', subscription, { sessionId: session.id });
  return subscription;
}

/**
 * The first period of a subscription session is paid: the subscription starts `active` for one
 * plan interval from now (calendar months and years), linked to its first invoice, with the paying
 * card on file for its renewals. The card also becomes the customer's when they had none yet
 * (`hasPaymentMethod` becomes true). Writes `subscription.created` (as created, `Pending`) then
 * `subscription.activated` (first payment). Answers undefined for a session that starts none (a
 * one-time session, or one whose subscription exists), so every path that charges a session can call it.
 */
export async function startPaidSubscription(
  trx: Trx,
  clock: Clock,
  session: SubscribingSession,
  payment: PaymentRow,
  method: PaymentMethodRow | null,
): Promise<SubscriptionDetails | undefined> {
  if (session.payment_type !== 'subscription' || session.subscription_id !== null) return undefined;
  const now = clock.now();
  const tenant = tenantOf(session);
  const plan = (await findOwnPlan(trx, tenant, session.subscription_plan_id!))!;
  const periodEnd = addInterval(now, plan.interval, plan.interval_count);
  const created = await createSubscription(trx, { session, start: now, status: 'pending', periodEnd, trialEnd: null, paymentMethodId: method?.id ?? null });
  await subscriptionEvent(trx, clock, 'subscription.created', created, { sessionId: session.id, paymentId: payment.id });
  const active = await updateSubscription(trx, (await lockSubscription(trx, tenant, created.id))!, { status: 'active' }, now);
  await subscriptionEvent(trx, clock, 'subscription.activated', active, {
    sessionId: session.id,
    paymentId: payment.id,
    previousStatus: 'pending',
    reason: 'first_payment',
  });
  if (payment.invoice_id !== null)
    await linkToSubscription(trx, tenant, payment.invoice_id, { subscriptionId: created.id, customerId: session.client_id, periodStart: now, periodEnd });
  if (method && session.client_id !== null) {
    // The customer's row is locked so that two first payments racing cannot both find no card.
    await findOwnCustomer(trx, tenant, session.client_id, { lock: true });
    if (!(await hasOtherCardOnFile(trx, method, session.client_id))) await keepCardOnFile(trx, clock, method, session.client_id);
  }
  return active;
}
