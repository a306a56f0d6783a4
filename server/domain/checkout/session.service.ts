// Checkout sessions after their creation: reading (with expiry applied), cancelling, expiring, and
// the rules every payment operation of a session checks first.
import { findSessionPage, type SessionCursor, type SessionListFilter, type SessionListItem } from './session-list.repository.js';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import { type Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import { type NewEvent, writeEvents } from '../events/event.service.js';
import { cancelInvoicesRaisedBy } from '../invoices/invoice-paying.js';
import { findPaymentRecord } from '../payments/payment.service.js';
import { type Refundability, refundabilityNow } from '../payments/refunds.js';
import { challengeFailedEvent, closeOpenChallenge } from '../payments/challenge.service.js';
import { endLiveQr } from '../payments/wallet-payment.js';
import {
  expireSessionsNotWaiting,
  findExpiredOpenSessions,
  findSessionForSecret,
  findSessionRow,
  nextOpenSessionExpiry,
  OPEN_STATUSES,
  updateSession,
} from './session.repository.js';
import { sessionSnapshot } from './session-snapshot.js';

export { OPEN_STATUSES };

/** The tenant's session; 404 for anyone else's, exactly like a missing one. `lock` takes the row for the rest of the transaction. */
export async function findSession(db: Db, tenant: Tenant, id: string, options: { lock?: boolean } = {}): Promise<CheckoutSessionRow> {
  const session = await findSessionRow(db, tenant, id, options);
  if (!session) throw new AppError('resource_not_found', { param: 'id', message: `No such checkout session: ${id}.` });
  return session;
}

/** Writes a `checkout.session.*` event: the session as it is now, and the payment it was paid with (when the event tells of one). */
export async function sessionEvent(db: Db, clock: Clock, type: EventType, session: CheckoutSessionRow, payment: PaymentRow | null = null): Promise<void> {
  await writeEvents(db, clock, sessionEvents(type, [session], payment));
}

/** The events of a `checkout.session.*` change to sessions; none for a session the Commerce interface opened to pay an invoice (its means, not the merchant's session). */
function sessionEvents(type: EventType, sessions: CheckoutSessionRow[], payment: PaymentRow | null = null): NewEvent[] {
  return sessions
    .filter((session) => session.origin !== 'commerce')
    .map((session) => ({
      tenant: tenantOf(session),
      type,
      subject: { kind: 'checkout_session', session: sessionSnapshot(session), payment },
      sessionId: session.id,
      paymentId: payment?.id ?? null,
    }));
}

/** Whether an unpaid session's time has passed. */
const isDue = (session: CheckoutSessionRow, now: Date) => (OPEN_STATUSES as readonly string[]).includes(session.status) && session.expires_at <= now;

/**
 * Closes the session's open 3-D Secure challenge, if any: its waiting payment fails
 * (`payment.failed`) and the session no longer points at it. Answers whether a challenge was open.
 * The caller holds the session's lock.
 */
export async function closeSessionChallenge(
  trx: Trx,
  clock: Clock,
  session: CheckoutSessionRow,
  outcome: 'failed' | 'replaced' | 'expired',
  failure?: { code: string; message: string },
): Promise<boolean> {
  const closed = await closeOpenChallenge(trx, clock, tenantOf(session), session.id, outcome, failure);
  if (!closed) return false;
  if (closed.payment) {
    await updateSession(trx, tenantOf(session), session.id, { payment_id: null }, { whilePayment: closed.payment.id });
    await challengeFailedEvent(trx, clock, closed.payment);
  }
  return true;
}

/**
 * Marks one unpaid session expired if its time has passed, writing `checkout.session.expired`.
 * The UPDATE only matches an unpaid session, so whoever gets there first (the job, a read, a
 * cancel) writes the one event; the others read the result. A live wallet QR code expires with its
 * session, and an open 3-D Secure challenge ends with it (its payment fails, `payment.failed`): an
 * expired session cannot be paid.
 */
export async function expireIfDue(trx: Trx, clock: Clock, session: CheckoutSessionRow): Promise<{ session: CheckoutSessionRow; changed: boolean }> {
  const now = clock.now();
  if (!isDue(session, now)) return { session, changed: false };
  const tenant = tenantOf(session);
  const unpaid = await updateSession(trx, tenant, session.id, { status: 'expired', expired_at: now }, { whileOpen: true });
  if (!unpaid) return { session: await findSession(trx, tenant, session.id), changed: false };
  let expired = (await endLiveQr(trx, clock, tenant, unpaid.id, 'expired'))
    ? (await updateSession(trx, tenant, unpaid.id, { payment_status: 'unpaid', payment_id: null }))!
    : unpaid;
  if (await closeSessionChallenge(trx, clock, expired, 'expired')) expired = { ...expired, payment_id: null };
  await sessionEvent(trx, clock, 'checkout.session.expired', expired);
  return { session: expired, changed: true };
}

/** The tenant's session with expiry applied; 404 for anyone else's. A plain read unless it falls due. */
export async function getSession(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: string): Promise<CheckoutSessionRow> {
  const session = await findSession(db, tenant, id);
  if (!isDue(session, clock.now())) return session;
  return db.transaction().execute(async (trx) => (await expireIfDue(trx, clock, session)).session);
}

/** The tenant's session with expiry applied, the payment it points at (if any), and whether the refund operation would refund it now. */
export async function getSessionWithPayment(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: string,
): Promise<{ session: CheckoutSessionRow; payment: PaymentRow | undefined; refund: Refundability }> {
  const session = await getSession(db, clock, tenant, id);
  const payment = session.payment_id === null ? undefined : await findPaymentRecord(db, tenant, session.payment_id);
  return { session, payment, refund: await refundabilityNow(db, payment) };
}

/**
 * The session a client secret names (for authentication: the secret is the credential, so this
 * read starts from the session id inside it), with its merchant's rate plan; undefined when none.
 */
export const sessionForClientSecret = (db: Db, sessionId: string) => findSessionForSecret(db, sessionId);

/** The tenant's session, locked, with expiry applied. */
export async function lockSession(trx: Trx, clock: Clock, tenant: Tenant, id: string): Promise<CheckoutSessionRow> {
  return (await expireIfDue(trx, clock, await findSession(trx, tenant, id, { lock: true }))).session;
}

/**
 * Cancels an unpaid session: `checkout.session.cancelled`. A completed session is refused (refund
 * it instead); a cancelled or expired one is left as it is, with no second event. A live wallet QR
 * code is withdrawn, and an unpaid invoice the session itself raised is cancelled (an existing
 * invoice the session was paying is left as it was).
 */
export async function cancelSession(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const session = await lockSession(trx, clock, tenant, id);
    if (session.status === 'completed') throw new AppError('session_already_completed');
    if (session.status === 'cancelled' || session.status === 'expired') return;
    const withdrawn = await endLiveQr(trx, clock, tenant, session.id, 'withdrawn');
    await cancelInvoicesRaisedBy(trx, tenant, session.id);
    const cancelled = (await updateSession(trx, tenant, id, {
      status: 'cancelled',
      cancelled_at: clock.now(),
      ...(withdrawn ? { payment_status: 'unpaid', payment_id: null } : {}),
    }))!;
    await sessionEvent(trx, clock, 'checkout.session.cancelled', cancelled);
  });
}

