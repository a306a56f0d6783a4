import { customerToCheckout } from '../../domain/customers/checkout.mapper.js';
import { createCustomer, getCustomer, listCustomers } from '../../domain/customers/customer.service.js';
import { envelope } from '../envelope.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

export const customerHandlers: CheckoutHandlers = {
  async createCustomer({ db, deps, auth, body }) {
    const { customer, created } = await createCustomer(db, deps.clock, merchantOf(auth), body);
    return { status: created ? 201 : 200, body: envelope(customerToCheckout(customer)) };
  },
  async listCustomers({ db, auth, query }) {
    const page = await listCustomers(db, merchantOf(auth), { limit: query.limit ?? 10, startingAfter: query.startingAfter, email: query.email, externalId: query.externalId });
    return { status: 200, body: envelope({ object: 'list' as const, data: page.data.map(customerToCheckout), hasMore: page.hasMore }) };
  },
  async retrieveCustomer({ db, auth, path }) {
    return { status: 200, body: envelope(customerToCheckout(await getCustomer(db, merchantOf(auth), path.id))) };
  },
};
