import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { MessageAttachmentRow, MessageAttachmentsTable, MessageKind, MessageRow, MessagesTable } from './message.tables.js';
import type { Tenant } from '../../shared/tenant.js';

export async function insertMessage(db: Db, values: Insertable<MessagesTable>): Promise<MessageRow> {
  return db.insertInto('messages').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertAttachments(db: Db, values: Insertable<MessageAttachmentsTable>[]): Promise<void> {
  if (values.length > 0) await db.insertInto('message_attachments').values(values).execute();
}

/** The files a message carries, in order. Read by delivery, after the message was claimed (no tenant: it starts from the message). */
export async function findAttachments(db: Db, messageId: string): Promise<MessageAttachmentRow[]> {
  return db.selectFrom('message_attachments').selectAll().where('message_id', '=', messageId).orderBy('position').execute();
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
  return q
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/**
 * Claims up to `limit` queued messages that are due, for one delivery attempt: their next attempt
 * moves to `leaseUntil`, so another process (or a later sweep) retries them only if this one dies.
 * SKIP LOCKED keeps two processes from claiming the same message.
 */
export async function claimDueMessages(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<MessageRow[]> {
  return db
    .updateTable('messages')
    .set((eb) => ({ next_attempt_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('messages')
        .select('id')
        .where('status', '=', 'queued')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

/** Records how a claimed message's attempt ended. */
export async function updateDelivery(db: Db, id: string, changes: Updateable<MessagesTable>): Promise<void> {
  await db.updateTable('messages').set(changes).where('id', '=', id).execute();
}