/** A session that can still be paid; otherwise 400 `session_not_payable` (the saved-card and click-to-pay operations document no 409). */
export function assertSessionPayable(session: CheckoutSessionRow, clock: Clock): void {
  if (session.status === 'completed') throw new AppError('session_not_payable', { message: 'This checkout session is already completed.' });
  if (!(OPEN_STATUSES as readonly string[]).includes(session.status) || session.expires_at <= clock.now()) throw new AppError('session_not_payable');
}

/** Locks the tenant's session for a payment and checks that it can still be paid (confirm's rules: a completed or processing session is 409). */
export async function lockPayableSession(trx: Trx, clock: Clock, tenant: Tenant, sessionId: string): Promise<CheckoutSessionRow> {
  const session = await findSession(trx, tenant, sessionId, { lock: true });
  if (session.status === 'completed') throw new AppError('invalid_state', { message: 'This checkout session is already completed.' });
  if (session.status === 'cancelled' || session.status === 'expired' || session.expires_at <= clock.now()) {
    throw new AppError('session_not_payable', { message: 'This checkout session is cancelled or expired and cannot be paid.' });
  }
  if (session.status === 'processing') throw new AppError('invalid_state', { message: 'A payment of this session is still being processed.' });
  return session;
}

/** The ways a session can be paid: what its merchant's enabled options and its own settings allow. */
export type SessionPaymentOption = 'card' | 'saved_card' | 'click_to_pay' | 'wallet:qr';

