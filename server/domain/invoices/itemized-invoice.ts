// The Commerce interface's invoices: created with typed items, shipping and a validity period,
// read by id, by public code and as an OData list, sent by email (and text). They are
// the same rows the Checkout interface's `/v1/invoices` shows.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow, PayerAddress } from './invoice.tables.js';
import type { Merchant, PaymentOption } from '../merchants/merchant.tables.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newReference } from '../../shared/ids.js';
import { currencyCode } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { findMerchantById, getMerchant } from '../merchants/merchant.service.js';
import { type NewInvoiceItem, computeItemTotals } from './item-totals.js';
import { findInvoiceByPublicCode, findInvoicePage, insertInvoice, nextLineIds, referenceInUse } from './invoice.repository.js';
import { getInvoice } from './invoice.service.js';
import { type IssuedInvoice, issuedInvoice, issuingLocations, locationOf } from './invoice-issuer.js';
import type { MerchantLocation } from '../merchants/identity.tables.js';
import { locationsById, ownLocation } from '../merchants/location.service.js';

/** A new itemized invoice: amounts in the currency's units as exact decimal text, dates as Dates. */
export interface NewItemizedInvoice {
  currency: string;
  items: NewInvoiceItem[];
  description?: string | undefined;
  notes?: string | undefined;
  taxRate?: number | undefined;
  discount?: string | undefined;
  shippingCost?: string | undefined;
  dueDate?: Date | undefined;
  validFrom?: Date | undefined;
  validTo?: Date | undefined;
  reference?: string | undefined;
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
  draft?: boolean | undefined;
  /** One of the merchant's locations; its primary one when omitted. */
  merchantLocationId?: number | undefined;
  payer?:
    | { firstName?: string | undefined; lastName?: string | undefined; email?: string | undefined; phone?: string | undefined; address: PayerAddress }
    | undefined;
}

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });
const at = (date: Date | undefined) => date ?? null;

function checkDates(input: NewItemizedInvoice): void {
  const [from, to, due] = [at(input.validFrom), at(input.validTo), at(input.dueDate)];
  if (from && to && to.getTime() <= from.getTime()) throw invalid('validTo', 'validTo must follow validFrom.');
  if (due && to && due.getTime() > to.getTime()) throw invalid('paymentDueDate', 'paymentDueDate must not be after validTo.');
}

const referenceTaken = (wanted: string) =>
  new AppError('parameter_invalid', {
    param: 'referenceNumber',
    message: `The referenceNumber ${wanted} is already used by another of your invoices; choose another or leave it out.`,
  });

/** The merchant's reference: unique among the tenant's invoices only (the public key is the invoice's public code). */
async function referenceFor(db: Db, tenant: Tenant, wanted: string | undefined): Promise<string> {
  if (wanted === undefined) return newReference('INVREF');
  if (await referenceInUse(db, tenant, wanted)) throw referenceTaken(wanted);
  return wanted;
}

