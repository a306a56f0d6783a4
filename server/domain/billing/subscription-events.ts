import type { Db } from '../../db/database.js';
import type { SubscriptionDetails, SubscriptionStatus } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { tenantOf } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import { writeEvent } from '../events/event.service.js';

/** What changed, as a `subscription.*` event tells it. */
export interface SubscriptionChange {
  /** Why: the reason given to cancel or pause, or Till's (`renewal`, `payment_failed`, `trial_ended`, …). */
  reason?: string | null | undefined;
  /** On status transitions: the status before. */
  previousStatus?: SubscriptionStatus | undefined;
  /** `subscription.updated`: the plan before, and the net proration (decimal text, a charge when positive). */
  previousPlanId?: number;
  proratedAmount?: string;
  sessionId?: string | null;
  paymentId?: number | null;
}

/**
 * Writes a `subscription.*` event: the whole subscription after the change, once per change. A
 * status transition (the status differs from `previousStatus`) adds the previous status and why.
 */
export async function subscriptionEvent(
  db: Db,
  clock: Clock,
  type: EventType,
  subscription: SubscriptionDetails,
  change: SubscriptionChange = {},
): Promise<void> {
  const transition = change.previousStatus !== undefined && change.previousStatus !== subscription.status;
  const stored = {
    reason: change.reason ?? null,
    ...(transition ? { previousStatus: change.previousStatus } : {}),
    ...(change.previousPlanId !== undefined ? { previousPlanId: change.previousPlanId, proratedAmount: change.proratedAmount ?? '0' } : {}),
  };
  await writeEvent(db, clock, {
    tenant: tenantOf(subscription),
    type,
    subject: { kind: 'subscription', subscription, change: stored },
    sessionId: change.sessionId ?? null,
    paymentId: change.paymentId ?? null,
  });
}
