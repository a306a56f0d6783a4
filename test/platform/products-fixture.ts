import type { TillDatabase } from '../../server/db/database.js';

/** How many products named `name` the merchant has: what the idempotency tests count executions by. */
export async function countProducts(database: TillDatabase, merchantId: number, name: string): Promise<number> {
  const row = await database.db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_id', '=', merchantId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
