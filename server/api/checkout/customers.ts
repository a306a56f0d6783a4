import { createCustomer, getCustomer, listCustomers } from '../../domain/customers/customer.service.js';
import { envelope, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { customerView } from './views/catalog.view.js';

export const customerHandlers: CheckoutHandlers = {
  async createCustomer({ db, deps, tenant, body }) {
    const { customer, created } = await createCustomer(db, deps.clock, tenant, body);
    return { status: created ? 201 : 200, body: envelope(customerView(customer)) };
  },
  async listCustomers({ db, tenant, query }) {
    return ok(envelope(listOf(await listCustomers(db, tenant, { ...pageOf(query, 10), email: query.email, externalId: query.externalId }), customerView)));
  },
  async retrieveCustomer({ db, tenant, path }) {
    return ok(envelope(customerView(await getCustomer(db, tenant, path.id))));
  },
};
