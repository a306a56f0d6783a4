/**
 * The dashboard's lists with 10,000 payments of one merchant (issue 33: each page ≤ 200 ms of
 * server time). `npx tsx scripts/bench-dashboard.ts` (PGlite in memory; DATABASE_URL for a
 * PostgreSQL server, on a database it may fill). Seeds BENCH_DASHBOARD_PAYMENTS (10,000) payments
 * with their cards by INSERT … SELECT over generate_series, starts the app in this process, signs
 * in, and requests each page BENCH_DASHBOARD_RUNS (30) times one at a time: the time is the
 * request's whole round trip on loopback, so it bounds the server's time from above. Prints a
 * table and writes out/bench/dashboard.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { openDatabase } from '../server/db/database.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { listenApp } from '../server/http/listen.js';
import { createLogger } from '../server/log.js';
import { createMerchant } from '../server/domain/merchants/merchant.service.js';
import { systemClock } from '../server/shared/clock.js';
import { fmt, latencySummary, markdownTable } from './bench-format.js';
import { outDir, positiveInt } from './bench-lib.js';

const PAYMENTS = positiveInt('BENCH_DASHBOARD_PAYMENTS', 10_000);
const RUNS = positiveInt('BENCH_DASHBOARD_RUNS', 30);
const GOAL_MS = 200;

async function seed(db: Awaited<ReturnType<typeof openDatabase>>['db'], merchantId: number): Promise<void> {
  await sql`INSERT INTO payment_methods (id, merchant_id, livemode, brand, last4, expiry_month, expiry_year, fingerprint, sandbox_outcome, billing_email, created_at)
    SELECT 'pm_bench_' || g, ${merchantId}, false, 'visa', '4242', 12, 2030, 'fp' || (g % 500), 'approve', 'payer' || (g % 2000) || '@example.com', now() - (g || ' minutes')::interval
    FROM generate_series(1, ${PAYMENTS}) g`.execute(db);
  await sql`INSERT INTO payments (reference_number, merchant_id, livemode, payment_method_id, status, amount, currency, fee, refunded_amount, captured_amount, metadata, created_at, updated_at)
    SELECT 'PAY-BENCH' || g, ${merchantId}, false, 'pm_bench_' || g,
      (ARRAY['succeeded','failed','captured','refunded','partially_refunded','authorized'])[1 + g % 6],
      (g % 50000) / 100.0 + 1, 'USD', 0.3, 0, NULL, '{}', now() - ((${PAYMENTS} - g) * 4 || ' minutes')::interval, now()
    FROM generate_series(1, ${PAYMENTS}) g`.execute(db);
  await sql`ANALYZE payments`.execute(db);
  await sql`ANALYZE payment_methods`.execute(db);
}

async function main(): Promise<void> {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL });
  await migrateToLatest(database.db);
  const config = { ...loadConfig({ NODE_ENV: 'production' }), rateLimitScale: 1000 };
  const { credentials } = await createMerchant(database.db, systemClock, { name: `Bench ${Date.now()}` });
  const seedStart = performance.now();
  await seed(database.db, credentials.merchantId);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const app = createApp({ database, clock: systemClock, config, logger: createLogger('silent') });
  const server = await listenApp(app, 0, '127.0.0.1');
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const cookie = await signIn(base, credentials.keys.test.secret);
  // The `after` cursor of a page nine tenths down the list (ids are 1..PAYMENTS, newest highest).
  const oldest = Math.max(1, Math.floor(PAYMENTS / 10));
  const pages: [string, string][] = [
    ['home (balances, 30-day charts, events)', '/dashboard'],
    ['payments, first page', '/dashboard/payments'],
    ['payments, a page deep in the list', `/dashboard/payments?after=${oldest}`],
    ['payments, status=failed', '/dashboard/payments?status=failed'],
    ['payments, amount 100–200 and a date range', `/dashboard/payments?min=100&max=200&from=${day(-20)}&to=${day(0)}`],
    ['payments, search by email', '/dashboard/payments?q=payer77%40example.com'],
    ['payments, search by reference', '/dashboard/payments?q=PAY-BENCH5000'],
    ['a payment', `/dashboard/payments/${Math.floor(PAYMENTS / 2)}`],
  ];
  const rows: string[][] = [];
  const results = [];
  for (const [name, pathname] of pages) {
    const times: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const start = performance.now();
      const res = await fetch(`${base}${pathname}`, { headers: { cookie } });
      await res.text();
      if (res.status !== 200) throw new Error(`${pathname}: ${res.status}`);
      if (i >= 3) times.push(performance.now() - start);
    }
    const s = latencySummary(times);
    results.push({ name, path: pathname, latencyMs: s });
    rows.push([name, fmt(s.p50, 1), fmt(s.p90, 1), fmt(s.max, 1), s.max <= GOAL_MS ? 'yes' : 'NO']);
  }
  server.close();
  await database.close();
  const table = markdownTable([['page', 'p50 ms', 'p90 ms', 'max ms', `max ≤ ${GOAL_MS} ms`], ...rows]);
  console.log(
    `${PAYMENTS} payments of one merchant (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}), seeded in ${fmt(seedSeconds, 1)} s; ${RUNS} requests a page, one at a time; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log(table);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'dashboard.json'), JSON.stringify({ payments: PAYMENTS, runs: RUNS, goalMs: GOAL_MS, results }, null, 2));
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function signIn(base: string, key: string): Promise<string> {
  const form = await fetch(`${base}/dashboard/sign-in`);
  const formCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key, csrf }).toString(),
    redirect: 'manual',
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('till_dashboard='));
  if (!session) throw new Error(`sign-in: ${res.status}`);
  return session.split(';')[0]!;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
