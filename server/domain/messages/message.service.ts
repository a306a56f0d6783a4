import type { Db } from '../../db/database.js';
import type { MessageChannel, MessageKind, MessageRow } from './message.tables.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { claimDueMessages, findAttachments, findMessageSeq, findMessages, insertAttachments, insertMessage, updateDelivery } from './message.repository.js';

export interface OutgoingMessage {
  tenant: Tenant;
  channel: MessageChannel;
  kind: MessageKind;
  to: string;
  subject?: string | null;
  body: string;
  sessionId?: string | null;
  /** Files an email carries (an invoice's PDF). */
  attachments?: Attachment[];
}

/** A file attached to an email. */
export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/**
 * Puts a message in the outbox, in the caller's transaction (so it exists exactly when the change
 * that sends it does). Test mode only records it. Live mode queues it: the delivery job sends it
 * after the commit (`claimDeliveries`, `recordDelivery`).
 */
export async function recordMessage(db: Db, clock: Clock, message: OutgoingMessage): Promise<MessageRow> {
  const live = message.tenant.livemode;
  const row = await insertMessage(db, {
    status: live ? 'queued' : 'recorded',
    next_attempt_at: live ? clock.now() : null,
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
  const files = message.attachments ?? [];
  await insertAttachments(
    db,
    files.map((file, position) => ({ message_id: row.id, position, filename: file.filename, content_type: file.contentType, content: file.content })),
  );
  return row;
}

/** The files a message carries, in order, for its delivery. */
export async function attachmentsOf(db: Db, message: MessageRow): Promise<Attachment[]> {
  return (await findAttachments(db, message.id)).map((a) => ({ filename: a.filename, contentType: a.content_type, content: Buffer.from(a.content) }));
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
    if (beforeSeq === undefined)
      throw new AppError('parameter_invalid', { param: 'startingAfter', message: `startingAfter is not one of your messages: ${query.startingAfter}.` });
  }
  return toPage(await findMessages(db, tenant, { limit: query.limit, beforeSeq, to: query.to, kind: query.kind }), query.limit);
}

/** Attempts a message gets before it is `failed`. */
export const MAX_DELIVERY_ATTEMPTS = 5;
/** How long a claimed message is left to its claimer before another sweep may try it again. */
const DELIVERY_LEASE_MS = 5 * 60_000;

/** The wait after the n-th failed attempt: 1, 4, 16, 64 minutes. */
export const deliveryBackoffMs = (attempts: number): number => 60_000 * 4 ** (attempts - 1);

/** Live messages due for an attempt, claimed for this caller (at most `limit`). Each claim counts as an attempt. */
export async function claimDeliveries(db: Db, clock: Clock, limit = 20): Promise<MessageRow[]> {
  const now = clock.now();
  return claimDueMessages(db, now, new Date(now.getTime() + DELIVERY_LEASE_MS), limit);
}

/** How an attempt ended: handed over, impossible (no way to send it), or failed with a short reason. */
export type DeliveryOutcome = { kind: 'sent' } | { kind: 'not_sent'; reason: string } | { kind: 'failed'; reason: string };

/** Records the end of an attempt on a claimed message: a failure is retried with backoff until the attempts are used up. */
export async function recordDelivery(db: Db, clock: Clock, message: MessageRow, outcome: DeliveryOutcome): Promise<void> {
  const now = clock.now();
  if (outcome.kind === 'sent') return updateDelivery(db, message.id, { status: 'sent', sent_at: now, next_attempt_at: null, last_error: null });
  const reason = outcome.reason.slice(0, 200);
  if (outcome.kind === 'not_sent') return updateDelivery(db, message.id, { status: 'not_sent', next_attempt_at: null, last_error: reason });
  const spent = message.attempts >= MAX_DELIVERY_ATTEMPTS;
  await updateDelivery(db, message.id, {
    status: spent ? 'failed' : 'queued',
    next_attempt_at: spent ? null : new Date(now.getTime() + deliveryBackoffMs(message.attempts)),
    last_error: reason,
  });
}
