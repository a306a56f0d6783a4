#!/usr/bin/env node
// `npm run test:postgres` needs a PostgreSQL server: say so plainly instead of finding no project.
if (!process.env.DATABASE_URL) {
  console.error('The postgres tests need DATABASE_URL, a PostgreSQL server URL, e.g.');
  console.error('  DATABASE_URL=postgres://postgres@127.0.0.1:5432/till_test npm run test:postgres');
  console.error('Each test file works on a copy of a template database it makes beside that one (test/support/database.ts).');
  process.exit(2);
}
