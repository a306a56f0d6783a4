// Subscriptions as the Commerce interface lists and cancels them: the Checkout interface's
// subscriptions, with its cancel rules and events.
import { cancelDescribedSubscription, listDescribedSubscriptions } from '../../domain/billing/subscription.service.js';
import { recordSubscriptionUsage, usageReport } from '../../domain/billing/usage.js';
import { compileQuery } from '../../odata/index.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { subscriptionResource } from './odata/subscriptions.js';
import { odataList } from './odata-list.js';
import { commerceSubscriptionView, commerceUsageRecordView } from './views/subscription.view.js';

export const commerceSubscriptionHandlers: CommerceHandlers = {
  async listCommerceSubscriptions({ db, tenant, query }) {
    const compiled = compileQuery(subscriptionResource, query);
    return ok(odataList(await listDescribedSubscriptions(db, tenant, compiled), compiled, '/v1/subscription', commerceSubscriptionView));
  },
  async cancelCommerceSubscription({ db, deps, tenant, path, body }) {
    const input = { cancelAtPeriodEnd: body?.cancelAtPeriodEnd, reason: body?.reason };
    return ok(commerceSubscriptionView(await cancelDescribedSubscription(db, deps.clock, tenant, path.id, input)));
  },
  async recordCommerceSubscriptionUsage({ db, deps, tenant, path, body }) {
    const recorded = await recordSubscriptionUsage(db, deps.clock, tenant, path.id, usageReport(body));
    return { status: recorded.created ? 201 : 200, body: commerceUsageRecordView(recorded) };
  },
};
