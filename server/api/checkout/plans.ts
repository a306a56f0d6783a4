import { archivePlan, createPlan, getPlan, listPlans, updatePlan } from '../../domain/catalog/catalog.service.js';
import { created, envelope, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { planView } from './views/catalog.view.js';

export const planHandlers: CheckoutHandlers = {
  async createPlan({ db, deps, tenant, body }) {
    return created(envelope(planView(await createPlan(db, deps.clock, tenant, { ...body, amount: String(body.amount) }))));
  },
  async listPlans({ db, tenant, query }) {
    return ok(envelope(listOf(await listPlans(db, tenant, { ...pageOf(query, 25), includeArchived: query.includeArchived === true }), planView)));
  },
  async retrievePlan({ db, tenant, path }) {
    return ok(envelope(planView(await getPlan(db, tenant, path.id))));
  },
  async updatePlan({ db, deps, tenant, path, body }) {
    return ok(envelope(planView(await updatePlan(db, deps.clock, tenant, path.id, body))));
  },
  async archivePlan({ db, deps, tenant, path }) {
    return ok(envelope(planView(await archivePlan(db, deps.clock, tenant, path.id))));
  },
};
