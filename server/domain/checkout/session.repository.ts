import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { placeholderRows, precompiled, rowsShape, rowsValues } from '../../db/precompiled.js';
import { inScope, ofTenant } from '../../db/scope.js';
import type { CheckoutSessionRow, CheckoutSessionsTable } from './session.tables.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { Tenant } from '../../shared/tenant.js';
import { merchantRatePlans, merchantSessionDefault } from '../merchants/merchant.repository.js';

/** Unpaid sessions, which expiry and cancel act on. */
export const OPEN_STATUSES = ['created', 'payment_pending', 'processing'] as const;

export async function findSessionRow(db: Db, tenant: Tenant, id: string, options: { lock?: boolean } = {}): Promise<CheckoutSessionRow | undefined> {
  return (await sessionRowQuery(db, [id, tenant.merchantId, tenant.livemode], options.lock ? 'lock' : '')).rows[0];
}

/** A session by id (value(0)) in a tenant (value(1), value(2)); shape `lock` locks it. */
const sessionRowQuery = precompiled((db, value, shape) => {
  const query = db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', value(0))
    .where(ofTenant({ merchantId: value(1), livemode: value(2) }));
  return shape === 'lock' ? query.forUpdate() : query;
});

/** A new session's row; `notify_customer` and `send_receipt` left null take the merchant's settings. */
export type NewSession = Omit<Insertable<CheckoutSessionsTable>, 'notify_customer' | 'send_receipt'> & {
  notify_customer: boolean | null;
  send_receipt: boolean | null;
};

/** Inserts a session. The merchant's settings for what was left null are read by the same statement. */
export async function insertSession(db: Db, values: NewSession): Promise<CheckoutSessionRow> {
  const columns = (Object.keys(values) as Array<keyof NewSession>).filter(
    (column) => values[column] !== undefined && !(MERCHANT_SETTING[column] && values[column] === null),
  );
  const { rows } = await insertSessionQuery(db, [values.merchant_id, ...columns.map((column) => values[column])], columns.join(','));
  return rows[0]!;
}

/** The session columns that default to a merchant setting, and that setting's column. */
const MERCHANT_SETTING: Partial<Record<keyof NewSession, 'message_checkout_customers' | 'send_checkout_receipts'>> = {
  notify_customer: 'message_checkout_customers',
  send_receipt: 'send_checkout_receipts',
};

/** The insert for the columns named in `shape` (value(0) is the merchant; each column's value follows). */
const insertSessionQuery = precompiled((db, value, shape) => {
  const row: Record<string, unknown> = Object.fromEntries(shape.split(',').map((column, i) => [column, value(i + 1)]));
  for (const [column, setting] of Object.entries(MERCHANT_SETTING)) row[column] ??= merchantSessionDefault(db, value(0), setting);
  return db
    .insertInto('checkout_sessions')
    .values(row as Insertable<CheckoutSessionsTable>)
    .returningAll();
});

/** Changes a session; with `whileOpen`, only while it is unpaid (else undefined: someone else moved it first). */
export async function updateSession(
  db: Db,
  tenant: Tenant,
  id: string,
  changes: Updateable<CheckoutSessionsTable>,
  options: { whileOpen?: boolean; whilePayment?: number } = {},
): Promise<CheckoutSessionRow | undefined> {
  const shape = rowsShape([changes]);
  const conditions = `${options.whileOpen ? 'open' : ''}|${options.whilePayment !== undefined ? 'payment' : ''}`;
  if (shape === undefined) {
    let query = db.updateTable('checkout_sessions').set(changes).where('id', '=', id).where(ofTenant(tenant));
    if (options.whileOpen) query = query.where('status', 'in', [...OPEN_STATUSES]);
    if (options.whilePayment !== undefined) query = query.where('payment_id', '=', options.whilePayment);
    return query.returningAll().executeTakeFirst();
  }
  const run = [...rowsValues([changes], shape), id, tenant.merchantId, tenant.livemode, options.whilePayment];
  return (await updateSessionQuery(db, run, `${shape}|${conditions}`)).rows[0];
}

/** The update of a session setting the columns of the shape's first part; then its id, tenant and payment; `open` and `payment` add those conditions. */
const updateSessionQuery = precompiled((db, value, shape) => {
  const [columns = '', open, payment] = shape.split('|');
  const [changes] = placeholderRows(columns, value);
  const next = Object.keys(changes!).length;
  let query = db
    .updateTable('checkout_sessions')
    .set(changes as Updateable<CheckoutSessionsTable>)
    .where('id', '=', value(next))
    .where(ofTenant({ merchantId: value(next + 1), livemode: value(next + 2) }));
  if (open) query = query.where('status', 'in', [...OPEN_STATUSES]);
  if (payment) query = query.where('payment_id', '=', value(next + 3));
  return query.returningAll();
});

