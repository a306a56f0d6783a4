import type { Generated, Selectable } from 'kysely';
import type { Json, Timestamp } from '../../db/columns.js';
import type { FieldChanges } from '../../db/audit-trail.js';
import type { AuditAction } from '../../shared/vocabulary.generated.js';

export type AuditActorType = 'api_key' | 'dashboard' | 'operator';

/**
 * One change to a merchant's roles, restricted keys, webhook configurations, locations or
 * merchants (issue 34), written in the transaction of the change. The actor is a key's display
 * prefix (never the key), a dashboard session or the operator (the merchant command); `changes`
 * never holds a secret.
 */
export interface AuditEntriesTable {
  /** Order of writing: lists are newest first by it. */
  id: Generated<number>;
  merchant_id: number;
  /** The mode of the key or session that made the change. */
  livemode: boolean;
  action: AuditAction;
  actor_type: AuditActorType;
  /** `sk_test_AbCd`: set for an API key. */
  actor_key_prefix: string | null;
  /** Set for a dashboard session. */
  actor_session: string | null;
  /** The action's first part: `role`, `restricted_key`, `webhook_configuration`, … */
  target_type: string;
  target_id: string;
  changes: Json<FieldChanges>;
  /** The request that made the change (`X-Request-Id`). */
  request_id: string | null;
  created_at: Timestamp;
}

/** An audit entry: the domain record both interfaces and the dashboard show. */
export type AuditEntry = Selectable<AuditEntriesTable>;

declare module '../../db/schema.js' {
  interface Database {
    audit_entries: AuditEntriesTable;
  }
}
