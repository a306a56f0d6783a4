import { Decimal } from 'decimal.js';
import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { Plan } from '../../db/tables/catalog.js';
import { writeEvent } from '../events/event.service.js';
import { cardsOnFile, keepCardOnFile } from '../payments/cards-on-file.js';
import type { PaymentMethodRow, PaymentRow } from '../../db/tables/payments.js';
import type { Caller } from '../sessions/session.repository.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import { amountToDecimal } from '../../shared/money.js';
import { addDays, addInterval } from '../../shared/time.js';
import { subscriptionEventObject, type SubscriptionView } from './subscription.mapper.js';
import { findSubscription } from './subscription.repository.js';
import type { SubscriptionStatus } from '../../db/tables/subscriptions.js';

type CreateRequest = components['schemas']['CheckoutSessionCreateRequest'];

/** What a subscription session charges, decided at its creation from the plan. */
export interface SubscriptionSessionTerms {
  plan: Plan;
  clientId: number;
  currency: string;
  /** What is paid now: the plan's amount, or 0 when a free trial starts. */
  amountDueNow: string;
  /** Days of free trial; 0 when the first period is paid at once. */
  trialDays: number;
}

function refuse(param: string, message: string): never {
  throw new AppError('validation_error', { param, message });
}

/**
 * Creation rule 7: a subscription session needs one of the caller's available, active plans and
 * one of its customers (anyone else's is refused with `validation_error`). Amount and currency
 * come from the plan; if the caller sends them too they must match it. Holds are for one-time
 * sessions only. With `trialDays` > 0 nothing is paid now.
 */
export async function subscriptionSessionTerms(db: Kysely<Database>, caller: Caller, input: CreateRequest): Promise<SubscriptionSessionTerms> {
  if (input.subscriptionPlanId === undefined) refuse('subscriptionPlanId', 'A subscription session needs subscriptionPlanId.');
  if (input.clientId === undefined) refuse('clientId', 'A subscription session needs clientId, one of your customers.');
  const plan = await db.selectFrom('plans').selectAll().where('merchant_id', '=', caller.merchantId).where('id', '=', input.subscriptionPlanId).executeTakeFirst();
  if (!plan || plan.status !== 'available' || !plan.active) refuse('subscriptionPlanId', 'subscriptionPlanId must be one of your available, active plans.');
  const client = await db.selectFrom('customers').select('id').where('merchant_id', '=', caller.merchantId).where('id', '=', input.clientId).executeTakeFirst();
  if (!client) refuse('clientId', 'clientId must be one of your customers.');
  if (input.captureMethod === 'manual') refuse('captureMethod', 'captureMethod manual (a card hold) is available for oneTime sessions only.');
  if (input.currency !== undefined && input.currency.toUpperCase() !== plan.currency) {
    refuse('currency', `currency must match the plan's (${plan.currency}), or be left out.`);
  }
  if (input.amount !== undefined && !new Decimal(amountToDecimal(input.amount, plan.currency)).equals(new Decimal(plan.amount))) {
    refuse('amount', `amount must match the plan's amount per period (${new Decimal(plan.amount).toFixed()} ${plan.currency}), or be left out.`);
  }
  const trialDays = input.trialDays ?? 0;
  if (trialDays === 0 && new Decimal(plan.amount).lessThan(1)) {
    throw new AppError('amount_too_small', { param: 'amount', message: `The plan's amount (the session's amount) is below the minimum of 1.00 ${plan.currency} a session can charge; start it with trialDays or use another plan.` });
  }
  return { plan, clientId: input.clientId, currency: plan.currency, amountDueNow: trialDays > 0 ? '0' : plan.amount, trialDays };
}

interface NewSubscription {
  session: CheckoutSessionRow;
  /** When it starts: its start date and the start of its first period. */
  start: Date;
  status: SubscriptionStatus;
  periodEnd: Date;
  trialEnd: Date | null;
  paymentMethodId: string | null;
}