/** The payment options a session offers, from the merchant's enabled options. */
export function allowedPaymentMethods(session: CheckoutSessionRow, merchant: Merchant): SessionPaymentOption[] {
  const options = merchant.payment_options.filter((o) => o.enabled);
  const hold = session.capture_method === 'manual';
  const methods: SessionPaymentOption[] = [];
  if (options.some((o) => o.method === 'CreditCard' && (!hold || o.canHold))) methods.push('card');
  if (session.allow_saved_cards) methods.push('saved_card');
  if (session.enable_click_to_pay) methods.push('click_to_pay');
  // Wallets can neither hold a card nor keep one on file for renewals.
  if (!hold && session.payment_type !== 'subscription' && options.some((o) => o.method === 'GatewayWallet')) methods.push('wallet:qr');
  return methods;
}

/**
 * Sessions the expiry job expires in one transaction: one commit for many (one transaction each
 * made a sandbox's day on the clock wait on 120 commits), and few enough that a payer's confirm of
 * one of them waits little for its lock.
 */
const EXPIRED_PER_TRANSACTION = 50;

/**
 * The expiry job: every unpaid session of the scope whose time has passed (by the scope's clock)
 * becomes `expired`, with one event each, EXPIRED_PER_TRANSACTION to a transaction.
 */
export async function expireDueSessions(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  const due = await findExpiredOpenSessions(db, scope, scoped.now(), batch);
  let expired = 0;
  for (let i = 0; i < due.length; i += EXPIRED_PER_TRANSACTION) {
    const chunk = due.slice(i, i + EXPIRED_PER_TRANSACTION);
    expired += await db.transaction().execute((trx) => expireTogether(trx, scoped, scope, chunk));
  }
  return expired;
}

/**
 * Expires due sessions as expireIfDue does, those that wait for no payer together: one UPDATE and
 * one INSERT of their events, where each took three round trips and an insert. A session the
 * UPDATE leaves (one waiting for a payer, whose QR code or challenge ends with it, or one that
 * changed since it was read) goes through expireIfDue. Answers how many were expired.
 */
async function expireTogether(trx: Trx, clock: Clock, scope: DueScope, sessions: CheckoutSessionRow[]): Promise<number> {
  const now = clock.now();
  const due = sessions.filter((session) => isDue(session, now));
  const rows = await expireSessionsNotWaiting(
    trx,
    scope,
    due.map((session) => session.id),
    now,
  );
  const expired = new Map(rows.map((session) => [session.id, session]));
  // Their events in the order they fell due, as one by one.
  const inDueOrder = due.flatMap((session) => expired.get(session.id) ?? []);
  await writeEvents(trx, clock, sessionEvents('checkout.session.expired', inDueOrder));
  let changed = expired.size;
  for (const session of due) if (!expired.has(session.id) && (await expireIfDue(trx, clock, session)).changed) changed += 1;
  return changed;
}

/** When the next open session of the scope expires, after `after` (for the sandbox clock). */
export const nextSessionExpiry = (db: Db, scope: DueScope, after: Date): Promise<Date | null> => nextOpenSessionExpiry(db, scope, after);

export type { SessionCursor, SessionListFilter, SessionListItem } from './session-list.repository.js';
/** The dashboard's page of the tenant's checkout sessions, newest first, one more row than the limit in the direction asked. */
export const listSessionPage = (db: Db, tenant: Tenant, filter: SessionListFilter, cursor: SessionCursor): Promise<SessionListItem[]> =>
  findSessionPage(db, tenant, filter, cursor);
