// The dashboard's reads of payments (the API reads one payment at a time; the dashboard lists
// them): pages newest first, a payment's refunds, the daily figures of the home page's chart.
import type { Db } from '../../db/database.js';
import type { Tenant } from '../../shared/tenant.js';
import {
  type DailyPayments,
  findDailyPayments,
  findPaymentPage,
  findRefundsOfPayment,
  type PaymentCursor,
  type PaymentListFilter,
  type PaymentListItem,
} from './payment-list.repository.js';

export type { DailyPayments, PaymentCursor, PaymentListFilter, PaymentListItem };

/** A page of the tenant's payments, newest first (keyset on the id), one more row than `limit` when more follow. */
export const listPaymentPage = (db: Db, tenant: Tenant, filter: PaymentListFilter, cursor: PaymentCursor): Promise<PaymentListItem[]> =>
  findPaymentPage(db, tenant, filter, cursor);

/** A payment's refunds, oldest first. */
export const refundsOfPayment = (db: Db, tenant: Tenant, paymentId: number) => findRefundsOfPayment(db, tenant, paymentId);

/** The tenant's payments per day since `since`: volume and how many succeeded and failed. */
export const dailyPayments = (db: Db, tenant: Tenant, since: Date): Promise<DailyPayments[]> => findDailyPayments(db, tenant, since);
