import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../columns.js';

export type MessageChannel = 'email' | 'sms';
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
}
export type MessageRow = Selectable<MessagesTable>;