/** The open session paying an invoice, if any. */
export async function findOpenSessionOnInvoice(db: Db, tenant: Tenant, invoiceId: number): Promise<CheckoutSessionRow | undefined> {
  return (
    db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where(ofTenant(tenant))
      .where('invoice_id', '=', invoiceId)
      .where('pays_invoice', '=', true)
      .where('status', 'in', [...OPEN_STATUSES])
      // A Commerce payment's own session is never shown to a payer (and has no secret to hand out).
      .where('origin', '=', 'checkout')
      .executeTakeFirst()
  );
}

/** Open sessions of a scope whose time has passed by `now`, earliest first. */
export async function findExpiredOpenSessions(db: Db, scope: DueScope, now: Date, limit: number): Promise<CheckoutSessionRow[]> {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('status', 'in', [...OPEN_STATUSES])
    .where(inScope(scope, 'checkout_sessions'))
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Open sessions that wait for no payer: a live wallet QR code or an open 3-D Secure challenge makes a session `payment_pending`. */
const NOT_WAITING_STATUSES = OPEN_STATUSES.filter((status) => status !== 'payment_pending');

/**
 * Marks expired, in one statement, those of `ids` (sessions of the scope) that are open, wait for
 * no payer and are due by `now`; they are locked first, in id order, so that two expiry jobs
 * locking the same sessions at once take them in the same order and never deadlock. Answers the
 * sessions it expired; a session that changed meanwhile (paid, cancelled, expired, now waiting for
 * a payer) is left as it is.
 */
export async function expireSessionsNotWaiting(db: Db, scope: DueScope, ids: string[], now: Date): Promise<CheckoutSessionRow[]> {
  if (ids.length === 0) return [];
  const due = db
    .selectFrom('checkout_sessions')
    .select('id')
    .where(sql<boolean>`id = ANY(${ids}::text[])`)
    .where(inScope(scope, 'checkout_sessions'))
    .where('status', 'in', NOT_WAITING_STATUSES)
    .where('expires_at', '<=', now)
    .orderBy('id')
    .forUpdate();
  return db
    .updateTable('checkout_sessions')
    .set({ status: 'expired', expired_at: now })
    .where('id', 'in', due)
    .where('status', 'in', NOT_WAITING_STATUSES)
    .returningAll()
    .execute();
}

/** When the scope's next open session expires, after `after`. */
export async function nextOpenSessionExpiry(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('checkout_sessions')
    .select((eb) => eb.fn.min('expires_at').as('at'))
    .where('status', 'in', [...OPEN_STATUSES])
    .where(inScope(scope, 'checkout_sessions'))
    .where('expires_at', '>', after)
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/**
 * The session a client secret names, with its merchant's rate plan, for authentication. The
 * secret is the credential, so this read starts from the session id inside it, not from a tenant.
 */
export async function findSessionForSecret(db: Db, sessionId: string) {
  return (await sessionForSecretQuery(db, [sessionId])).rows[0];
}

/** The session value(0), with its merchant's rate plan. */
const sessionForSecretQuery = precompiled((db, value) =>
  db
    .selectFrom('checkout_sessions')
    .innerJoin(merchantRatePlans(db).as('merchants'), 'merchants.id', 'checkout_sessions.merchant_id')
    .select([
      'checkout_sessions.id',
      'checkout_sessions.merchant_id as merchantId',
      'checkout_sessions.livemode',
      'checkout_sessions.client_secret_hash',
      'merchants.rate_plan as ratePlan',
    ])
    .where('checkout_sessions.id', '=', value(0)),
);

/** A session by its id alone: the hosted page's URL names it, and the id is that page's credential for reading. */
export async function findSessionById(db: Db, id: string): Promise<CheckoutSessionRow | undefined> {
  return db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The notification URL of each of `sessionIds` (per-session webhooks), with the session's tenant. */
export async function sessionTargets(
  db: Db,
  sessionIds: string[],
): Promise<Map<string, { merchant_id: number; livemode: boolean; notification_url: string | null }>> {
  const targets = new Map<string, { merchant_id: number; livemode: boolean; notification_url: string | null }>();
  if (sessionIds.length === 0) return targets;
  for (const s of await db
    .selectFrom('checkout_sessions')
    .select(['id', 'merchant_id', 'livemode', 'notification_url'])
    .where('id', 'in', sessionIds)
    .execute())
    targets.set(s.id, s);
  return targets;
}

/** For a join in another statement (a webhook delivery's claim): each session's notification URL and secret, with its merchant. */
export function sessionNotifications(db: Db) {
  return db.selectFrom('checkout_sessions').select(['id', 'merchant_id', 'notification_url', 'notification_secret']);
}
