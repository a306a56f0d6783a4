import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import { precompiledInsert } from '../../db/precompiled.js';
import type { PaymentRow, PaymentsTable, PaymentStatus, RefundsTable } from './payment.tables.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { Tenant } from '../../shared/tenant.js';

// Payments and their refunds, always of one tenant. The due-work queries look across tenants of a
// scope and answer each row's tenant, so that the work on it is scoped again.

export async function insertPayment(db: Db, values: Insertable<PaymentsTable>): Promise<PaymentRow> {
  return (await insertPaymentRows(db, [values]))[0]!;
}

const insertPaymentRows = precompiledInsert(
  (db) => db.insertInto('payments'),
  (insert) => insert.returningAll(),
);

export async function findPayment(
  db: Db,
  tenant: Tenant,
  id: number,
  options: { lock?: boolean; fromSession?: boolean } = {},
): Promise<PaymentRow | undefined> {
  let query = db.selectFrom('payments').selectAll().where('id', '=', id).where(ofTenant(tenant));
  if (options.fromSession) query = query.where('session_id', 'is not', null);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Changes a payment; with `whileStatus`, only while it has that status (else undefined). */
export async function updatePayment(
  db: Db,
  tenant: Tenant,
  id: number,
  changes: Updateable<PaymentsTable>,
  whileStatus?: PaymentStatus,
): Promise<PaymentRow | undefined> {
  let query = db.updateTable('payments').set(changes).where('id', '=', id).where(ofTenant(tenant));
  if (whileStatus !== undefined) query = query.where('status', '=', whileStatus);
  return query.returningAll().executeTakeFirst();
}

/** A session's payment in a status (a live QR code is `pending`), optionally locked. */
export async function findSessionPayment(
  db: Db,
  tenant: Tenant,
  sessionId: string,
  status: PaymentStatus,
  options: { lock?: boolean } = {},
): Promise<PaymentRow | undefined> {
  const query = db.selectFrom('payments').selectAll().where('session_id', '=', sessionId).where(ofTenant(tenant)).where('status', '=', status);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Moves a session's payment out of a status (the live QR code ends); answers it, or undefined when there was none. */
export async function updateSessionPayment(
  db: Db,
  tenant: Tenant,
  sessionId: string,
  fromStatus: PaymentStatus,
  changes: Updateable<PaymentsTable>,
): Promise<PaymentRow | undefined> {
  return db
    .updateTable('payments')
    .set(changes)
    .where('session_id', '=', sessionId)
    .where(ofTenant(tenant))
    .where('status', '=', fromStatus)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The payload of a live QR code by its token: the image URL's unguessable name is its credential,
 * so this read does not start from a tenant. Undefined once the code is paid, withdrawn or expired.
 */
export async function findLiveQrData(db: Db, token: string, now: Date): Promise<string | undefined> {
  const row = await db
    .selectFrom('payments')
    .select('qr_data')
    .where('qr_token', '=', token)
    .where('status', '=', 'pending')
    .where('qr_expires_at', '>', now)
    .executeTakeFirst();
  return row?.qr_data ?? undefined;
}

export async function insertRefund(db: Db, values: Insertable<RefundsTable>): Promise<void> {
  await db.insertInto('refunds').values(values).execute();
}

/** Marks a payment's pending refunds succeeded; answers their amounts and whether each came from the balance. */
export async function completePendingRefunds(db: Db, tenant: Tenant, paymentId: number): Promise<{ amount: string; from_balance: boolean }[]> {
  return db
    .updateTable('refunds')
    .set({ status: 'succeeded' })
    .where('payment_id', '=', paymentId)
    .where(ofTenant(tenant))
    .where('status', '=', 'pending')
    .returning(['amount', 'from_balance'])
    .execute();
}

/** A payment found by due work: enough to scope the work on it. */
export interface DuePayment {
  id: number;
  merchant_id: number;
  livemode: boolean;
}

/** The payments of a scope that fall due by a timestamp column: `status` among `statuses`, the column at or before `until`, earliest first. */
export async function findDuePayments(
  db: Db,
  scope: DueScope,
  due: { statuses: readonly PaymentStatus[]; column: 'authorization_expires_at' | 'captured_at' | 'refund_completes_at'; until: Date; unsettledOnly?: boolean },
  limit: number,
): Promise<DuePayment[]> {
  let query = db
    .selectFrom('payments')
    .select(['id', 'merchant_id', 'livemode'])
    .where('status', 'in', due.statuses)
    .where(inScope(scope, 'payments'))
    .where(due.column, '<=', due.until);
  if (due.unsettledOnly) query = query.where('settled_at', 'is', null);
  return query.orderBy(due.column).limit(limit).execute();
}

/** The earliest value of a due column after `after` among a scope's payments in `statuses`. */
export async function nextDuePayment(
  db: Db,
  scope: DueScope,
  due: { statuses: readonly PaymentStatus[]; column: 'authorization_expires_at' | 'captured_at' | 'refund_completes_at'; after: Date; unsettledOnly?: boolean },
): Promise<Date | null> {
  let query = db
    .selectFrom('payments')
    .select((eb) => eb.fn.min(due.column).as('at'))
    .where('status', 'in', due.statuses)
    .where(inScope(scope, 'payments'))
    .where(due.column, '>', due.after);
  if (due.unsettledOnly) query = query.where('settled_at', 'is', null);
  const row = await query.executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/**
 * The payments made towards one of the tenant's invoices, oldest first, locked: always in id order,
 * so that two refunds of one invoice (or one of them and a refund of a single payment) queue up
 * rather than deadlock, and the second reads what the first left.
 */
export async function lockInvoicePayments(db: Db, tenant: Tenant, invoiceId: number): Promise<PaymentRow[]> {
  return db.selectFrom('payments').selectAll().where('invoice_id', '=', invoiceId).where(ofTenant(tenant)).orderBy('id').forUpdate().execute();
}

/** The checkout sessions the payments of `paymentIds` were made through (for `payment.*` events without a session of their own). */
export async function sessionsOfPayments(db: Db, paymentIds: number[]): Promise<Map<number, string>> {
  const sessions = new Map<number, string>();
  if (paymentIds.length === 0) return sessions;
  for (const p of await db.selectFrom('payments').select(['id', 'session_id']).where('id', 'in', paymentIds).execute())
    if (p.session_id) sessions.set(p.id, p.session_id);
  return sessions;
}

/**
 * For a join in another statement (the transactions list): the reference numbers of the tenant's
 * payments, and of those its wallet accounts paid to another merchant (its side of them is in its ledger).
 */
export function paymentReferences(db: Db, tenant: Tenant) {
  return db
    .selectFrom('payments')
    .select(['id', 'reference_number'])
    .where('livemode', '=', tenant.livemode)
    .where((eb) => eb.or([eb('merchant_id', '=', tenant.merchantId), eb('source_merchant_id', '=', tenant.merchantId)]));
}

/** A payment of the tenant by its reference number (`PAY…`), locked for the rest of the transaction, or undefined. */
export async function findPaymentByReference(db: Db, tenant: Tenant, reference: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where(ofTenant(tenant)).where('reference_number', '=', reference).forUpdate().executeTakeFirst();
}
