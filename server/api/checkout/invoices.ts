import { invoiceToCheckout } from '../../domain/invoices/invoice.mapper.js';
import { createInvoice, getInvoice, listInvoices, voidInvoice } from '../../domain/invoices/invoice.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });

export const invoiceHandlers: CheckoutHandlers = {
  async createInvoice({ db, deps, auth, body }) {
    return { status: 201, body: invoiceToCheckout(await createInvoice(db, deps.clock, deps.config.publicBaseUrl, caller(auth), body), deps.config.publicBaseUrl) };
  },
  async retrieveInvoice({ db, deps, auth, path }) {
    return { status: 200, body: invoiceToCheckout(await getInvoice(db, caller(auth), path.id), deps.config.publicBaseUrl) };
  },
  async listInvoices({ db, deps, auth, query }) {
    const page = await listInvoices(db, caller(auth), { limit: query.limit ?? 25, startingAfter: query.startingAfter, reference: query.reference, status: query.status, customerId: query.customerId });
    return { status: 200, body: { object: 'list', data: page.data.map((i) => invoiceToCheckout(i, deps.config.publicBaseUrl)), hasMore: page.hasMore } };
  },
  async voidInvoice({ db, deps, auth, path }) {
    return { status: 200, body: invoiceToCheckout(await voidInvoice(db, deps.clock, caller(auth), path.id), deps.config.publicBaseUrl) };
  },
};
