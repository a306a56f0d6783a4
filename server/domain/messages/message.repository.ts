import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { MessageKind, MessageRow, MessagesTable } from '../../db/tables/messages.js';
import type { Tenant } from '../../shared/tenant.js';

export async function insertMessage(db: Db, values: Insertable<MessagesTable>): Promise<MessageRow> {
  return db.insertInto('messages').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The order of writing of one of the tenant's messages (the list's cursor), or undefined. */
export async function findMessageSeq(db: Db, tenant: Tenant, id: string): Promise<string | undefined> {
  return (await db.selectFrom('messages').select('seq').where('id', '=', id).where(ofTenant(tenant)).executeTakeFirst())?.seq;
}

export interface MessageFilter {
  limit: number;
  beforeSeq?: string | undefined;
  to?: string | undefined;
  kind?: MessageKind | undefined;
}

/** The tenant's messages, newest first, one more than the limit. */
export async function findMessages(db: Db, tenant: Tenant, filter: MessageFilter): Promise<MessageRow[]> {
  let q = db.selectFrom('messages').selectAll().where(ofTenant(tenant));
  if (filter.to !== undefined) q = q.where((eb) => eb(eb.fn('lower', ['recipient']), '=', filter.to!.toLowerCase()));
  if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
  if (filter.beforeSeq !== undefined) q = q.where('seq', '<', filter.beforeSeq);
  return q.orderBy('seq', 'desc').limit(filter.limit + 1).execute();
}
