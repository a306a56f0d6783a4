#!/usr/bin/env -S npx tsx
// Merchant administration.
//
//   npm run merchant -- create --name "Acme" [--plan standard|enterprise] [--email ops@acme.example]
//                              [--logo-url https://acme.example/logo.png] [--brand-color "#0a7d33"] [--json]
//
// Uses the same database as the server: DATABASE_URL, or the embedded PGlite under TILL_DATA_DIR
// (stop the server first when using PGlite: it allows one process at a time).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../server/shared/clock.js';
import { loadConfig } from '../server/config.js';
import { openDatabase } from '../server/db/database.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { createMerchant } from '../server/domain/merchants/merchant.service.js';

const usage = `Usage: npm run merchant -- create --name "Acme" [--plan standard|enterprise] [--email EMAIL] [--logo-url HTTPS_URL] [--brand-color #RRGGBB] [--json]`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'create') {
    console.error(command ? `Unknown command "${command}".\n${usage}` : usage);
    return 2;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        plan: { type: 'string', default: 'standard' },
        email: { type: 'string' },
        'logo-url': { type: 'string' },
        'brand-color': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage}`);
    return 2;
  }
  if (!values.name?.trim()) {
    console.error(`--name is required.\n${usage}`);
    return 2;
  }
  if (values.plan !== 'standard' && values.plan !== 'enterprise') {
    console.error(`--plan must be standard or enterprise; got "${values.plan}".`);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite') });
  try {
    await migrateToLatest(database.db);
    const { merchant, credentials } = await createMerchant(database.db, systemClock, { name: values.name, ratePlan: values.plan, email: values.email ?? null, logoUrl: values['logo-url'] ?? null, brandColor: values['brand-color'] ?? null });
    if (values.json) {
      console.log(JSON.stringify(credentials));
    } else {
      const { test, live } = credentials.keys;
      console.log(`Created merchant "${merchant.name}" (id ${merchant.id}, ${merchant.rate_plan} plan). The keys are shown once:`);
      console.log(`  test secret       ${test.secret}\n  test publishable  ${test.publishable}\n  live secret       ${live.secret}\n  live publishable  ${live.publishable}`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`merchant: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
