import { listAuditEntries } from '../../domain/audit/audit.service.js';
import { listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { auditEntryView } from './views/audit-entry.view.js';

const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/** The audit log, newest first (issue 34). */
export const auditEntryHandlers: CheckoutHandlers = {
  async listAuditEntries({ db, tenant, query }) {
    const filters = {
      action: query.action,
      actor: query.actor,
      actorType: query.actorType,
      createdFrom: dateOf(query.createdFrom),
      createdBefore: dateOf(query.createdBefore),
    };
    return ok(listOf(await listAuditEntries(db, tenant, filters, pageOf(query, 25)), auditEntryView));
  },
};
