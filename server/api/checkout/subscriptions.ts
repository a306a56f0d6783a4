import { envelope } from '../envelope.js';
import { subscriptionInvoiceToCheckout, subscriptionToCheckout } from '../../domain/subscriptions/subscription.mapper.js';
import { getSubscription, listSubscriptionInvoices, listSubscriptions } from '../../domain/subscriptions/subscription.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });

// Cancel, pause and resume come with renewals; until then they answer 501.
export const subscriptionHandlers: CheckoutHandlers = {
  async retrieveSubscription({ db, auth, path }) {
    return { status: 200, body: envelope(subscriptionToCheckout(await getSubscription(db, caller(auth), path.id))) };
  },
  async listSubscriptions({ db, auth, query }) {
    const page = await listSubscriptions(db, caller(auth), { limit: query.limit ?? 25, startingAfter: query.startingAfter, clientId: query.clientId, status: query.status, planId: query.planId });
    return { status: 200, body: envelope({ object: 'list' as const, data: page.data.map(subscriptionToCheckout), hasMore: page.hasMore }) };
  },
  async listSubscriptionInvoices({ db, auth, path, query }) {
    const page = await listSubscriptionInvoices(db, caller(auth), path.id, { limit: query.limit ?? 25, startingAfter: query.startingAfter });
    return { status: 200, body: envelope({ object: 'list' as const, data: page.data.map(subscriptionInvoiceToCheckout), hasMore: page.hasMore }) };
  },
};
