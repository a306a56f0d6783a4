import { createCustomer, getCustomer, listCustomers } from '../../domain/customers/customer.service.js';
import type { Customer } from '../../domain/customers/customer.tables.js';
import { customersWithCardOnFile } from '../../domain/payments/cards-on-file.js';
import type { Db } from '../../db/database.js';
import type { Tenant } from '../../shared/tenant.js';
import { envelope, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { customerView } from './views/catalog.view.js';

/** Customers are shared by both modes, their cards on file are not: `hasPaymentMethod` is the caller's mode's. */
async function customerViews(db: Db, tenant: Tenant, customers: Customer[]) {
  const withCard = await customersWithCardOnFile(
    db,
    tenant,
    customers.map((c) => c.id),
  );
  return (c: Customer) => customerView(c, withCard.has(c.id));
}

export const customerHandlers: CheckoutHandlers = {
  async createCustomer({ db, deps, tenant, body }) {
    const { customer, created } = await createCustomer(db, deps.clock, tenant, body);
    // A customer this request made has no card on file yet: no read for it.
    if (created) return { status: 201, body: envelope(customerView(customer, false)) };
    return ok(envelope((await customerViews(db, tenant, [customer]))(customer)));
  },
  async listCustomers({ db, tenant, query }) {
    const page = await listCustomers(db, tenant, { ...pageOf(query, 10), email: query.email, externalId: query.externalId });
    return ok(envelope(listOf(page, await customerViews(db, tenant, page.data))));
  },
  async retrieveCustomer({ db, tenant, path }) {
    const customer = await getCustomer(db, tenant, path.id);
    return ok(envelope((await customerViews(db, tenant, [customer]))(customer)));
  },
};
