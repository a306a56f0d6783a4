// On PostgreSQL (DATABASE_URL) the embedded database's lock is none of Till's business: the
// server and the merchant command never open the PGlite directory, nor wait for its lock.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockPgliteDirectory } from '../../server/db/pglite-lock.js';
import { createLogger } from '../../server/log.js';
import { startServer } from '../../server/main.js';
import { openTestDatabase } from '../support/database.js';
import { useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir, merchant } = useProcesses();

describe('on PostgreSQL (DATABASE_URL)', () => {
  it('neither the server nor the merchant command touch the embedded database, even one that another process holds', async () => {
    const dataDir = await tempDir();
    // A copy of the migrated template (not what a first start does is proven here).
    const database = await openTestDatabase('no_pglite', 1);
    const env = { ...process.env, TILL_DATA_DIR: dataDir, DATABASE_URL: database.url, NODE_ENV: 'test', LOG_LEVEL: 'silent' };
    try {
      const server = await startServer({ env: { ...env, PORT: '0' }, announce: false, jobs: false, logger: createLogger('silent') });
      try {
        const created = await merchant(['create', '--name', 'On PostgreSQL', '--json'], env);
        expect(created.code).toBe(0);
        expect((await call(server.url, 'GET', '/v1/plans', { key: JSON.parse(created.stdout).keys.test.secret })).status).toBe(200);
      } finally {
        await server.close();
      }
      expect(await readdir(dataDir)).not.toContain('pglite');

      // A PGlite lock held in the same data dir does not stand in a PostgreSQL start's way.
      const lock = await lockPgliteDirectory(path.join(dataDir, 'pglite'), 'the server');
      try {
        expect((await merchant(['create', '--name', 'Beside a PGlite server', '--json'], env)).code).toBe(0);
        expect(await readdir(path.join(dataDir, 'pglite'))).toEqual(['till.lock']);
      } finally {
        await lock.release();
      }
    } finally {
      await database.close();
    }
  }, 60_000);
});
