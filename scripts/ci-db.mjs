#!/usr/bin/env node
// Creates or drops a throwaway PostgreSQL database for a CI run.
//   node scripts/ci-db.mjs create   prints the new database's URL
//   node scripts/ci-db.mjs drop URL drops it and its family: the template and the copies the tests
//                                   made of it (`<name>_…`, test/support/database.ts)
// The server is PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const admin = process.env.PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const [command, target] = process.argv.slice(2);
const client = new pg.Client({ connectionString: admin });
try {
  await client.connect();
  if (command === 'create') {
    const name = `till_ci_${Date.now()}_${randomBytes(3).toString('hex')}`;
    await client.query(`CREATE DATABASE ${name}`);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    console.log(url.toString());
  } else if (command === 'drop' && target) {
    const name = new URL(target).pathname.slice(1);
    if (!/^till_ci_[0-9a-z_]+$/.test(name)) throw new Error(`refusing to drop ${name}: not a CI database`);
    const family = await client.query('SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2', [name, `${name}\\_%`]);
    for (const { datname } of family.rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } else {
    console.error('usage: ci-db.mjs create | drop URL');
    process.exitCode = 2;
  }
} catch (err) {
  console.error(`ci-db: ${err.message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}
