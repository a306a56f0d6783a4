// Who issued an invoice, as the Commerce interface shows it: the merchant and the merchant
// location (the one named at creation, else the merchant's primary one when it was made).
import type { Db } from '../../db/database.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { MerchantLocation } from '../merchants/identity.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import { locationsById } from '../merchants/location.service.js';
import { getMerchant } from '../merchants/merchant.service.js';

/** An invoice, the merchant that issued it and its issuing location (null once that location is gone). */
export interface IssuedInvoice {
  invoice: InvoiceRow;
  merchant: Merchant;
  location: MerchantLocation | null;
}

/** The invoice with its merchant and issuing location. */
export async function issuedInvoice(db: Db, invoice: InvoiceRow): Promise<IssuedInvoice> {
  const [merchant, locations] = await Promise.all([
    getMerchant(db, invoice.merchant_id),
    locationsById(db, invoice.merchant_id, [invoice.merchant_location_id]),
  ]);
  return { invoice, merchant, location: locationOf(invoice, locations) };
}

/** The issuing location of an invoice among its merchant's locations (by id). */
export const locationOf = (invoice: InvoiceRow, locations: Map<number, MerchantLocation>): MerchantLocation | null =>
  invoice.merchant_location_id === null ? null : (locations.get(invoice.merchant_location_id) ?? null);

/** The issuing locations of a page of one merchant's invoices, by id. */
export const issuingLocations = (db: Db, merchantId: number, invoices: InvoiceRow[]): Promise<Map<number, MerchantLocation>> =>
  locationsById(
    db,
    merchantId,
    invoices.map((i) => i.merchant_location_id),
  );
