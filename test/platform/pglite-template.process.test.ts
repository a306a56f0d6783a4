// The build's migrated PGlite template (server/db/pglite-template.ts, dist/pglite-template/): a
// new data directory starts from a copy of it instead of initdb and every migration, a directory that holds a
// database never does, and a template this build's migrations do not begin with is never used.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.js';
import { migrateDown, migrateToLatest } from '../../server/db/migrate.js';
import { migrations } from '../../server/db/migrations/index.js';
import { pgliteTemplate, writePgliteTemplate } from '../../server/db/pglite-template.js';
import { jobQueueNames, makeJobQueues, startJobs } from '../../server/jobs/index.js';
import { createLogger } from '../../server/log.js';
import { systemClock } from '../../server/shared/clock.js';

let dir: string;
let template: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'till-template-'));
  template = path.join(dir, 'pglite-template');
  await writePgliteTemplate(template, makeJobQueues); // what `npm run build` does
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const count = async (database: Awaited<ReturnType<typeof openDatabase>>, text: string) => Number((await database.sql.query(text)).rows[0].n);

describe('a first start on the build’s template', () => {
  it('starts a new data directory migrated, with the job queue’s schema and no merchant; a second open keeps its data and never asks for the template', async () => {
    const dataDir = path.join(dir, 'data');
    let asked = 0;
    const load = async () => {
      asked++;
      return pgliteTemplate(template);
    };
    const first = await openDatabase({ dataDir, template: load });
    try {
      expect(asked).toBe(1);
      expect((await migrateToLatest(first.db)).results).toEqual([]); // nothing pending
      expect(await count(first, 'SELECT count(*) AS n FROM kysely_migration')).toBe(Object.keys(migrations).length);
      expect(await count(first, "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'pgboss' AND table_name = 'job'")).toBe(1);
      expect(await count(first, 'SELECT count(*) AS n FROM merchants')).toBe(0);
      // Opened with Till's start parameters (pglite-start.ts): PGlite's own, and a 64 MB buffer pool.
      expect((await first.sql.query('SHOW shared_buffers')).rows).toEqual([{ shared_buffers: '64MB' }]);
      expect((await first.sql.query('SHOW search_path')).rows).toEqual([{ search_path: 'public' }]);
      await first.sql.exec("CREATE TABLE kept_marker (note text); INSERT INTO kept_marker VALUES ('written after the template')");
    } finally {
      await first.close();
    }
    const second = await openDatabase({ dataDir, template: load });
    try {
      expect(asked).toBe(1);
      expect((await second.sql.query('SELECT note FROM kept_marker')).rows).toEqual([{ note: 'written after the template' }]);
    } finally {
      await second.close();
    }
    // The template itself is only copied: a directory started from it later never sees that table.
    const third = await openDatabase({ dataDir: path.join(dir, 'third'), template: load });
    try {
      expect(await count(third, "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'kept_marker'")).toBe(0);
    } finally {
      await third.close();
    }
  });

  it('holds every queue the jobs work, made as their start makes them: a first start makes none', async () => {
    const database = await openDatabase({ dataDir: path.join(dir, 'queues'), template: () => pgliteTemplate(template) });
    const queues = async () => (await database.sql.query('SELECT name FROM pgboss.queue ORDER BY name')).rows.map((r: { name: string }) => r.name);
    const tables = () => count(database, "SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'pgboss'");
    try {
      expect(await queues()).toEqual([...jobQueueNames()].sort());
      const before = await tables();
      const jobs = await startJobs(database, systemClock, createLogger('silent'), {
        allowLoopbackWebhooks: false,
        webhookTimeoutMs: 30_000,
        smtpUrl: undefined,
        smtpFrom: 'Till <no-reply@till.localhost>',
      });
      await jobs.stop();
      expect(await queues()).toEqual([...jobQueueNames()].sort()); // no queue the template lacked
      expect(await tables()).toBe(before); // each queue's table was there
    } finally {
      await database.close();
    }
  });

  it('copies the template again into a directory whose copy was cut short (no PG_VERSION yet)', async () => {
    const dataDir = path.join(dir, 'cut-short');
    await mkdir(path.join(dataDir, 'base'), { recursive: true });
    await writeFile(path.join(dataDir, 'base', 'half-written'), 'x');
    const database = await openDatabase({ dataDir, template: () => pgliteTemplate(template) });
    try {
      expect(await count(database, 'SELECT count(*) AS n FROM kysely_migration')).toBe(Object.keys(migrations).length);
    } finally {
      await database.close();
    }
  });

  it('runs the migrations the template does not hold on top of it', async () => {
    const database = await openDatabase({ dataDir: path.join(dir, 'behind'), template: () => pgliteTemplate(template) });
    try {
      await migrateDown(database.db); // as if the template were built before the latest migration
      const applied = await migrateToLatest(database.db);
      expect(applied.results?.map((r) => [r.migrationName, r.status])).toEqual([[Object.keys(migrations).at(-1), 'Success']]);
    } finally {
      await database.close();
    }
  });

  it('is not used when its migrations are not the first of this build’s (one this build lacks, or another order)', async () => {
    const sidecar = `${template}.json`;
    const names = Object.keys(migrations);
    const held = JSON.parse(await readFile(sidecar, 'utf8'));
    expect(held).toEqual({ migrations: names });
    expect(await pgliteTemplate(template)).toBe(template);
    try {
      await writeFile(sidecar, JSON.stringify({ migrations: names.slice(0, -1) })); // an older build's: the rest runs on top
      expect(await pgliteTemplate(template)).toBe(template);
      await writeFile(sidecar, JSON.stringify({ migrations: [...names, '2099_01_01_9999_unknown'] }));
      expect(await pgliteTemplate(template)).toBeUndefined();
      await writeFile(sidecar, JSON.stringify({ migrations: [names[1], names[0], ...names.slice(2)] }));
      expect(await pgliteTemplate(template)).toBeUndefined();
      expect(await pgliteTemplate(path.join(dir, 'absent'))).toBeUndefined();
    } finally {
      await writeFile(sidecar, JSON.stringify(held));
    }
  });
});
