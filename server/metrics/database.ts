import type pg from 'pg';
import type { TillDatabase } from '../db/database.js';
import { dbPoolConnections, dbPoolMax, dbPoolWait, dbPoolWaiting, poolReader } from './registry.js';

/** The databases a scrape reports on: a process has one (tests open a few; the oldest are let go). */
const watched = new Set<TillDatabase>();
const MAX_WATCHED = 8;
const timedPools = new WeakSet<pg.Pool>();
poolReader.read = readPools;

/**
 * Reports `database`'s pool at every scrape (open, idle and busy connections, callers waiting,
 * its size) and times every wait for one of its connections. PGlite has one connection and no
 * pool: it counts as a pool of one, and nothing is timed.
 */
export function watchDatabase(database: TillDatabase): void {
  if (watched.has(database)) return;
  watched.add(database);
  if (watched.size > MAX_WATCHED) watched.delete(watched.values().next().value!);
  if (database.pool && !timedPools.has(database.pool)) {
    timedPools.add(database.pool);
    timeConnectionWaits(database.pool);
  }
}

/** At scrape time: the watched pools' connections, summed (a closed pool counts for nothing). */
function readPools(): void {
  let idle = 0;
  let total = 0;
  let waiting = 0;
  let max = 0;
  for (const { pool, kind } of watched) {
    if (kind === 'pglite') max += 1;
    if (!pool || pool.ended) continue;
    idle += pool.idleCount;
    total += pool.totalCount;
    waiting += pool.waitingCount;
    max += pool.options.max ?? 10;
  }
  dbPoolConnections.set({ state: 'idle' }, idle);
  dbPoolConnections.set({ state: 'in_use' }, total - idle);
  dbPoolWaiting.set(waiting);
  dbPoolMax.set(max);
}

type Connect = (callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void) => unknown;

/**
 * Times each `pool.connect`, the one way into a pg pool (its own `query` and the pipelined pool of
 * db/pipelined-pool.ts both take their connections there), by wrapping that method of this pool:
 * node-postgres emits no event when a waiting caller is served.
 */
function timeConnectionWaits(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as Connect;
  const observe = (started: number) => dbPoolWait.observe((performance.now() - started) / 1000);
  (pool as unknown as { connect: Connect }).connect = (callback) => {
    const started = performance.now();
    if (callback)
      return connect((err, client, done) => {
        observe(started);
        callback(err, client, done);
      });
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      observe(started);
      return client;
    });
  };
}
