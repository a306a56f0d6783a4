import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { ThreeDsChallengeRow, ThreeDsChallengesTable } from './challenge.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// 3-D Secure challenges of the sandbox issuer. A challenge page is reached by its id alone (a
// 40-character random credential, like a client secret), so `findChallengeById` is the one read
// that does not start from a tenant: everything after it is scoped to the challenge's tenant.

export async function insertChallenge(db: Db, values: Insertable<ThreeDsChallengesTable>): Promise<ThreeDsChallengeRow> {
  return db.insertInto('three_ds_challenges').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A challenge by its id: the page's credential. */
export async function findChallengeById(db: Db, id: string): Promise<ThreeDsChallengeRow | undefined> {
  return db.selectFrom('three_ds_challenges').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function lockChallengeRow(db: Db, tenant: Tenant, id: string): Promise<ThreeDsChallengeRow> {
  return db.selectFrom('three_ds_challenges').selectAll().where('id', '=', id).where(ofTenant(tenant)).forUpdate().executeTakeFirstOrThrow();
}

/** A session's open challenge, locked; undefined when there is none. */
export async function lockOpenChallengeOf(db: Db, tenant: Tenant, sessionId: string): Promise<ThreeDsChallengeRow | undefined> {
  return db
    .selectFrom('three_ds_challenges')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where(ofTenant(tenant))
    .where('status', '=', 'open')
    .forUpdate()
    .executeTakeFirst();
}

export async function updateChallenge(db: Db, tenant: Tenant, id: string, changes: Updateable<ThreeDsChallengesTable>): Promise<ThreeDsChallengeRow> {
  return db.updateTable('three_ds_challenges').set(changes).where('id', '=', id).where(ofTenant(tenant)).returningAll().executeTakeFirstOrThrow();
}
