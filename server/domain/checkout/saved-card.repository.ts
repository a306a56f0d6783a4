import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { CardVerificationRow, CardVerificationsTable, SavedCardOtpStateTable } from './saved-card.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// One-time codes for saved cards: the verifications sent on a session, and each card's wrong-code
// count and lock (over all its verifications). Always of one tenant.

/** The card's OTP state, created when missing, then locked for the transaction. */
export async function lockOtpStateRow(db: Db, tenant: Tenant, paymentMethodId: string, now: Date) {
  await db
    .insertInto('saved_card_otp_state')
    .values({ payment_method_id: paymentMethodId, merchant_id: tenant.merchantId, livemode: tenant.livemode, locked_until: null, updated_at: now })
    .onConflict((oc) => oc.column('payment_method_id').doNothing())
    .execute();
  return db
    .selectFrom('saved_card_otp_state')
    .selectAll()
    .where('payment_method_id', '=', paymentMethodId)
    .where(ofTenant(tenant))
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export async function updateOtpState(db: Db, tenant: Tenant, paymentMethodId: string, changes: Updateable<SavedCardOtpStateTable>) {
  return db
    .updateTable('saved_card_otp_state')
    .set(changes)
    .where('payment_method_id', '=', paymentMethodId)
    .where(ofTenant(tenant))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertVerification(db: Db, values: Insertable<CardVerificationsTable>): Promise<CardVerificationRow> {
  return db.insertInto('card_verifications').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A session's verification, locked; undefined for anyone else's. */
export async function lockVerification(db: Db, tenant: Tenant, sessionId: string, id: string): Promise<CardVerificationRow | undefined> {
  return db
    .selectFrom('card_verifications')
    .selectAll()
    .where('id', '=', id)
    .where(ofTenant(tenant))
    .where('session_id', '=', sessionId)
    .forUpdate()
    .executeTakeFirst();
}

/** The verified (unused) verification of a card on a session, locked. */
export async function lockVerifiedOf(db: Db, tenant: Tenant, sessionId: string, paymentMethodId: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('card_verifications')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('payment_method_id', '=', paymentMethodId)
    .where(ofTenant(tenant))
    .where('status', '=', 'verified')
    .forUpdate()
    .executeTakeFirst();
}

/** Moves verifications of a card (on one session, or all of them) from one status to another. */
export async function setVerificationStatus(
  db: Db,
  tenant: Tenant,
  which: { id: string } | { paymentMethodId: string; sessionId?: string; fromStatus: CardVerificationRow['status'] },
  changes: Updateable<CardVerificationsTable>,
): Promise<void> {
  let query = db.updateTable('card_verifications').set(changes).where(ofTenant(tenant));
  if ('id' in which) query = query.where('id', '=', which.id);
  else {
    query = query.where('payment_method_id', '=', which.paymentMethodId).where('status', '=', which.fromStatus);
    if (which.sessionId !== undefined) query = query.where('session_id', '=', which.sessionId);
  }
  await query.execute();
}
