// The audit trail a change is recorded on (issue 34). A service that changes keys, roles, webhook
// configurations or a merchant's settings takes an AuditTrail and calls it inside the transaction
// of the change, so the entry commits with the change or not at all. The edge makes the trail
// (domain/audit's `auditTrail`: who acts, for which tenant, in which request) and passes it
// down: the services of every layer can record without importing the audit module.
import type { AuditAction } from '../shared/vocabulary.generated.js';
import type { Db } from './database.js';

/** One field's value before and after a change (null for none). */
export interface FieldChange {
  before: unknown;
  after: unknown;
}

/** The changed fields, by name. */
export type FieldChanges = Record<string, FieldChange>;

/** A change to record: what was done, to which object (its type is the action's first part), which fields changed. */
export interface AuditChange {
  action: AuditAction;
  targetId: string | number;
  changes: FieldChanges;
}

/** Records a change in the transaction (or statement) that makes it. */
export type AuditTrail = (db: Db, change: AuditChange) => Promise<void>;

/** What a secret's value is recorded as: that it changed shows, never what it is. */
export const REDACTED = '[redacted]';

const present = (value: unknown) => value !== undefined && value !== null;

/** The fields of something made: each set field from null to its value. */
export function createdFields(fields: Record<string, unknown>): FieldChanges {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => present(v))
      .map(([k, v]) => [k, { before: null, after: v }]),
  );
}

/** The fields of something removed: each set field from its value to null. */
export function deletedFields(fields: Record<string, unknown>): FieldChanges {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => present(v))
      .map(([k, v]) => [k, { before: v, after: null }]),
  );
}

/** The fields whose value differs between `before` and `after` (compared as JSON). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): FieldChanges {
  const changes: FieldChanges = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [b, a] = [before[key] ?? null, after[key] ?? null];
    if (JSON.stringify(b) !== JSON.stringify(a)) changes[key] = { before: b, after: a };
  }
  return changes;
}
