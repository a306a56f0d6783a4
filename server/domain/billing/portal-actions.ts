// What the customer does to a subscription in the portal: pause, resume, cancel, switch plan. The
// subscription must be the portal customer's, in the portal's mode (anyone else's is 404, like a
// missing one); then the very functions the API calls run, so the same events follow.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { SubscriptionDetails } from './subscription.tables.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import { changeSubscriptionPlan, previewPlanChange, type Proration } from './plan-change.js';
import type { OpenPortal } from './portal-card.js';
import { portalSubscription, switchablePlans } from './portal-view.js';
import { cancelSubscription, pauseSubscription, resumeSubscription } from './subscription-changes.js';

/** The `reason` the portal's changes carry on their `subscription.*` events. */
export const PORTAL_REASON = 'customer_portal';

export type PortalSubscriptionAction = 'pause' | 'resume' | 'cancel_at_period_end' | 'cancel_now';

/** Pauses, resumes or cancels one of the portal customer's subscriptions; a refused transition is the function's own AppError. */
export async function actOnSubscription(db: Kysely<Database>, portal: OpenPortal, id: number, action: PortalSubscriptionAction): Promise<SubscriptionDetails> {
  const { session, clock } = portal;
  await portalSubscription(db, session, id);
  const tenant = tenantOf(session);
  if (action === 'pause') return pauseSubscription(db, clock, tenant, id, { reason: PORTAL_REASON });
  if (action === 'resume') return resumeSubscription(db, clock, tenant, id);
  return cancelSubscription(db, clock, tenant, id, { cancelAtPeriodEnd: action === 'cancel_at_period_end', reason: PORTAL_REASON });
}

/** A subscription of the portal's customer and the plans it may switch to. */
export async function planChoices(db: Kysely<Database>, portal: OpenPortal, id: number): Promise<{ subscription: SubscriptionDetails; plans: Plan[] }> {
  const subscription = await portalSubscription(db, portal.session, id);
  return { subscription, plans: await switchablePlans(db, subscription) };
}

/** The plan offered to switch to, or 400 naming `planId` when it is not one of the offers. */
async function offeredPlan(
  db: Kysely<Database>,
  portal: OpenPortal,
  id: number,
  planId: number | undefined,
): Promise<{ subscription: SubscriptionDetails; plan: Plan }> {
  const { subscription, plans } = await planChoices(db, portal, id);
  const plan = plans.find((p) => p.id === planId);
  if (!plan) throw new AppError('validation_error', { param: 'planId', message: 'Choose one of the plans offered for this subscription.' });
  return { subscription, plan };
}

/** What switching to the plan would cost now (credit, charge, net), changing nothing. */
export async function previewPortalPlanChange(
  db: Kysely<Database>,
  portal: OpenPortal,
  id: number,
  planId: number | undefined,
): Promise<{ subscription: SubscriptionDetails; plan: Plan; proration: Proration }> {
  const { subscription, plan } = await offeredPlan(db, portal, id, planId);
  return { subscription, plan, proration: await previewPlanChange(db, portal.clock, tenantOf(portal.session), id, plan.id) };
}

/** Switches the plan, prorated, as the API does (an upgrade's net is charged to the card on file). */
export async function changePortalPlan(
  db: Kysely<Database>,
  portal: OpenPortal,
  id: number,
  planId: number | undefined,
): Promise<{ subscription: SubscriptionDetails; proration: Proration }> {
  const { plan } = await offeredPlan(db, portal, id, planId);
  return changeSubscriptionPlan(db, portal.clock, tenantOf(portal.session), id, { planId: plan.id });
}
