// An audit entry as the Commerce interface writes it: the Checkout & Billing entry's parts, with
// `createdDateTime` and no `object`.
import type { components } from '../../../../generated/commerce.js';
import type { AuditEntry } from '../../../domain/audit/audit.service.js';

type Schemas = components['schemas'];

export const auditEntryView = (e: AuditEntry): Schemas['AuditEntry'] => ({
  id: e.id,
  action: e.action,
  actor: { type: e.actor_type, keyPrefix: e.actor_key_prefix, session: e.actor_session },
  target: { type: e.target_type as Schemas['AuditTarget']['type'], id: e.target_id },
  changes: e.changes,
  requestId: e.request_id,
  createdDateTime: e.created_at.toISOString(),
  livemode: e.livemode,
});
