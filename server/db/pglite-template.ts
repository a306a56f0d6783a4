// A migrated PGlite database, made once at build time (scripts/build.mjs writes it beside the
// compiled server, dist/pglite-template/) so that the first start on a new data directory copies
// it instead of creating a cluster (initdb) and running every migration: the slow part of a first
// start. It is a data directory PGlite closed cleanly, copied with the file system's own copy (a
// dump would be unpacked by PGlite's JavaScript untar, which took over a second for its 43 MB). It
// holds what a started Till leaves: the migrations (and their table, so the migrator sees them
// applied), the job queue's schema and, when the build asks, its queues (each a table of its own,
// which pg-boss would make at a first start: about a second of it on PGlite), nothing else: no
// merchant, no key. Its sidecar JSON names the migrations it holds; a template whose migrations are
// not the first of this build's is never used, and the migrations after it still run on top
// (migrateToLatest at every start).
import type { Dirent } from 'node:fs';
import { access, copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import PgBoss from 'pg-boss';
import { migrateToLatest } from './migrate.js';
import { createPglite } from './pglite-start.js';
import { migrations } from './migrations/index.js';
import { BUILD_ROOT } from '../shared/project-root.js';

/** The job queue's schema (server/jobs/index.ts runs pg-boss in it). */
export const JOB_QUEUE_SCHEMA = 'pgboss';

/** dist/pglite-template/ when running compiled; absent when running from the sources. */
export const PGLITE_TEMPLATE_DIR = fileURLToPath(new URL('pglite-template', BUILD_ROOT));
const sidecar = (dir: string) => `${dir}.json`;

/** Statements sent as the job queue sends them (pg-boss's `executeSql`). */
export type ExecuteSql = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;
/** Makes the job queue's queues in a database whose job-queue schema is installed (server/jobs' makeJobQueues). */
export type MakeQueues = (executeSql: ExecuteSql) => Promise<void>;

/**
 * Migrates a PGlite database to the latest schema, installs the job queue's schema in it (and its
 * queues, with `makeQueues`), runs `then`, and closes it (the dialect's destroy closes PGlite).
 */
async function migrateAndClose<T>(pglite: PGlite, then: () => Promise<T>, makeQueues?: MakeQueues): Promise<T> {
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  try {
    await migrateToLatest(db);
    await pglite.exec(PgBoss.getConstructionPlans(JOB_QUEUE_SCHEMA));
    await makeQueues?.((text, values) => pglite.query(text, values));
    return await then();
  } finally {
    await db.destroy();
    if (!pglite.closed) await pglite.close();
  }
}

/** A dump (`dumpDataDir`) of an in-memory PGlite migrated to the latest schema, with the job queue's schema installed (the tests' template). */
export async function dumpMigratedPglite(): Promise<Blob> {
  const pglite = await createPglite();
  return migrateAndClose(pglite, () => pglite.dumpDataDir('none'));
}

/**
 * Writes the template directory and its sidecar (each made aside, then renamed: a reader never sees
 * half of one); with `makeQueues` (the build's), the job queue's queues are made in it too.
 */
export async function writePgliteTemplate(dir = PGLITE_TEMPLATE_DIR, makeQueues?: MakeQueues): Promise<void> {
  const partial = `${dir}.${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await migrateAndClose(await createPglite({ dataDir: partial }), async () => undefined, makeQueues);
  await writeFile(`${sidecar(dir)}.${process.pid}`, `${JSON.stringify({ migrations: Object.keys(migrations) }, null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  await rename(`${sidecar(dir)}.${process.pid}`, sidecar(dir));
}

/**
 * The template's directory, for a new data directory, when there is one and its migrations are
 * the first of this build's registry (in order); otherwise undefined, and the start migrates as before.
 */
export async function pgliteTemplate(dir = PGLITE_TEMPLATE_DIR): Promise<string | undefined> {
  try {
    const { migrations: held } = JSON.parse(await readFile(sidecar(dir), 'utf8')) as { migrations: string[] };
    const names = Object.keys(migrations);
    if (!Array.isArray(held) || held.length > names.length || held.some((name, i) => name !== names[i])) return undefined;
    await access(path.join(dir, 'PG_VERSION'));
    return dir;
  } catch {
    return undefined; // no template (running from the sources, or not built)
  }
}

/**
 * Copies a template directory into a new data directory (which holds its lock file already).
 * PG_VERSION goes last: it is what marks a directory in use, so a copy cut short is copied again.
 */
export async function copyPgliteTemplate(template: string, dir: string): Promise<void> {
  const entries = await readdir(template, { withFileTypes: true, recursive: true });
  const relative = (e: Dirent) => path.relative(template, path.join(e.parentPath, e.name));
  for (const folder of entries
    .filter((e) => e.isDirectory())
    .map(relative)
    .sort())
    await mkdir(path.join(dir, folder), { recursive: true });
  const files = entries.filter((e) => !e.isDirectory()).map(relative); // (a link is copied as the file it names)
  // Many at once: its ~1,300 files one after the other (fs.cp) took over a second of a first start.
  let next = 0;
  const copyNext = async (): Promise<void> => {
    for (let file = files[next++]; file !== undefined; file = files[next++])
      if (file !== 'PG_VERSION') await copyFile(path.join(template, file), path.join(dir, file));
  };
  await Promise.all(Array.from({ length: COPIES_AT_ONCE }, copyNext));
  await copyFile(path.join(template, 'PG_VERSION'), path.join(dir, 'PG_VERSION'));
}

/** Files the template's copy has under way at once. */
const COPIES_AT_ONCE = 32;

/** Whether a PGlite data directory holds a database already (PGlite's own test: its PG_VERSION). */
export function pgliteDirectoryInUse(dir: string): Promise<boolean> {
  return access(path.join(dir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}
