// The test databases. A run migrates one template database (the global setup builds it, or the
// first test that needs it), and every test server starts from a copy of it instead of migrating:
//   - PGlite: the template is a dump of a migrated data directory (a tar file in
//     node_modules/.cache/till-tests), loaded into a fresh in-memory database;
//   - PostgreSQL (DATABASE_URL): the template is a database `<name>_tpl_<key>` on the same server,
//     and each copy is `CREATE DATABASE … TEMPLATE` it, dropped when the test is done.
// The template is what a started Till leaves: the migrations, and the job queue's own schema
// (pg-boss installs it at its first start). Its key is a hash of the migrations and of the PGlite
// and pg-boss releases, so a changed migration makes a new template and a stale one is never used.
import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { openDatabase, type TillDatabase } from '../../server/db/database.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { dumpMigratedPglite, JOB_QUEUE_SCHEMA as JOB_QUEUE_SCHEMA_NAME } from '../../server/db/pglite-template.js';
import { randomToken } from '../../server/shared/crypto.js';

export const usingPostgres = Boolean(process.env.DATABASE_URL);

const root = path.resolve(import.meta.dirname, '../..');
const cacheDir = path.join(root, 'node_modules/.cache/till-tests');

/** A hash of what the template is made of: every migration's source, how it is dumped, and the PGlite and pg-boss releases. */
async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  const migrations = path.join(root, 'server/db/migrations');
  for (const file of (await readdir(migrations)).sort()) hash.update(file).update(await readFile(path.join(migrations, file)));
  hash.update(await readFile(path.join(root, 'server/db/pglite-template.ts'))); // how the dump is made
  for (const dependency of ['@electric-sql/pglite', 'pg-boss']) {
    const { version } = JSON.parse(await readFile(path.join(root, 'node_modules', dependency, 'package.json'), 'utf8')) as { version: string };
    hash.update(`${dependency}@${version}`);
  }
  return hash.digest('hex').slice(0, 12);
}

/** pg-boss's schema under the name Till gives it (server/jobs/index.ts), as its first start would install it. */
const JOB_QUEUE_SCHEMA = PgBoss.getConstructionPlans(JOB_QUEUE_SCHEMA_NAME);

/** The PGlite template's file, built (migrated and dumped) when it is not there yet. */
export async function pgliteTemplateFile(): Promise<string> {
  const file = path.join(cacheDir, `pglite-${await templateKey()}.tar`);
  if (
    await access(file).then(
      () => true,
      () => false,
    )
  )
    return file;
  const dump = await dumpMigratedPglite(); // the database the build writes as dist/pglite-template/
  await mkdir(cacheDir, { recursive: true });
  // Written aside and renamed, so a reader never sees half a file (two builders may race).
  const partial = `${file}.${process.pid}.${randomToken(4)}`;
  await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
  await rename(partial, file);
  return file;
}

let pgliteDump: Promise<Blob> | undefined;
/** The PGlite template's dump (for `loadDataDir`), read once per test worker. */
export function pgliteTemplate(): Promise<Blob> {
  pgliteDump ??= pgliteTemplateFile().then(async (file) => new Blob([await readFile(file)]));
  return pgliteDump;
}

/** Runs one statement on the server of DATABASE_URL, through its `postgres` database. */
async function onServer<T = any>(sql: string, values: unknown[] = []): Promise<T[]> {
  const admin = new URL(process.env.DATABASE_URL!);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the server of DATABASE_URL. */
function urlOf(name: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A database name under DATABASE_URL's own (`<name>_<label>_<random>`), within PostgreSQL's 63 characters. */
function familyName(label: string): string {
  const base = new URL(process.env.DATABASE_URL!).pathname.slice(1);
  const suffix = `_${randomToken(6)}`.toLowerCase();
  return (
    `${base}_${label}`
      .replace(/[^a-z0-9_]/gi, '_')
      .toLowerCase()
      .slice(0, 63 - suffix.length) + suffix
  );
}

/** The PostgreSQL template's name, built when it is not there yet; templates of other keys are dropped. */
export async function postgresTemplate(): Promise<string> {
  const base = new URL(process.env.DATABASE_URL!).pathname.slice(1);
  const name = `${base}_tpl_${await templateKey()}`.slice(0, 63);
  const existing = await onServer<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${base}\\_tpl\\_%`]);
  if (existing.some((d) => d.datname === name)) return name;
  for (const stale of existing) await onServer(`DROP DATABASE IF EXISTS "${stale.datname}" WITH (FORCE)`);
  const building = familyName('tpl_building');
  await onServer(`CREATE DATABASE "${building}"`);
  const database = await openDatabase({ databaseUrl: urlOf(building), maxConnections: 1 });
  try {
    await migrateToLatest(database.db);
    await database.sql.exec(JOB_QUEUE_SCHEMA);
  } finally {
    await database.close();
  }
  try {
    // Renamed when complete, so a half-migrated template is never copied; no one connects to it after.
    await onServer(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    await onServer(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  } catch (err) {
    await onServer(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
    if (!(await onServer(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).length) throw err;
  }
  return name;
}

let postgresTemplateName: Promise<string> | undefined;

export interface TestDatabase {
  database: TillDatabase;
  /** The PostgreSQL database's URL, for another process on it; undefined on PGlite. */
  url: string | undefined;
  /** Closes the database and, on PostgreSQL, drops it (unless TILL_TEST_KEEP_DATABASES is set: CI scans them afterwards). */
  close(): Promise<void>;
}

/** A database of its own, migrated to the latest schema: a copy of the run's template. */
export async function openTestDatabase(label = 'test', maxConnections = 20): Promise<TestDatabase> {
  if (!usingPostgres) {
    const database = await openDatabase({ loadDataDir: await pgliteTemplate() });
    return { database, url: undefined, close: () => database.close() };
  }
  postgresTemplateName ??= postgresTemplate();
  const template = await postgresTemplateName;
  const name = familyName(label);
  await onServer(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = urlOf(name);
  const database = await openDatabase({ databaseUrl: url, maxConnections });
  return {
    database,
    url,
    async close() {
      await database.close();
      if (!process.env.TILL_TEST_KEEP_DATABASES) await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * An empty PostgreSQL database of its own on the server of DATABASE_URL (for a test of what a
 * first start on an empty database does); undefined on PGlite.
 */
export async function emptyPostgres(label: string): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (!usingPostgres) return undefined;
  const name = familyName(label);
  await onServer(`CREATE DATABASE "${name}"`);
  return {
    url: urlOf(name),
    drop: async () => {
      if (!process.env.TILL_TEST_KEEP_DATABASES) await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** Removes PGlite templates of other keys from the cache (a changed migration leaves the old one behind). */
export async function prunePgliteTemplates(keep: string): Promise<void> {
  const files = await readdir(cacheDir).catch(() => [] as string[]);
  await Promise.all(files.filter((f) => /^pglite-.*\.tar$/.test(f) && path.join(cacheDir, f) !== keep).map((f) => rm(path.join(cacheDir, f), { force: true })));
}
