// A first start on an empty PostgreSQL database (DATABASE_URL) beside an embedded database in the
// same data directory: the demo merchant's keys never go over the embedded database's own.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.js';
import { startServer } from '../../server/main.js';
import { emptyPostgres } from '../support/database.js';
import { useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir } = useProcesses();

describe('first start on an empty PostgreSQL database beside an embedded one', () => {
  it("never overwrites the embedded database's demo-merchant.json: the new keys go to demo-merchant-<database>.json", async () => {
    const dataDir = await tempDir();
    const embedded = `${JSON.stringify({ merchantId: 1, keys: { test: { secret: 'the embedded one' } } })}\n`;
    await writeFile(path.join(dataDir, 'demo-merchant.json'), embedded);
    const database = (await emptyPostgres('demo_file'))!;
    const env = { TILL_DATA_DIR: dataDir, DATABASE_URL: database.url, PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' };
    try {
      const server = await startServer({ env, announce: false, jobs: false, logger: createLogger('silent') });
      try {
        expect(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8')).toBe(embedded);
        const name = new URL(database.url).pathname.slice(1);
        const file = JSON.parse(await readFile(path.join(dataDir, `demo-merchant-${name}.json`), 'utf8'));
        expect(file).toEqual(server.demo);
        expect((await call(server.url, 'GET', '/v1/plans', { key: file.keys.test.secret })).status).toBe(200);
      } finally {
        await server.close();
      }
    } finally {
      await database.drop();
    }
  });
});
