import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { randomToken } from '../../shared/crypto.js';
import type { Caller } from '../sessions/session.repository.js';
import { toPage } from '../../shared/pagination.js';
import type { MessageChannel, MessageKind, MessageRow } from '../../db/tables/messages.js';

export interface OutgoingMessage {
  merchantId: number;
  livemode: boolean;
  channel: MessageChannel;
  kind: MessageKind;
  to: string;
  subject?: string | null;
  body: string;
  sessionId?: string | null;
}

/**
 * Puts a message in the outbox, in the caller's transaction (so it exists exactly when the change
 * that sends it does). Nothing delivers it yet: test mode only records, and no email or text
 * provider is connected for live mode.
 */
export async function recordMessage(trx: Transaction<Database>, clock: Clock, message: OutgoingMessage): Promise<MessageRow> {
  return trx
    .insertInto('messages')
    .values({
      id: `msg_${randomToken(20)}`,
      merchant_id: message.merchantId,
      livemode: message.livemode,
      channel: message.channel,
      kind: message.kind,
      recipient: message.to,
      subject: message.subject ?? null,
      body: message.body,
      session_id: message.sessionId ?? null,
      created_at: clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface MessageQuery {
  limit: number;
  startingAfter?: string | undefined;
  to?: string | undefined;
  kind?: MessageKind | undefined;
}

/** The caller's messages in its mode, newest first, filtered by recipient (case-insensitive) and kind. */
export async function listMessages(db: Kysely<Database>, caller: Caller, query: MessageQuery): Promise<{ data: MessageRow[]; hasMore: boolean }> {
  let q = db.selectFrom('messages').selectAll().where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
  if (query.to !== undefined) q = q.where((eb) => eb(eb.fn('lower', ['recipient']), '=', query.to!.toLowerCase()));
  if (query.kind !== undefined) q = q.where('kind', '=', query.kind);
  if (query.startingAfter !== undefined) {
    const cursor = await db
      .selectFrom('messages')
      .select('seq')
      .where('id', '=', query.startingAfter)
      .where('merchant_id', '=', caller.merchantId)
      .where('livemode', '=', caller.livemode)
      .executeTakeFirst();
    if (!cursor) throw new AppError('parameter_invalid', { param: 'startingAfter', message: `startingAfter is not one of your messages: ${query.startingAfter}.` });
    q = q.where('seq', '<', cursor.seq);
  }
  const rows = await q.orderBy('seq', 'desc').limit(query.limit + 1).execute();
  return toPage(rows, query.limit);
}
