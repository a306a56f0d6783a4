// The recipes of the audit log's lists (issue 34): both interfaces list the same entries.
import type { Recipe } from './fixtures.js';

export const auditRecipes: Record<string, Recipe> = {
  listAuditEntries: { success: async () => ({ path: '/v1/audit-entries', query: { action: 'role.*', limit: 10 } }) },
  listAuditLog: { success: async () => ({ path: '/v1/auditEntry', query: { $top: 10 } }) },
};
