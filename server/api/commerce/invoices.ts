import {
  createItemizedInvoice,
  getInvoiceByReference,
  getIssuedInvoice,
  invoicePaymentOptions,
  listIssuedInvoices,
} from '../../domain/invoices/itemized-invoice.js';
import { sendInvoiceTo } from '../../domain/invoices/invoice-send.js';
import { getInvoiceByIdentifier, invoicePageUrl } from '../../domain/invoices/invoice.service.js';
import { issuedInvoice, locationOf } from '../../domain/invoices/invoice-issuer.js';
import type { InvoiceRow } from '../../domain/invoices/invoice.tables.js';
import { compileQuery } from '../../odata/index.js';
import { qrPng } from '../../rails/wallet-qr.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { invoiceResource } from './odata/invoices.js';
import { odataList } from './odata-list.js';
import { commerceInvoiceInput, commerceInvoiceView, paymentOptionView } from './views/invoice.view.js';

/** Checks `$expand` (declared navigations only); every answer carries them all anyway. */
const checkExpand = (expand: string | undefined) => compileQuery(invoiceResource, expand === undefined ? {} : { $expand: expand });

export const commerceInvoiceHandlers: CommerceHandlers = {
  async createCommerceInvoice({ db, deps, tenant, body }) {
    const { invoice, merchant, location } = await issuedInvoice(db, await createItemizedInvoice(db, deps.clock, tenant, commerceInvoiceInput(body)));
    return created(commerceInvoiceView(invoice, merchant, deps.config.publicBaseUrl, location));
  },
  async getCommerceInvoice({ db, deps, tenant, path, query }) {
    checkExpand(query.$expand);
    const { invoice, merchant, location } = await getIssuedInvoice(db, tenant, path.id);
    return ok(commerceInvoiceView(invoice, merchant, deps.config.publicBaseUrl, location));
  },
  async getInvoiceByReference({ db, deps, path, query }) {
    checkExpand(query.$expand);
    const { invoice, merchant, location } = await getInvoiceByReference(db, path.code);
    return ok(commerceInvoiceView(invoice, merchant, deps.config.publicBaseUrl, location));
  },
  async listCommerceInvoices({ db, deps, tenant, query }) {
    const compiled = compileQuery(invoiceResource, query);
    const { page, merchant, locations } = await listIssuedInvoices(db, tenant, compiled);
    const view = (invoice: InvoiceRow) => commerceInvoiceView(invoice, merchant, deps.config.publicBaseUrl, locationOf(invoice, locations));
    return ok(odataList(page, compiled, '/v1/invoice', view));
  },
  async listInvoicePaymentMethods({ db, tenant, path }) {
    const { invoice, options } = await invoicePaymentOptions(db, tenant, path.id);
    return ok({ value: options.map((option) => paymentOptionView(option, invoice.currency)) });
  },
  async getInvoiceQrCode({ db, deps, path }) {
    const invoice = await getInvoiceByIdentifier(db, path.identifier);
    const png = await qrPng(invoicePageUrl(deps.config, invoice), 512);
    return { status: 200, body: png, headers: { 'content-type': 'image/png', 'cache-control': 'public, max-age=300' } };
  },
  async sendCommerceInvoice({ db, deps, tenant, path, body }) {
    const { invoice, merchant, location } = await issuedInvoice(db, await sendInvoiceTo(db, deps.clock, deps.config, tenant, path.id, body ?? {}));
    return ok(commerceInvoiceView(invoice, merchant, deps.config.publicBaseUrl, location));
  },
};
