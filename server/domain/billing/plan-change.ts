// Plan changes (upgrade or downgrade) with exact proration, by the second of the current period:
// the unused part of the old plan is credited, the rest of the period on the new plan is charged,
// each rounded half-up to the currency's minor unit on its own. The net is charged at once to the
// card on file (an upgrade), or kept as the subscription's credit and taken off its next invoices
// (a downgrade). The period and its end do not move.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { SubscriptionDetails, SubscriptionRow } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { minorUnits } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { findOwnPlan } from '../catalog/catalog.service.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { raiseBillingInvoice } from '../invoices/invoice-billing.js';
import { chargeInvoice } from './period-billing.js';
import { subscriptionEvent } from './subscription-events.js';
import { findSubscription, lockSubscription, updateItemPlan, updateSubscription } from './subscription.repository.js';

/** What a plan change costs, at `at`: decimal text in the subscription's currency. */
export interface Proration {
  previousPlanId: number;
  planId: number;
  /** The unused part of the old plan, credited. */
  credit: string;
  /** The rest of the period on the new plan, charged. */
  charge: string;
  /** charge − credit: charged at once when positive, kept as credit when negative. */
  proratedAmount: string;
  currency: string;
  at: Date;
  periodEnd: Date;
}

/** Statuses a plan can be changed in; the others pay, resume or start again first. */
const CHANGEABLE = ['active', 'trialing'];

const refuse = (message: string) => new AppError('subscription_not_changeable', { message });
const invalid = (message: string) => new AppError('validation_error', { param: 'planId', message });

/** The new plan: the merchant's, available, active and recurring, billed in the same currency and interval. */
async function targetPlan(db: Db, s: SubscriptionRow, planId: number): Promise<Plan> {
  if (!CHANGEABLE.includes(s.status)) throw refuse(`This subscription is ${s.status}; only an active or trialing subscription can change plan.`);
  // Till's design: usage already recorded has no price in another plan, so a metered subscription keeps its plan.
  if ((await findOwnPlan(db, tenantOf(s), s.plan_id))?.billing_type === 'usage')
    throw refuse('This subscription is on a Usage plan (billed by usage) and cannot change plan; cancel it and start a new one.');
  const plan = await findOwnPlan(db, tenantOf(s), planId);
  if (!plan || plan.status !== 'available' || !plan.active) throw invalid('planId must be one of your available, active plans.');
  if (plan.billing_type !== 'recurring')
    throw invalid(
      'planId must be a Recurring plan: a OneTime plan is bought once at checkout, and a Usage plan bills by usage (start a new subscription on it).',
    );
  if (plan.currency !== s.currency) throw invalid(`planId must be a plan in the subscription's currency (${s.currency}).`);
  if (plan.interval !== s.interval || plan.interval_count !== s.interval_count) {
    throw invalid(
      `planId must bill every ${s.interval_count} ${s.interval}(s), like the subscription; start a new subscription to change the billing interval.`,
    );
  }
  return plan;
}

/** The proration of moving `s` (quantity of its first item) from its plan to `plan` at `at`. Nothing is prorated in a trial (nothing was paid). */
export function prorate(s: SubscriptionDetails, plan: Plan, at: Date): Proration {
  const base = { previousPlanId: s.plan_id, planId: plan.id, currency: s.currency, at, periodEnd: s.current_period_end };
  const digits = minorUnits(s.currency);
  const total = s.current_period_end.getTime() - s.current_period_start.getTime();
  const left = Math.max(0, Math.floor((s.current_period_end.getTime() - at.getTime()) / 1000));
  if (s.status === 'trialing' || total <= 0) return { ...base, credit: '0', charge: '0', proratedAmount: '0' };
  const fraction = new Decimal(left).dividedBy(Math.floor(total / 1000));
  const quantity = s.items[0]?.quantity ?? 1;
  const part = (amount: string) => new Decimal(amount).times(quantity).times(fraction).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  const credit = part(s.amount);
  const charge = part(plan.amount);
  return { ...base, credit: credit.toFixed(digits), charge: charge.toFixed(digits), proratedAmount: charge.minus(credit).toFixed(digits) };
}

/** What changing to `planId` now would cost, without changing anything (the same checks as the change). */
export async function previewPlanChange(db: Db, clock: Clock, tenant: Tenant, id: number, planId: number): Promise<Proration> {
  const s = await findSubscription(db, tenant, id);
  if (!s) throw new AppError('resource_not_found', { param: 'id', message: `No such subscription: ${id}.` });
  return prorate(s, await targetPlan(db, s, planId), clock.now());
}

/** An upgrade's net is charged now: an invoice for the rest of the period on the new plan, less the credit. Declined: nothing changes. */
async function chargeUpgrade(trx: Trx, clock: Clock, s: SubscriptionDetails, plan: Plan, p: Proration): Promise<number | null> {
  const customer = await findOwnCustomer(trx, tenantOf(s), s.customer_id);
  const invoice = await raiseBillingInvoice(trx, clock, {
    tenant: tenantOf(s),
    subscriptionId: s.id,
    customer: { id: s.customer_id, email: customer?.email ?? null, name: customer?.name ?? null },
    currency: s.currency,
    lines: [{ name: `${plan.name}, rest of the period`, description: `Unused time on ${s.plan_name} credited`, quantity: 1, unitAmount: p.charge }],
    credit: p.credit,
    periodStart: p.at,
    periodEnd: p.periodEnd,
    description: `Plan change from ${s.plan_name} to ${plan.name}`,
  });
  const bill = await chargeInvoice(trx, clock, s, invoice.id);
  if (!bill.paid) {
    throw new AppError('card_declined', {
      param: 'planId',
      message: `The card on file was declined for the plan change (${bill.failure?.message ?? 'declined'}); the subscription is unchanged.`,
    });
  }
  return bill.payment?.id ?? null;
}

/**
 * Moves a subscription to another plan of the same currency and interval, prorated: an upgrade's
 * net is charged at once to the card on file (declined: 400 `card_declined`, nothing changes), a
 * downgrade's is added to the subscription's credit for its next invoices. `subscription.updated`
 * carries `previousPlanId` and the net `proratedAmount`. The same plan changes nothing, no event.
 */
export async function changeSubscriptionPlan(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: number,
  input: { planId: number },
): Promise<{ subscription: SubscriptionDetails; proration: Proration }> {
  return db.transaction().execute(async (trx) => {
    const row = await lockSubscription(trx, tenant, id);
    if (!row) throw new AppError('resource_not_found', { param: 'id', message: `No such subscription: ${id}.` });
    const s = (await findSubscription(trx, tenant, id))!;
    const plan = await targetPlan(trx, row, input.planId);
    const proration = prorate(s, plan, clock.now());
    if (plan.id === s.plan_id) return { subscription: s, proration };
    const net = new Decimal(proration.proratedAmount);
    const paymentId = net.greaterThan(0) ? await chargeUpgrade(trx, clock, s, plan, proration) : null;
    await updateItemPlan(trx, tenant, s.id, s.plan_id, { planId: plan.id, amount: plan.amount });
    const credit = net.isNegative() ? new Decimal(row.credit_balance).minus(net).toFixed() : row.credit_balance;
    const changed = await updateSubscription(trx, row, { plan_id: plan.id, amount: plan.amount, credit_balance: credit }, clock.now());
    await subscriptionEvent(trx, clock, 'subscription.updated', changed, {
      reason: 'plan_changed',
      previousPlanId: s.plan_id,
      proratedAmount: proration.proratedAmount,
      paymentId,
    });
    return { subscription: changed, proration };
  });
}
