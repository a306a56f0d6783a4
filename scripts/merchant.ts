#!/usr/bin/env -S npx tsx
// Merchant administration.
//
//   npm run merchant -- create --name "Acme" [--plan standard|enterprise] [--email ops@acme.example]
//                              [--logo-url https://acme.example/logo.png] [--brand-color "#0a7d33"] [--json]
//                              [--currency EUR] [--country DE]
//   npm run merchant -- roles list|delete …, keys list|revoke …   (scripts/merchant-keys.ts)
//   npm run merchant -- --help
//
// --currency is its default currency (USD when omitted), --country its country (US); its primary
// location is named after it, in that country (GET /v1/merchantLocation).
//
// Uses the same database as the server: DATABASE_URL, or the embedded PGlite under TILL_DATA_DIR.
// PGlite admits one process at a time: while a server holds it, this command refuses (exit 75)
// and writes nothing, instead of creating a merchant the server would never see.
import { hostname } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { systemClock } from '../server/shared/clock.js';
import { loadConfig } from '../server/config.js';
import { openDatabase } from '../server/db/database.js';
import type { Database } from '../server/db/schema.js';
import { DatabaseLockedError, displayPath } from '../server/db/pglite-lock.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { createMerchant } from '../server/domain/merchants/merchant.service.js';
import { type KeysCommand, groupUsage, keysUsage, parseKeysCommand, runKeysCommand } from './merchant-keys.js';

/** Exit status when the embedded database is held by another process (EX_TEMPFAIL: try again later). */
const LOCKED = 75;

/** What to do when `error.holder` has the embedded database open. */
function lockedMessage(error: DatabaseLockedError): string {
  const { holder } = error;
  const here = holder.hostname === hostname();
  const who = `${holder.role} (pid ${holder.pid}${here ? '' : ` on host ${holder.hostname}`}, started ${holder.startedAt})`;
  const lines = [
    `merchant: ${who} holds the embedded database ${displayPath(error.dir)}. PGlite admits one process at a time:`,
    `a merchant created beside it would never reach that ${holder.role === 'the server' ? 'server' : 'process'} and could be overwritten. Nothing was written.`,
    '',
  ];
  if (holder.role === 'the server') {
    lines.push(
      'Either',
      `  - stop the server (Ctrl-C in its terminal${here ? `, or kill ${holder.pid}` : ''}), run this command again, then start the server: it serves the new merchant at once;`,
      '  - or run Till on PostgreSQL (DATABASE_URL): there this command works while servers run;',
      "  - or, with an existing merchant's key, create it through the running server: POST /v1/merchant (x-api-key).",
    );
  } else {
    lines.push(`Wait for it to finish, or stop it${here ? ` (kill ${holder.pid})` : ''}, then run this command again.`);
  }
  if (!here) lines.push(`Its process cannot be checked from this host: if no Till process runs there any more, delete ${displayPath(error.lockFile)}.`);
  return lines.join('\n');
}

const usage = `Usage: npm run merchant -- create --name "Acme" [--plan standard|enterprise] [--email EMAIL] [--logo-url HTTPS_URL] [--brand-color #RRGGBB] [--currency ISO4217] [--country XX] [--json]`;

const help = `Usage: npm run merchant -- <command> [options]

  create --name "Acme" [--plan standard|enterprise] [--email EMAIL] [--logo-url HTTPS_URL] [--brand-color #RRGGBB] [--currency ISO4217] [--country XX] [--json]
      Creates a merchant and prints its four keys (shown once).
${keysUsage}

Roles and restricted keys are made through the API (POST /v1/role, POST /v1/role/{id}/keys).
Uses the server's database: DATABASE_URL, or the embedded PGlite under TILL_DATA_DIR (while a
server holds PGlite, this command refuses with exit 75). Exit 1: refused (unknown merchant, role
or key; a role still in use); exit 2: a bad call.`;

/** The options of `create`, or the exit status of a bad call (its message printed). */
function createOptions(rest: string[]):
  | {
      name: string;
      plan: 'standard' | 'enterprise';
      email?: string;
      'logo-url'?: string;
      'brand-color'?: string;
      currency?: string;
      country?: string;
      json?: boolean;
    }
  | number {
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
        currency: { type: 'string' },
        country: { type: 'string' },
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
  if (values.country !== undefined && !/^[A-Z]{2}$/.test(values.country)) {
    console.error(`--country must be an ISO 3166-1 alpha-2 code such as US; got "${values.country}".`);
    return 2;
  }
  return { ...values, name: values.name, plan: values.plan };
}

/** Runs `work` on the migrated database, or answers LOCKED (explained) when another process holds the embedded one. */
async function withDatabase(work: (db: Kysely<Database>) => Promise<number>): Promise<number> {
  const config = loadConfig();
  let database;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, 'pglite'), owner: 'the merchant command' });
  } catch (err) {
    if (!(err instanceof DatabaseLockedError)) throw err;
    console.error(lockedMessage(err));
    return LOCKED;
  }
  try {
    await migrateToLatest(database.db);
    return await work(database.db);
  } finally {
    await database.close();
  }
}

type CreateOptions = Exclude<ReturnType<typeof createOptions>, number>;

async function create(db: Kysely<Database>, values: CreateOptions): Promise<number> {
  const { merchant, credentials } = await createMerchant(db, systemClock, {
    name: values.name,
    ratePlan: values.plan,
    email: values.email ?? null,
    logoUrl: values['logo-url'] ?? null,
    brandColor: values['brand-color'] ?? null,
    ...(values.currency ? { defaultCurrency: values.currency } : {}),
    ...(values.country ? { country: values.country } : {}),
  });
  if (values.json) {
    console.log(JSON.stringify(credentials));
  } else {
    const { test, live } = credentials.keys;
    console.log(`Created merchant "${merchant.name}" (id ${merchant.id}, ${merchant.rate_plan} plan). The keys are shown once:`);
    console.log(
      `  test secret       ${test.secret}\n  test publishable  ${test.publishable}\n  live secret       ${live.secret}\n  live publishable  ${live.publishable}`,
    );
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(help);
    return 0;
  }
  if (command === 'roles' || command === 'keys') {
    if (rest.includes('--help') || rest.includes('-h')) {
      console.log(help);
      return 0;
    }
    const parsed = parseKeysCommand(command, rest);
    if (typeof parsed === 'string') {
      console.error(`${parsed}\nUsage: npm run merchant -- …\n${groupUsage(command)}\n(npm run merchant -- --help lists every command.)`);
      return 2;
    }
    return withDatabase((db) => runKeysCommand(db, systemClock, parsed satisfies KeysCommand));
  }
  if (command !== 'create') {
    console.error(command ? `Unknown command "${command}".\n\n${help}` : help);
    return 2;
  }
  const values = createOptions(rest);
  if (typeof values === 'number') return values;
  return withDatabase((db) => create(db, values));
}

// Interrupted: exit, which removes this process's database lock (an exit hook does).
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`merchant: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
