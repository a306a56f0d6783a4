import { changeSubscriptionPlan, previewPlanChange } from '../../domain/billing/plan-change.js';
import { cancelSubscription, pauseSubscription, resumeSubscription } from '../../domain/billing/subscription-changes.js';
import { recordItemUsage, usageReport } from '../../domain/billing/usage.js';
import { getSubscription, listSubscriptionInvoices, listSubscriptions } from '../../domain/billing/subscription.service.js';
import { envelope, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { subscriptionInvoiceView } from './views/invoice.view.js';
import { prorationView, subscriptionView, usageRecordView } from './views/subscription.view.js';

export const subscriptionHandlers: CheckoutHandlers = {
  async retrieveSubscription({ db, tenant, path }) {
    return ok(envelope(subscriptionView(await getSubscription(db, tenant, path.id))));
  },
  async listSubscriptions({ db, tenant, query }) {
    const page = await listSubscriptions(db, tenant, { ...pageOf(query, 25), clientId: query.clientId, status: query.status, planId: query.planId });
    return ok(envelope(listOf(page, subscriptionView)));
  },
  async cancelSubscription({ db, deps, tenant, path, body }) {
    return ok(
      envelope(
        subscriptionView(await cancelSubscription(db, deps.clock, tenant, path.id, { cancelAtPeriodEnd: body?.cancelAtPeriodEnd, reason: body?.reason })),
      ),
    );
  },
  async pauseSubscription({ db, deps, tenant, path, body }) {
    return ok(envelope(subscriptionView(await pauseSubscription(db, deps.clock, tenant, path.id, { reason: body?.reason }))));
  },
  async resumeSubscription({ db, deps, tenant, path }) {
    return ok(envelope(subscriptionView(await resumeSubscription(db, deps.clock, tenant, path.id))));
  },
  async previewSubscriptionPlanChange({ db, deps, tenant, path, query }) {
    return ok(envelope(prorationView(await previewPlanChange(db, deps.clock, tenant, path.id, query.planId))));
  },
  async changeSubscriptionPlan({ db, deps, tenant, path, body }) {
    const { subscription, proration } = await changeSubscriptionPlan(db, deps.clock, tenant, path.id, { planId: body.planId });
    return ok(envelope({ object: 'plan_change' as const, subscription: subscriptionView(subscription), proration: prorationView(proration) }));
  },
  async createUsageRecord({ db, deps, tenant, path, body }) {
    const recorded = await recordItemUsage(db, deps.clock, tenant, path.id, usageReport(body));
    return { status: recorded.created ? 201 : 200, body: envelope(usageRecordView(recorded)) };
  },
  async listSubscriptionInvoices({ db, tenant, path, query }) {
    return ok(envelope(listOf(await listSubscriptionInvoices(db, tenant, path.id, pageOf(query, 100)), subscriptionInvoiceView)));
  },
};