/** Inserts the subscription and its one item (the session's plan) for the session's customer. */
async function insertSubscription(trx: Transaction<Database>, s: NewSubscription): Promise<SubscriptionView> {
  const { session, start: now } = s;
  const caller = { merchantId: session.merchant_id, livemode: session.livemode };
  const plan = await trx.selectFrom('plans').selectAll().where('merchant_id', '=', session.merchant_id).where('id', '=', session.subscription_plan_id!).executeTakeFirstOrThrow();
  const row = await trx
    .insertInto('subscriptions')
    .values({
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
      cancel_at: null,
      canceled_at: null,
      paused_at: null,
      payment_method_id: s.paymentMethodId,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('subscription_items')
    .values({ subscription_id: row.id, merchant_id: session.merchant_id, livemode: session.livemode, plan_id: plan.id, quantity: 1, amount: plan.amount, currency: plan.currency, created_at: now })
    .execute();
  return findSubscription(trx, caller, row.id);
}

async function linkSession(trx: Transaction<Database>, session: CheckoutSessionRow, subscriptionId: number): Promise<CheckoutSessionRow> {
  return trx.updateTable('checkout_sessions').set({ subscription_id: subscriptionId }).where('id', '=', session.id).returningAll().executeTakeFirstOrThrow();
}

const eventOf = (s: SubscriptionView, session: CheckoutSessionRow, type: string, object: Record<string, unknown>, paymentId: number | null = null) => ({
  merchantId: s.merchant_id,
  livemode: s.livemode,
  type,
  object,
  sessionId: session.id,
  paymentId,
});

/**
 * A free trial starts as the session is created (nothing is paid now): the subscription is
 * `trialing` until `trialEnd` (that is its current period), no card is kept (the customer adds
 * one in the portal before the trial ends), and `subscription.created` is written. Call it in the
 * transaction that creates the completed session.
 */
export async function startTrialSubscription(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, trialDays: number): Promise<CheckoutSessionRow> {
  const now = clock.now();
  const trialEnd = addDays(now, trialDays);
  const subscription = await insertSubscription(trx, { session, start: now, status: 'trialing', periodEnd: trialEnd, trialEnd, paymentMethodId: null });
  await writeEvent(trx, clock, eventOf(subscription, session, 'subscription.created', subscriptionEventObject(subscription)));
  return linkSession(trx, session, subscription.id);
}

/** Whether the customer already has a card on file in this mode (cards are per mode). */
async function customerHasCardOnFile(trx: Transaction<Database>, method: PaymentMethodRow, customerId: number): Promise<boolean> {
  return (await cardsOnFile(trx, method, customerId).where('id', '!=', method.id).executeTakeFirst()) !== undefined;
}

/**
 * The first period of a subscription session is paid: the subscription starts `active` for one
 * plan interval from now (calendar months and years), linked to the session and to its first
 * invoice, with the paying card on file for its renewals. The card also becomes the customer's
 * when they had none yet (`hasPaymentMethod` becomes true). Writes `subscription.created` (as
 * created, `Pending`) then `subscription.activated` (first payment). Does nothing for a one-time
 * session, so every path that charges a session can call it.
 */
export async function startPaidSubscription(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, payment: PaymentRow, method: PaymentMethodRow | null): Promise<CheckoutSessionRow> {
  if (session.payment_type !== 'subscription' || session.subscription_id !== null) return session;
  const now = clock.now();
  const plan = await trx.selectFrom('plans').select(['interval', 'interval_count']).where('merchant_id', '=', session.merchant_id).where('id', '=', session.subscription_plan_id!).executeTakeFirstOrThrow();
  const periodEnd = addInterval(now, plan.interval, plan.interval_count);
  const created = await insertSubscription(trx, { session, start: now, status: 'pending', periodEnd, trialEnd: null, paymentMethodId: method?.id ?? null });
  await writeEvent(trx, clock, eventOf(created, session, 'subscription.created', subscriptionEventObject(created), payment.id));
  await trx.updateTable('subscriptions').set({ status: 'active', updated_at: now }).where('id', '=', created.id).execute();
  const active: SubscriptionView = { ...created, status: 'active', updated_at: now };
  await writeEvent(trx, clock, eventOf(active, session, 'subscription.activated', subscriptionEventObject(active, { previousStatus: 'pending', reason: 'first_payment' }), payment.id));
  if (payment.invoice_id !== null) {
    await trx.updateTable('invoices').set({ subscription_id: created.id, customer_id: session.client_id, period_start: now, period_end: periodEnd, due_date: now }).where('id', '=', payment.invoice_id).execute();
  }
  if (method && session.client_id !== null) {
    // The customer's row is locked so that two first payments racing cannot both find no card.
    await trx.selectFrom('customers').select('id').where('id', '=', session.client_id).where('merchant_id', '=', session.merchant_id).forUpdate().executeTakeFirst();
    if (!(await customerHasCardOnFile(trx, method, session.client_id))) await keepCardOnFile(trx, clock, method, session.client_id);
  }
  return linkSession(trx, session, created.id);
}
