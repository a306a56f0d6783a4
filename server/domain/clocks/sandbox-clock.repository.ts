import { type Expression, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';

// One row per merchant that ever advanced its test-mode clock: how far ahead it runs, and the hold
// an advance keeps while it runs.

/** Seconds a merchant has advanced its test-mode clock (0 when never). */
export async function findOffset(db: Db, merchantId: number): Promise<number> {
  const row = await db.selectFrom('sandbox_clocks').select('offset_seconds').where('merchant_id', '=', merchantId).executeTakeFirst();
  return row ? Number(row.offset_seconds) : 0;
}

/** The offsets of those of `merchantIds` that advanced their clocks. */
export async function findOffsets(db: Db, merchantIds: number[]): Promise<Map<number, number>> {
  const offsets = new Map<number, number>();
  if (merchantIds.length === 0) return offsets;
  const rows = await db
    .selectFrom('sandbox_clocks')
    .select(['merchant_id', 'offset_seconds'])
    .where('merchant_id', 'in', merchantIds)
    .where('offset_seconds', '>', '0')
    .execute();
  for (const r of rows) offsets.set(r.merchant_id, Number(r.offset_seconds));
  return offsets;
}

/** Every merchant whose test clock runs ahead, with its offset, by merchant id. */
export async function findAdvancedClocks(db: Db): Promise<{ merchantId: number; offsetSeconds: number }[]> {
  const rows = await db
    .selectFrom('sandbox_clocks')
    .select(['merchant_id', 'offset_seconds'])
    .where('offset_seconds', '>', '0')
    .orderBy('merchant_id')
    .execute();
  return rows.map((r) => ({ merchantId: r.merchant_id, offsetSeconds: Number(r.offset_seconds) }));
}

/** Takes the merchant's clock for an advance until `until` (wall time), unless another advance holds it; answers the offset, or undefined. */
export async function holdClock(db: Db, merchantId: number, now: Date, until: Date): Promise<number | undefined> {
  await db
    .insertInto('sandbox_clocks')
    .values({ merchant_id: merchantId, offset_seconds: 0, updated_at: now })
    .onConflict((oc) => oc.column('merchant_id').doNothing())
    .execute();
  const held = await db
    .updateTable('sandbox_clocks')
    .set({ advancing_until: until })
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb.or([eb('advancing_until', 'is', null), eb('advancing_until', '<=', now)]))
    .returning('offset_seconds')
    .executeTakeFirst();
  return held ? Number(held.offset_seconds) : undefined;
}

/** Moves a held clock to `offsetSeconds`, renewing the hold. */
export async function moveClock(db: Db, merchantId: number, offsetSeconds: number, now: Date, holdUntil: Date): Promise<void> {
  await db
    .updateTable('sandbox_clocks')
    .set({ offset_seconds: offsetSeconds, advancing_until: holdUntil, updated_at: now })
    .where('merchant_id', '=', merchantId)
    .execute();
}

/** Lets go of the hold on the merchant's clock. */
export async function releaseClock(db: Db, merchantId: number): Promise<void> {
  await db.updateTable('sandbox_clocks').set({ advancing_until: null }).where('merchant_id', '=', merchantId).execute();
}

/** In another statement: the seconds the merchant `merchantId` (a column) advanced its test-mode clock, null when never. */
export function clockOffsetOf(merchantId: Expression<number>): RawBuilder<string | null> {
  return sql<string | null>`(SELECT sc.offset_seconds FROM sandbox_clocks sc WHERE sc.merchant_id = ${merchantId})`;
}
