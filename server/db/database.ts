import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import { pipelinedPool } from './pipelined-pool.js';
import pg from 'pg';
import { type ListenHandlers, listenPglite, listenPostgres, type Unlisten } from './notifications.js';
import { lockPgliteDirectory } from './pglite-lock.js';
import { createPglite } from './pglite-start.js';
import { PgliteSessionDialect } from './pglite-dialect.js';
import { preparedStatements } from './pglite-statements.js';
import { copyPgliteTemplate, pgliteDirectoryInUse } from './pglite-template.js';
import { tracedPglite } from './traced-sql.js';
import type { Database } from './schema.js';
import { makeDirectory } from '../shared/make-directory.js';

/** A plain SQL runner over the same connection(s) as Kysely, for libraries that bring their own SQL. */
export interface SqlRunner {
  /** One statement, with parameters. */
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number }>;
  /** Several statements, no parameters. */
  exec(text: string): Promise<void>;
  /** Several statements, no parameters; the rows of the last one. */
  execRows(text: string): Promise<{ rows: any[] }>;
}

/** The database or a transaction on it: repositories take either, so a service decides where transactions begin. */
export type Db = Kysely<Database> | Transaction<Database>;
/** A transaction: what a repository function needs when it locks rows or must share the caller's unit of work. */
export type Trx = Transaction<Database>;

export interface TillDatabase {
  db: Kysely<Database>;
  kind: 'pglite' | 'postgres';
  sql: SqlRunner;
  /** The pg pool (PostgreSQL only), for libraries that take one. */
  pool?: pg.Pool;
  /**
   * Hears NOTIFY on `channel` from every process, once the notifying transaction commits (on
   * PostgreSQL over a connection of its own that reconnects by itself). Closing the database stops it.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Unlisten>;
  close(): Promise<void>;
}

/** Listeners that end with the database. */
function listenerSet(start: (channel: string, handlers: ListenHandlers) => Promise<Unlisten>) {
  const open = new Set<Unlisten>();
  return {
    async listen(channel: string, handlers: ListenHandlers): Promise<Unlisten> {
      const stop = await start(channel, handlers);
      const unlisten = async () => {
        if (open.delete(unlisten)) await stop();
      };
      open.add(unlisten);
      return unlisten;
    },
    closeAll: () => Promise.all([...open].map((unlisten) => unlisten())),
  };
}

export interface DatabaseOptions {
  /** PostgreSQL server URL. When absent, PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; omit (or `memory://`) for an in-memory database. One process at a time holds a directory. */
  dataDir?: string | undefined;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
  /**
   * Who opens a PGlite directory, in words ("the server", "the merchant command"): it is written
   * into the directory's lock, so a second opener is told who holds it.
   */
  owner?: string;
  /** A PGlite dump (`dumpDataDir`) to start from instead of an empty database: the tests' migrated template. */
  loadDataDir?: Blob;
  /**
   * A migrated data directory to copy into a new PGlite data directory (pglite-template.ts), asked
   * for only when the directory holds no database yet; undefined answers start an empty one as before.
   */
  template?: () => Promise<string | undefined>;
}

// int8 (count(*), sums of integers) as JS numbers would lose precision past 2^53; keep them as
// strings like numeric, and convert where a small integer is certain.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

/** Opens the database: PGlite (embedded PostgreSQL) by default, a PostgreSQL server with `databaseUrl`. */
export async function openDatabase(options: DatabaseOptions = {}): Promise<TillDatabase> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openPglite(options);
}

/** A PostgreSQL server through a pipelined `pg` pool. */
function openPostgres(databaseUrl: string, options: DatabaseOptions): TillDatabase {
  // Pipeline mode: a transaction's `begin` and `commit` travel with its statements, and a quarter
  // of the pool carries every request's plain reads, many in one write (pipelined-pool.ts).
  const maxConnections = options.maxConnections ?? 10;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: maxConnections, pipeline: true });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Queries in flight still fail loudly.
  });
  pool.on('connect', (client) => {
    // A client in use (checked out for a transaction) that loses its connection emits 'error'
    // besides failing its queries; pg-pool listens only while the client is idle, and an
    // 'error' without a listener would end the process. The request sees the failed query.
    client.on('error', () => {});
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pipelinedPool(pool, Math.floor(maxConnections / 4)) }) });
  const listeners = listenerSet((channel, handlers) => listenPostgres(databaseUrl, channel, handlers));
  return {
    db,
    kind: 'postgres',
    pool,
    listen: listeners.listen,
    sql: {
      async query(text, values) {
        const r = await pool.query(text, values as any[]);
        return { rows: r.rows, rowCount: r.rowCount ?? r.rows.length };
      },
      async exec(text) {
        await pool.query(text);
      },
      async execRows(text) {
        // A text of several statements answers with a result for each (pg's types know only one).
        const r = (await pool.query(text)) as pg.QueryResult | pg.QueryResult[];
        const last = Array.isArray(r) ? r[r.length - 1] : r;
        return { rows: last?.rows ?? [] };
      },
    },
    async close() {
      await listeners.closeAll();
      await db.destroy();
    },
  };
}

/** PGlite in this process: in memory, or in a directory only one process opens at a time. */
async function openPglite(options: DatabaseOptions): Promise<TillDatabase> {
  const dir = options.dataDir && options.dataDir !== 'memory://' ? options.dataDir : undefined;
  if (dir) await makeDirectory(dir);
  // One process at a time on a directory (see pglite-lock.ts); throws DatabaseLockedError before anything is read.
  const lock = dir ? await lockPgliteDirectory(dir, options.owner ?? `process ${process.argv.slice(1, 2).join(' ') || process.pid}`) : undefined;
  let pglite: PGlite;
  try {
    const template = dir && options.template && !(await pgliteDirectoryInUse(dir)) ? await options.template() : undefined;
    if (dir && template) await copyPgliteTemplate(template, dir);
    pglite = await createPglite({ ...(dir ? { dataDir: dir } : {}), ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}) });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  // Each statement prepared once and run in one exchange (pglite-statements.ts), in a span of its own when tracing is on (traced-sql.ts);
  // the session taken in turn, plain reads waiting for one turn sent together (pglite-dialect.ts).
  const statements = tracedPglite(preparedStatements(pglite));
  const dialect = new PgliteSessionDialect(statements);
  const db = new Kysely<Database>({ dialect });
  const listeners = listenerSet((channel, handlers) => listenPglite(pglite, db, channel, handlers));
  return {
    db,
    kind: 'pglite',
    listen: listeners.listen,
    // In turns of the session of their own, never inside a transaction (pglite-dialect.ts).
    sql: {
      async query(text, values) {
        const r = await dialect.alone(() => statements.query(text, values as any[]));
        return { rows: r.rows as any[], rowCount: r.affectedRows ?? r.rows.length };
      },
      async exec(text) {
        await dialect.alone(() => statements.exec(text));
      },
      async execRows(text) {
        const results = await dialect.alone(() => statements.exec(text));
        return { rows: (results[results.length - 1]?.rows as any[]) ?? [] };
      },
    },
    close: async () => {
      await listeners.closeAll();
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      await lock?.release();
    },
  };
}
