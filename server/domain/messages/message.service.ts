import type { Db } from '../../db/database.js';
import type { MessageChannel, MessageKind, MessageRow } from '../../db/tables/messages.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { findMessageSeq, findMessages, insertMessage } from './message.repository.js';

export interface OutgoingMessage {
  tenant: Tenant;
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
export async function recordMessage(db: Db, clock: Clock, message: OutgoingMessage): Promise<MessageRow> {
  return insertMessage(db, {
    id: `msg_${randomToken(20)}`,
    merchant_id: message.tenant.merchantId,
    livemode: message.tenant.livemode,
    channel: message.channel,
    kind: message.kind,
    recipient: message.to,
    subject: message.subject ?? null,
    body: message.body,
    session_id: message.sessionId ?? null,
    created_at: clock.now(),
  });
}

export interface MessageQuery {
  limit: number;
  startingAfter?: string | undefined;
  to?: string | undefined;
  kind?: MessageKind | undefined;
}

/** The tenant's messages, newest first, filtered by recipient (case-insensitive) and kind. */
export async function listMessages(db: Db, tenant: Tenant, query: MessageQuery): Promise<Page<MessageRow>> {
  let beforeSeq: string | undefined;
  if (query.startingAfter !== undefined) {
    beforeSeq = await findMessageSeq(db, tenant, query.startingAfter);
    if (beforeSeq === undefined) throw new AppError('parameter_invalid', { param: 'startingAfter', message: `startingAfter is not one of your messages: ${query.startingAfter}.` });
  }
  return toPage(await findMessages(db, tenant, { limit: query.limit, beforeSeq, to: query.to, kind: query.kind }), query.limit);
}
