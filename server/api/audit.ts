// The audit trail of a request that changes keys, roles, webhook configurations or a merchant's
// settings (issue 34): the calling key (by its display prefix), the tenant, the request id and the
// tenant's clock. The handler passes it to the service, which records on it inside its transaction.
import type { AuditTrail } from '../db/audit-trail.js';
import { auditTrail } from '../domain/audit/audit.service.js';
import type { AuthContext } from '../http/context.js';
import type { Clock } from '../shared/clock.js';
import type { Tenant } from '../shared/tenant.js';

/** The trail of the calling server key; only server keys reach the operations that record. */
export function trailOf(input: { auth: AuthContext; tenant: Tenant; requestId: string; deps: { clock: Clock } }): AuditTrail {
  const keyPrefix = input.auth.keyPrefix;
  if (keyPrefix === undefined) throw new Error(`An audited operation was called without a server key (${input.auth.kind}).`);
  return auditTrail({ tenant: input.tenant, actor: { type: 'api_key', keyPrefix }, requestId: input.requestId, clock: input.deps.clock });
}
