// A migrated PGlite database, made once at build time (scripts/build.mjs writes it beside the
// compiled server, dist/pglite-template.tar) so that the first start on a new data directory loads
// it instead of creating a cluster (initdb) and running every migration: the slow part of a first
// start. It holds what a started Till leaves: the migrations (and their table, so the migrator sees
// them applied) and the job queue's schema, nothing else: no merchant, no key. Its sidecar JSON
// names the migrations it holds; a template whose migrations are not the first of this build's is
// never used, and the migrations after it still run on top (migrateToLatest at every start).
import { access, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import PgBoss from 'pg-boss';
import { migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';

/** The job queue's schema (server/jobs/index.ts runs pg-boss in it). */
export const JOB_QUEUE_SCHEMA = 'pgboss';

/** dist/pglite-template.tar from the compiled dist/server/db/; absent when running from the sources. */
export const PGLITE_TEMPLATE_FILE = fileURLToPath(new URL('../../pglite-template.tar', import.meta.url));
const sidecar = (file: string) => file.replace(/\.tar$/, '.json');

/** A dump (`dumpDataDir`) of an in-memory PGlite migrated to the latest schema, with the job queue's schema installed. */
export async function dumpMigratedPglite(): Promise<Blob> {
  const pglite = await PGlite.create();
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  try {
    await migrateToLatest(db);
    await pglite.exec(PgBoss.getConstructionPlans(JOB_QUEUE_SCHEMA));
    return await pglite.dumpDataDir('none');
  } finally {
    await db.destroy();
    if (!pglite.closed) await pglite.close();
  }
}

/** Writes the template and its sidecar (each aside, then renamed: a reader never sees half a file). */
export async function writePgliteTemplate(file = PGLITE_TEMPLATE_FILE): Promise<void> {
  const dump = Buffer.from(await (await dumpMigratedPglite()).arrayBuffer());
  await writeFile(`${sidecar(file)}.${process.pid}`, `${JSON.stringify({ migrations: Object.keys(migrations) }, null, 2)}\n`);
  await writeFile(`${file}.${process.pid}`, dump);
  await rename(`${file}.${process.pid}`, file);
  await rename(`${sidecar(file)}.${process.pid}`, sidecar(file));
}

/**
 * The template's dump, for a new data directory, when there is one and its migrations are the
 * first of this build's registry (in order); otherwise undefined, and the start migrates as before.
 */
export async function pgliteTemplate(file = PGLITE_TEMPLATE_FILE): Promise<Blob | undefined> {
  try {
    const { migrations: held } = JSON.parse(await readFile(sidecar(file), 'utf8')) as { migrations: string[] };
    const names = Object.keys(migrations);
    if (!Array.isArray(held) || held.length > names.length || held.some((name, i) => name !== names[i])) return undefined;
    return new Blob([await readFile(file)]);
  } catch {
    return undefined; // no template (running from the sources, or not built)
  }
}

/** Whether a PGlite data directory holds a database already (PGlite's own test: its PG_VERSION). */
export function pgliteDirectoryInUse(dir: string): Promise<boolean> {
  return access(path.join(dir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}
