import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';

/** The merchant and mode a call acts for. */
export interface Caller {
  merchantId: number;
  livemode: boolean;
}

/**
 * The caller's session, in the key's mode; 404 for anyone else's, exactly like a missing one.
 * `lock` takes the row for the rest of the transaction (for changes that must not race).
 */
export async function findSession(db: Kysely<Database> | Transaction<Database>, caller: Caller, id: string, options: { lock?: boolean } = {}): Promise<CheckoutSessionRow> {
  let query = db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
  if (options.lock) query = query.forUpdate();
  const session = await query.executeTakeFirst();
  if (!session) throw new AppError('resource_not_found', { param: 'id', message: `No such checkout session: ${id}.` });
  return session;
}
