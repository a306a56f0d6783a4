// Subscriptions as the Commerce interface lists and cancels them: the Checkout interface's
// subscriptions, with its cancel rules and events.
import { cancelDescribedSubscription, listDescribedSubscriptions } from '../../domain/billing/subscription.service.js';
import { compileQuery } from '../../odata/index.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { subscriptionResource } from './odata/subscriptions.js';
import { odataList } from './odata-list.js';
import { commerceSubscriptionView } from './views/subscription.view.js';

export const commerceSubscriptionHandlers: CommerceHandlers = {
  async listCommerceSubscriptions({ db, tenant, query }) {
    const compiled = compileQuery(subscriptionResource, query);
    return ok(odataList(await listDescribedSubscriptions(db, tenant, compiled), compiled, '/v1/subscription', commerceSubscriptionView));
  },
  async cancelCommerceSubscription({ db, deps, tenant, path, body }) {
    const input = { cancelAtPeriodEnd: body?.cancelAtPeriodEnd, reason: body?.reason };
    return ok(commerceSubscriptionView(await cancelDescribedSubscription(db, deps.clock, tenant, path.id, input)));
  },
};
