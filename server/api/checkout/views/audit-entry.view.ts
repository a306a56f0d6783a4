// An audit entry as the Checkout & Billing interface writes it.
import type { components } from '../../../../generated/checkout.js';
import type { AuditEntry } from '../../../domain/audit/audit.service.js';

type Schemas = components['schemas'];

/** Who made the change: a key's display prefix or a dashboard session. */
export const auditActorView = (e: AuditEntry): Schemas['AuditActor'] => ({ type: e.actor_type, keyPrefix: e.actor_key_prefix, session: e.actor_session });

/** What was changed. */
export const auditTargetView = (e: AuditEntry): Schemas['AuditTarget'] => ({ type: e.target_type as Schemas['AuditTarget']['type'], id: e.target_id });

export const auditEntryView = (e: AuditEntry): Schemas['AuditEntry'] => ({
  id: e.id,
  object: 'audit_entry',
  action: e.action,
  actor: auditActorView(e),
  target: auditTargetView(e),
  changes: e.changes,
  requestId: e.request_id,
  createdAt: e.created_at.toISOString(),
  livemode: e.livemode,
});
