import { getSubscription, listSubscriptionInvoices, listSubscriptions } from '../../domain/billing/subscription.service.js';
import { envelope, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { subscriptionInvoiceView } from './views/invoice.view.js';
import { subscriptionView } from './views/subscription.view.js';

// Cancel, pause and resume come with renewals; until then they answer 501.
export const subscriptionHandlers: CheckoutHandlers = {
  async retrieveSubscription({ db, tenant, path }) {
    return ok(envelope(subscriptionView(await getSubscription(db, tenant, path.id))));
  },
  async listSubscriptions({ db, tenant, query }) {
    const page = await listSubscriptions(db, tenant, { ...pageOf(query, 25), clientId: query.clientId, status: query.status, planId: query.planId });
    return ok(envelope(listOf(page, subscriptionView)));
  },
  async listSubscriptionInvoices({ db, tenant, path, query }) {
    return ok(envelope(listOf(await listSubscriptionInvoices(db, tenant, path.id, pageOf(query, 25)), subscriptionInvoiceView)));
  },
};