/** Creates an itemized invoice, `pending` (payable) or `draft`, with exact totals (item-totals.ts). */
export async function createItemizedInvoice(db: Kysely<Database>, clock: Clock, tenant: Tenant, input: NewItemizedInvoice): Promise<InvoiceRow> {
  checkDates(input);
  const currency = currencyCode(input.currency, 'currencyCode');
  const totals = computeItemTotals(currency, input.items, await nextLineIds(db, input.items.length), input);
  const reference = await referenceFor(db, tenant, input.reference);
  const location =
    input.merchantLocationId === undefined ? undefined : await ownLocation(db, tenant.merchantId, input.merchantLocationId, 'merchantLocationId');
  const payer = input.payer;
  const hasAddress = payer !== undefined && Object.keys(payer.address).length > 0;
  const row = insertInvoice(db, {
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    identifier: randomUUID(),
    reference,
    invoice_number: newReference('INV'),
    status: input.draft ? 'draft' : 'pending',
    currency,
    subtotal: totals.subTotal,
    tax_amount: totals.taxAmount,
    discount: totals.discount,
    shipping_cost: totals.shippingCost,
    total: totals.totalCost,
    amount_paid: '0',
    amount_refunded: '0',
    payer_email: payer?.email ?? null,
    payer_first_name: payer?.firstName ?? null,
    payer_last_name: payer?.lastName ?? null,
    payer_phone: payer?.phone ?? null,
    payer_address: hasAddress ? JSON.stringify(payer.address) : null,
    description: input.description ?? null,
    notes: input.notes ?? null,
    tax_rate: input.taxRate === undefined ? null : input.taxRate.toString(),
    due_date: at(input.dueDate),
    valid_from: at(input.validFrom),
    valid_to: at(input.validTo),
    success_url: input.successUrl ?? null,
    cancel_url: input.cancelUrl ?? null,
    line_items: JSON.stringify(totals.lines),
    session_id: null,
    paid_at: null,
    created_at: clock.now(),
    merchant_location_id: location?.id,
  });
  // Two creates racing for one referenceNumber: the unique index refuses the second.
  return row.catch((error: unknown) => {
    throw isUniqueViolation(error, 'invoices_tenant_reference_key') ? referenceTaken(reference) : error;
  });
}

export type { IssuedInvoice } from './invoice-issuer.js';

/** The tenant's invoice with its merchant and location; 404 for anyone else's. */
export async function getIssuedInvoice(db: Db, tenant: Tenant, id: number): Promise<IssuedInvoice> {
  return issuedInvoice(db, await getInvoice(db, tenant, id));
}

/** No merchant and no location has this id: what the look-ups of an unknown code (or a known one without a location) ask for. */
const NO_MERCHANT = 0;
const NO_LOCATION = 0;

/**
 * An invoice by its public code (Till's 128 random bits, never the merchant's reference), whoever
 * owns it, with its merchant and location; 404 `invoice_not_found` tells nothing more. A known and
 * an unknown code take the same work: the same three look-ups (the invoice, then its merchant and
 * issuing location, or none), so the time of the answer does not tell whether a code exists.
 */
export async function getInvoiceByReference(db: Db, code: string): Promise<IssuedInvoice> {
  const invoice = await findInvoiceByPublicCode(db, code);
  const merchantId = invoice?.merchant_id ?? NO_MERCHANT;
  const [merchant, locations] = await Promise.all([
    findMerchantById(db, merchantId),
    locationsById(db, merchantId, [invoice?.merchant_location_id ?? NO_LOCATION]),
  ]);
  if (!invoice || !merchant) throw new AppError('invoice_not_found', { param: 'code', message: 'No such invoice.' });
  return { invoice, merchant, location: locationOf(invoice, locations) };
}

/** One page of the tenant's invoices (the tenant ANDed outside the caller's filter), their merchant and issuing locations (by id). */
export async function listIssuedInvoices(
  db: Db,
  tenant: Tenant,
  query: ListQuery,
): Promise<{ page: ListPage<InvoiceRow>; merchant: Merchant; locations: Map<number, MerchantLocation> }> {
  const [rows, merchant] = await Promise.all([findInvoicePage(db, tenant, query), getMerchant(db, tenant.merchantId)]);
  return { page: rows, merchant, locations: await issuingLocations(db, tenant.merchantId, rows.data) };
}

/**
 * The merchant's payment options that can pay the invoice: those for its currency (an option
 * without `currencies` takes every currency), switched-off ones included (`enabled` false).
 */
export async function invoicePaymentOptions(db: Db, tenant: Tenant, id: number): Promise<{ invoice: InvoiceRow; options: PaymentOption[] }> {
  const { invoice, merchant } = await getIssuedInvoice(db, tenant, id);
  const options = merchant.payment_options.filter((o) => !o.currencies || o.currencies.includes(invoice.currency));
  return { invoice, options };
}
