// The email verification codes of payment links, scoped to the link's tenant.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { PaymentLinkRow, PaymentLinkVerificationRow } from './link.tables.js';
import { tenantOf } from '../../shared/tenant.js';

type Link = Pick<PaymentLinkRow, 'id' | 'merchant_id' | 'livemode'>;

/** When the last code for this email and link was sent, its row locked (so two sends in a race wait for each other). */
export async function lockLastSent(db: Db, link: Link, email: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('payment_link_verifications')
    .select('created_at')
    .where(ofTenant(tenantOf(link)))
    .where('link_id', '=', link.id)
    .where('email', '=', email)
    .orderBy('created_at', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  return row?.created_at;
}

/** Ends the codes still open for this email and link. */
export async function supersedeCodes(db: Db, link: Link, email: string): Promise<void> {
  await db
    .updateTable('payment_link_verifications')
    .set({ status: 'superseded' })
    .where(ofTenant(tenantOf(link)))
    .where('link_id', '=', link.id)
    .where('email', '=', email)
    .where('status', '=', 'sent')
    .execute();
}

export async function insertCode(db: Db, link: Link, values: { id: string; email: string; codeHash: string; expiresAt: Date; createdAt: Date }): Promise<void> {
  await db
    .insertInto('payment_link_verifications')
    .values({
      id: values.id,
      link_id: link.id,
      merchant_id: link.merchant_id,
      livemode: link.livemode,
      email: values.email,
      code_hash: values.codeHash,
      status: 'sent',
      expires_at: values.expiresAt,
      created_at: values.createdAt,
    })
    .execute();
}

/** A code of the link by its token, locked. */
export async function lockCode(db: Db, link: Link, tokenId: string): Promise<PaymentLinkVerificationRow | undefined> {
  return db
    .selectFrom('payment_link_verifications')
    .selectAll()
    .where(ofTenant(tenantOf(link)))
    .where('id', '=', tokenId)
    .where('link_id', '=', link.id)
    .forUpdate()
    .executeTakeFirst();
}

export async function markCodeUsed(db: Db, link: Link, tokenId: string): Promise<void> {
  await db
    .updateTable('payment_link_verifications')
    .set({ status: 'used' })
    .where(ofTenant(tenantOf(link)))
    .where('id', '=', tokenId)
    .execute();
}

/** One more wrong try of a code (by its token, which only the link's payer holds). */
export async function countWrongCode(db: Db, tokenId: string): Promise<void> {
  await db
    .updateTable('payment_link_verifications')
    .set({ wrong_attempts: sql`wrong_attempts + 1` })
    .where('id', '=', tokenId)
    .execute();
}
