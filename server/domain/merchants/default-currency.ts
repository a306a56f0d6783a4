// A merchant's default currency (`defaultCurrency`, USD unless set when it was made): the currency
// used where a request leaves one out - the account every merchant has, the dashboards.
import type { Db } from '../../db/database.js';
import { findMerchant } from './merchant.repository.js';

/** The merchant's default currency, ISO 4217 in upper case. */
export async function defaultCurrencyOf(db: Db, merchantId: number): Promise<string> {
  return (await findMerchant(db, merchantId)).default_currency.trim().toUpperCase();
}
