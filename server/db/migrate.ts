import { type Kysely, type MigrationResultSet, Migrator, sql } from 'kysely';
import { migrations } from './migrations/index.js';

/**
 * Whether the database holds exactly this registry's migrations, read with two plain statements.
 * Kysely's migrator first looks its tables up through the catalog's introspection (every table's
 * columns) and takes its lock: a few hundred milliseconds of every start on PGlite, for nothing
 * when no migration is pending.
 */
async function upToDate(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ table: string | null }>`SELECT to_regclass('kysely_migration')::text AS "table"`.execute(db);
  if (!rows[0]?.table) return false;
  const applied = new Set((await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db)).rows.map((row) => row.name));
  const names = Object.keys(migrations);
  return applied.size === names.length && names.every((name) => applied.has(name));
}

/** Runs every pending migration of the registry; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  if (await upToDate(db)) return { results: [] };
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return result;
}

/** Undoes the latest migration (used by tests of `down`). */
export async function migrateDown(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  return migrator.migrateDown();
}
