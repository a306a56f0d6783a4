import { queryAuditEntries } from '../../domain/audit/audit.service.js';
import { compileQuery } from '../../odata/index.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { odataBody } from './odata-list.js';
import { auditEntryResource } from './odata/audit-entries.js';
import { auditEntryView } from './views/audit-entry.view.js';

/** The audit log as an OData page (issue 34). */
export const auditLogHandlers: CommerceHandlers = {
  async listAuditLog({ db, tenant, query }) {
    const compiled = compileQuery(auditEntryResource, query);
    return ok(odataBody(await queryAuditEntries(db, tenant, compiled), compiled, '/v1/auditEntry', auditEntryView));
  },
};
