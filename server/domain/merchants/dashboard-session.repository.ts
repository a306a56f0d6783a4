import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { DashboardSessionRow, DashboardSessionsTable } from './dashboard-session.tables.js';

// The dashboard's sessions, by the hash of their token. A session's keys are read with it, in one
// statement, so a revoked key is noticed on the next request.

export async function insertDashboardSession(db: Db, values: Insertable<DashboardSessionsTable>): Promise<void> {
  await db.insertInto('dashboard_sessions').values(values).execute();
}

export async function updateDashboardSession(db: Db, tokenHash: string, values: Updateable<DashboardSessionsTable>): Promise<void> {
  await db.updateTable('dashboard_sessions').set(values).where('token_hash', '=', tokenHash).execute();
}

export async function deleteDashboardSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Removes sessions that ended before `now` (a sign-in sweeps them; none is ever used after its end). */
export async function deleteEndedDashboardSessions(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).execute();
}

/** A live key of a session, with its role. */
export interface SessionKey {
  keyId: number;
  kind: 'secret' | 'restricted';
  roleName: string | null;
  scopes: string[] | null;
}

/** The session of a token hash that has not ended, with its live (unrevoked) key of each mode. */
export async function findDashboardSession(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<{ row: DashboardSessionRow; test: SessionKey | null; live: SessionKey | null } | undefined> {
  const row = await db.selectFrom('dashboard_sessions').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
  if (!row) return undefined;
  const ids = [row.test_key_id, row.live_key_id].filter((id): id is number => id !== null);
  const keys = await db
    .selectFrom('api_keys')
    .leftJoin('roles', 'roles.id', 'api_keys.role_id')
    .select(['api_keys.id as keyId', 'api_keys.kind', 'api_keys.livemode', 'roles.name as roleName', 'roles.scopes as roleScopes'])
    .where('api_keys.id', 'in', ids)
    .where('api_keys.merchant_id', '=', row.merchant_id)
    .where('api_keys.revoked_at', 'is', null)
    .where('api_keys.kind', 'in', ['secret', 'restricted'])
    .execute();
  const of = (livemode: boolean, id: number | null): SessionKey | null => {
    const k = keys.find((key) => key.keyId === id && key.livemode === livemode);
    if (!k) return null;
    return { keyId: k.keyId, kind: k.kind as SessionKey['kind'], roleName: k.roleName, scopes: k.kind === 'restricted' ? (k.roleScopes ?? []) : null };
  };
  return { row, test: of(false, row.test_key_id), live: of(true, row.live_key_id) };
}
