import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

export type MessageChannel = 'email' | 'sms';
/**
 * `recorded`: test mode, kept in the sandbox outbox, never sent. `queued`: live, waiting for the
 * delivery job. `sent`: handed to the SMTP server. `not_sent`: live, but there is no way to send it
 * (no SMTP server configured; text messages have no provider). `failed`: every attempt failed.
 */
export type MessageStatus = 'recorded' | 'queued' | 'sent' | 'not_sent' | 'failed';
export type MessageKind = 'otp' | 'receipt' | 'invoice' | 'checkout_notification' | 'portal' | 'other';

/** The outbox: every email or text message Till sends. Test mode records them instead of sending. */
export interface MessagesTable {
  /** Order of writing; lists are newest first by it (the test clock may stand still). */
  seq: Generated<string>;
  /** `msg_…` */
  id: string;
  merchant_id: number;
  livemode: boolean;
  channel: MessageChannel;
  kind: MessageKind;
  /** Email address or phone number. */
  recipient: string;
  /** Email subject; null for text messages. */
  subject: string | null;
  body: string;
  session_id: string | null;
  created_at: Timestamp;
  status: ColumnType<MessageStatus, MessageStatus | undefined, MessageStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  sent_at: Timestamp | null;
  /** Why the last attempt failed or why it was not sent: short, never a secret. */
  last_error: string | null;
}
export type MessageRow = Selectable<MessagesTable>;

/** A file an email carries (an invoice's PDF), written with its message. */
export interface MessageAttachmentsTable {
  message_id: string;
  /** Order among the message's files. */
  position: number;
  filename: string;
  content_type: string;
  /** bytea: a Buffer (pg) or a Uint8Array (PGlite) when read. */
  content: ColumnType<Uint8Array, Uint8Array, never>;
}
export type MessageAttachmentRow = Selectable<MessageAttachmentsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    messages: MessagesTable;
    message_attachments: MessageAttachmentsTable;
  }
}
