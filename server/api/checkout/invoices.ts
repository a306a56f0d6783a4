import { refundInvoice } from '../../domain/invoice-payments/invoice-refund.js';
import { invoicePdfFilename, renderInvoicePdf } from '../../domain/invoices/invoice-pdf.js';
import { getInvoice, listInvoices, sendInvoice, voidInvoice } from '../../domain/invoices/invoice.service.js';
import { createInvoice } from '../../domain/invoices/invoice-create.js';
import { created, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { invoiceRefundView, invoiceView, newInvoiceOf } from './views/invoice.view.js';

export const invoiceHandlers: CheckoutHandlers = {
  async createInvoice({ db, deps, tenant, body }) {
    return created(invoiceView(await createInvoice(db, deps.clock, deps.config, tenant, newInvoiceOf(body)), deps.config.publicBaseUrl));
  },
  async retrieveInvoice({ db, deps, tenant, path }) {
    return ok(invoiceView(await getInvoice(db, tenant, path.id), deps.config.publicBaseUrl));
  },
  async listInvoices({ db, deps, tenant, query }) {
    const page = await listInvoices(db, tenant, { ...pageOf(query, 25), reference: query.reference, status: query.status, customerId: query.customerId });
    return ok(listOf(page, (invoice) => invoiceView(invoice, deps.config.publicBaseUrl)));
  },
  async voidInvoice({ db, deps, tenant, path }) {
    return ok(invoiceView(await voidInvoice(db, deps.clock, tenant, path.id), deps.config.publicBaseUrl));
  },
  async getInvoicePdf({ db, tenant, path }) {
    const invoice = await getInvoice(db, tenant, path.id);
    const pdf = await renderInvoicePdf(db, tenant, invoice.id);
    return {
      status: 200,
      body: pdf,
      headers: { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="${invoicePdfFilename(invoice)}"` },
    };
  },
  async sendInvoice({ db, deps, tenant, path }) {
    return ok(invoiceView(await sendInvoice(db, deps.clock, deps.config, tenant, path.id), deps.config.publicBaseUrl));
  },
  async refundInvoice({ db, deps, tenant, path, body }) {
    return ok(invoiceRefundView(await refundInvoice(db, deps.clock, tenant, path.id, body ?? {})));
  },
};
