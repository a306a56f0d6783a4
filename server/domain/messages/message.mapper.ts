import type { components } from '../../../generated/checkout.js';
import type { MessageRow } from '../../db/tables/messages.js';

/** An outbox row as the `message` object of `listTestMessages`. */
export const testMessageObject = (m: MessageRow): components['schemas']['TestMessage'] => ({
  id: m.id,
  object: 'message',
  channel: m.channel,
  to: m.recipient,
  kind: m.kind,
  subject: m.subject,
  body: m.body,
  sessionId: m.session_id,
  createdAt: m.created_at.toISOString(),
});
