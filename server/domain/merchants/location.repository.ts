import type { Db } from '../../db/database.js';
import type { MerchantLocation } from './identity.tables.js';

// Locations of a merchant beyond listing and inserting (identity.repository.ts): by id, the
// primary one, and the fragment other modules compose into their statements. A merchant's
// locations are the same in both modes (`merchantId` only).

/** One location of the merchant, by id; undefined for an unknown id or another merchant's. */
export async function findLocationRow(db: Db, merchantId: number, id: number): Promise<MerchantLocation | undefined> {
  return db.selectFrom('merchant_locations').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

/** The merchant's locations of these ids (the others are left out). */
export async function findLocationRows(db: Db, merchantId: number, ids: number[]): Promise<MerchantLocation[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('merchant_locations').selectAll().where('merchant_id', '=', merchantId).where('id', 'in', ids).execute();
}

export async function countLocationRows(db: Db, merchantId: number): Promise<number> {
  const row = await db
    .selectFrom('merchant_locations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function hasPrimaryLocationRow(db: Db, merchantId: number): Promise<boolean> {
  const row = await db.selectFrom('merchant_locations').select('id').where('merchant_id', '=', merchantId).where('is_primary', '=', true).executeTakeFirst();
  return row !== undefined;
}

/** The primary location is no longer primary (another is about to be). */
export async function demotePrimaryLocationRow(db: Db, merchantId: number): Promise<void> {
  await db.updateTable('merchant_locations').set({ is_primary: false }).where('merchant_id', '=', merchantId).where('is_primary', '=', true).execute();
}

/** Serializes changes of the merchant's locations (one primary, at most 100) behind its row. */
export async function lockMerchantLocations(db: Db, merchantId: number): Promise<void> {
  await db.selectFrom('merchants').select('id').where('id', '=', merchantId).forUpdate().executeTakeFirst();
}

/**
 * The id of the merchant's primary location as a subquery, for another module's statement (an
 * invoice's issuing location by default): it composes into the same statement, no round trip.
 */
export const primaryLocationIdQuery = (db: Db, merchantId: number) =>
  db.selectFrom('merchant_locations').select('id').where('merchant_id', '=', merchantId).where('is_primary', '=', true).limit(1);
