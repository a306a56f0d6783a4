import { archivePlan, createPlan, getPlan, listPlans, updatePlan } from '../../domain/catalog/catalog.service.js';
import { planToCheckout } from '../../domain/catalog/checkout.mapper.js';
import { envelope } from '../envelope.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

export const planHandlers: CheckoutHandlers = {
  async createPlan({ db, deps, auth, body }) {
    const plan = await createPlan(db, deps.clock, merchantOf(auth), body);
    return { status: 201, body: envelope(planToCheckout(plan)) };
  },
  async listPlans({ db, auth, query }) {
    const page = await listPlans(db, merchantOf(auth), { limit: query.limit ?? 25, startingAfter: query.startingAfter, includeArchived: query.includeArchived === true });
    return { status: 200, body: envelope({ object: 'list' as const, data: page.data.map(planToCheckout), hasMore: page.hasMore }) };
  },
  async retrievePlan({ db, auth, path }) {
    return { status: 200, body: envelope(planToCheckout(await getPlan(db, merchantOf(auth), path.id))) };
  },
  async updatePlan({ db, deps, auth, path, body }) {
    return { status: 200, body: envelope(planToCheckout(await updatePlan(db, deps.clock, merchantOf(auth), path.id, body))) };
  },
  async archivePlan({ db, deps, auth, path }) {
    return { status: 200, body: envelope(planToCheckout(await archivePlan(db, deps.clock, merchantOf(auth), path.id))) };
  },
};
