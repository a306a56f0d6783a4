/**
 * The dashboard part of `npm run bench` (`BENCH_ONLY=dashboard`; `npx tsx scripts/bench-dashboard.ts`
 * runs it alone): issue 33's "each page answers in ≤ 200 ms of server time with 10,000 payments of
 * one merchant". On PGlite (in memory) and on PostgreSQL (a fresh bench database; skipped, and said
 * so, when it is unreachable), the app runs in this process (NODE_ENV=production, rate limits ×1000)
 * and one merchant is seeded (bench-dashboard-seed.ts): objects through the app, the bulk by
 * INSERT … SELECT. Then, signed in with its test secret key, every section's list page (and a
 * payment's, a webhook endpoint's) is requested BENCH_DASHBOARD_RUNS (20) times one at a time
 * after 2 untimed. The server time is the page's `Server-Timing: app;dur=` (from the request's
 * arrival to the page's send); the round trip on loopback at one connection bounds it from above.
 * Goal, per database: every page's p95 server time ≤ 200 ms.
 */
import os from 'node:os';
import { sql } from 'kysely';
import { createApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { openDatabase, type TillDatabase } from '../server/db/database.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { listenApp } from '../server/http/listen.js';
import { createLogger } from '../server/log.js';
import { createMerchant } from '../server/domain/merchants/merchant.service.js';
import { systemClock } from '../server/shared/clock.js';
import type { Goal } from './bench-goal-kinds.js';
import { fmt, markdownTable } from './bench-format.js';
import { createBenchDatabase, message, PgUnreachable, positiveInt } from './bench-lib.js';
import { DASHBOARD_SEED, seedDashboardMerchant } from './bench-dashboard-seed.js';

const RUNS = positiveInt('BENCH_DASHBOARD_RUNS', 20);
const WARMUP = 2;
export const DASHBOARD_GOAL_MS = 200;

interface Times {
  p50: number;
  p95: number;
  max: number;
}

export interface DashboardPageRow {
  name: string;
  path: string;
  /** Server-Timing's app duration, ms. */
  server: Times;
  /** The whole round trip, ms. */
  roundTrip: Times;
  bytes: number;
}

export interface DashboardResult {
  database: 'pglite' | 'postgres';
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  seedSeconds?: number;
  pages?: DashboardPageRow[];
  load?: { before: number[]; after: number[] };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
function times(values: number[]): Times {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? 0 };
}

/** A fetch, once more on a connection reset (a keep-alive connection the server closed while the bulk was written). */
const fetchAgain: typeof fetch = (input, init) =>
  fetch(input, init).catch((error: unknown) => (error instanceof TypeError ? fetch(input, init) : Promise.reject(error)));

async function signIn(base: string, key: string): Promise<string> {
  const form = await fetchAgain(`${base}/dashboard/sign-in`);
  const formCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await fetchAgain(`${base}/dashboard/sign-in`, {
    method: 'POST',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key, csrf }).toString(),
    redirect: 'manual',
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('till_dashboard='));
  if (!session) throw new Error(`sign-in answered ${res.status}`);
  return session.split(';')[0]!;
}

/** Every section's list page, and the pages of one payment and one webhook endpoint. */
async function pagesOf(database: TillDatabase, merchantId: number, endpointId: number): Promise<[string, string][]> {
  const ids = await sql<{ id: number }>`SELECT id FROM payments WHERE merchant_id = ${merchantId} AND livemode = false ORDER BY id DESC`.execute(database.db);
  const all = ids.rows.map((r) => Number(r.id));
  const deep = all[Math.floor(all.length * 0.9)]!;
  const middle = all[Math.floor(all.length / 2)]!;
  const from = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  return [
    ['home (balances, 30-day charts, events)', '/dashboard'],
    ['payments, first page', '/dashboard/payments'],
    ['payments, a page 9/10 down the list', `/dashboard/payments?after=${deep}`],
    ['payments, a newer page from there', `/dashboard/payments?before=${deep}`],
    ['payments, status=failed', '/dashboard/payments?status=failed'],
    ['payments, amount 100–200 and a date range', `/dashboard/payments?min=100&max=200&from=${from}&to=${to}`],
    ['payments, search by email', '/dashboard/payments?q=payer77%40example.com'],
    ['payments, search by id', `/dashboard/payments?q=${middle}`],
    ['payments, search by reference', `/dashboard/payments?q=PAY-BENCH${Math.floor(DASHBOARD_SEED.payments / 2)}`],
    ['a payment', `/dashboard/payments/${middle}`],
    ['checkout sessions', '/dashboard/checkout-sessions'],
    ['customers', '/dashboard/customers'],
    ['subscriptions', '/dashboard/subscriptions'],
    ['invoices', '/dashboard/invoices'],
    ['payment links', '/dashboard/payment-links'],
    ['products', '/dashboard/products'],
    ['plans', '/dashboard/plans'],
    ['payouts', '/dashboard/payouts'],
    ['transfers', '/dashboard/transfers'],
    ['disputes', '/dashboard/disputes'],
    ['webhook endpoints', '/dashboard/webhooks'],
    ['a webhook endpoint and its deliveries', `/dashboard/webhooks/${endpointId}`],
    ['events', '/dashboard/events'],
    ['request log', '/dashboard/request-log'],
    ['audit log', '/dashboard/audit-log'],
    ['API keys and roles', '/dashboard/api-keys'],
    ['test clock', '/dashboard/test-clock'],
  ];
}

async function measurePage(base: string, cookie: string, name: string, path: string): Promise<DashboardPageRow> {
  const server: number[] = [];
  const roundTrip: number[] = [];
  let bytes = 0;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const start = performance.now();
    const res = await fetchAgain(`${base}${path}`, { headers: { cookie }, redirect: 'manual' });
    const text = await res.text();
    const elapsed = performance.now() - start;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 200)}`);
    const dur = /app;dur=([0-9.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1];
    if (dur === undefined) throw new Error(`${path} has no Server-Timing`);
    if (i < WARMUP) continue;
    server.push(Number(dur));
    roundTrip.push(elapsed);
    bytes = text.length;
  }
  return { name, path, server: times(server), roundTrip: times(roundTrip), bytes };
}

/** Seeds and measures on one database (`url` undefined: PGlite in memory). */
async function measureOn(database: DashboardResult['database'], url: string | undefined): Promise<DashboardResult> {
  const db = await openDatabase({ databaseUrl: url });
  let close: (() => void) | undefined;
  try {
    await migrateToLatest(db.db);
    const config = { ...loadConfig({ NODE_ENV: 'production' }), rateLimitScale: 1000 };
    const app = createApp({ database: db, clock: systemClock, config, logger: createLogger('silent') });
    const server = await listenApp(app, 0, '127.0.0.1');
    close = () => server.close();
    const address = server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const { credentials } = await createMerchant(db.db, systemClock, { name: `Bench dashboard ${Date.now()}` });
    console.log(`bench: dashboard on ${database}: seeding ${DASHBOARD_SEED.payments} payments and the rest…`);
    const seedStart = performance.now();
    const keys = credentials.keys.test;
    const { endpointId } = await seedDashboardMerchant(db.db, {
      url: base,
      merchantId: credentials.merchantId,
      secret: keys.secret,
      publishable: keys.publishable,
    });
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const cookie = await signIn(base, keys.secret);
    const before = os.loadavg();
    const pages: DashboardPageRow[] = [];
    for (const [name, path] of await pagesOf(db, credentials.merchantId, endpointId)) {
      const row = await measurePage(base, cookie, name, path);
      pages.push(row);
      console.log(`bench: dashboard on ${database}: ${name}: server p95 ${fmt(row.server.p95, 1)} ms, max ${fmt(row.server.max, 1)} ms`);
    }
    return { database, status: 'ok', seedSeconds, pages, load: { before, after: os.loadavg() } };
  } catch (error) {
    return { database, status: 'failed', reason: message(error).split('\n')[0] ?? '' };
  } finally {
    close?.();
    await db.close();
  }
}

/** The dashboard part on PGlite and on PostgreSQL. */
export async function benchDashboard(): Promise<DashboardResult[]> {
  const results = [await measureOn('pglite', undefined)];
  let bench: Awaited<ReturnType<typeof createBenchDatabase>> | undefined;
  try {
    bench = await createBenchDatabase();
  } catch (error) {
    if (!(error instanceof PgUnreachable)) throw error;
    return [...results, { database: 'postgres', status: 'skipped', reason: `PostgreSQL unreachable: ${error.message}` }];
  }
  try {
    results.push(await measureOn('postgres', bench.url));
  } finally {
    await bench.drop();
  }
  return results;
}

/** Per database: every page's p95 server time ≤ 200 ms; the slowest page and the pages over it are named. */
export function dashboardGoals(results: DashboardResult[]): Goal[] {
  return results.map((r): Goal => {
    const name = `Dashboard, ${r.database}: every page's p95 server time ≤ ${DASHBOARD_GOAL_MS} ms (${DASHBOARD_SEED.payments} payments)`;
    if (r.status !== 'ok' || !r.pages?.length) return { name, measured: `${r.status}: ${r.reason ?? ''}`, met: null };
    const slowest = r.pages.reduce((a, b) => (b.server.p95 > a.server.p95 ? b : a));
    const over = r.pages.filter((p) => p.server.p95 > DASHBOARD_GOAL_MS).map((p) => p.name);
    const load = r.load?.after.map((n) => n.toFixed(1)).join(' ');
    return {
      name,
      measured: `slowest ${slowest.name}: p95 ${fmt(slowest.server.p95, 1)} ms (max ${fmt(slowest.server.max, 1)} ms)${over.length ? `; over: ${over.join(', ')}` : ''}; load ${load}`,
      ratio: DASHBOARD_GOAL_MS / slowest.server.p95,
      met: over.length === 0,
      shown: `${fmt(slowest.server.p95 / DASHBOARD_GOAL_MS, 2)}× the limit`,
    };
  });
}

/** The pages as table cells (header first). */
export function dashboardCells(results: DashboardResult[]): string[][] {
  const header = ['database', 'page', 'server p50 ms', 'server p95 ms', 'server max ms', 'round trip p95 ms', 'kB', `p95 ≤ ${DASHBOARD_GOAL_MS} ms`];
  return [
    header,
    ...results.flatMap((r) =>
      r.status !== 'ok'
        ? [[r.database, `${r.status}: ${r.reason ?? ''}`]]
        : (r.pages ?? []).map((p) => [
            r.database,
            p.name,
            fmt(p.server.p50, 1),
            fmt(p.server.p95, 1),
            fmt(p.server.max, 1),
            fmt(p.roundTrip.p95, 1),
            fmt(p.bytes / 1024, 1),
            p.server.p95 <= DASHBOARD_GOAL_MS ? '✓' : '✗',
          ]),
    ),
  ];
}

/** What the table shows. */
export function dashboardNotes(results: DashboardResult[]): string[] {
  const ok = results.filter((r) => r.status === 'ok');
  if (ok.length === 0) return [];
  const s = DASHBOARD_SEED;
  return [
    `Dashboard: one merchant with ${s.payments} payments (and their cards, 2 events each, a webhook delivery and attempt per event), ${s.requestLogs} request log and ${s.auditEntries} audit entries, and through the API ${s.cardPayments} card payments (${s.settled} settled over ${s.payoutDays} days of payouts, ${s.refunded} refunded, ${s.disputed} disputed), a transfer, ${s.customers} customers, ${s.products} products with ${s.products * s.plansPerProduct} plans, ${s.subscriptions} subscriptions, ${s.invoices} invoices, ${s.paymentLinks} payment links, ${s.openSessions} open sessions, 2 webhook endpoints, ${s.roles} roles with ${s.roles * s.keysPerRole} keys. Each page ${RUNS} times one at a time after ${WARMUP}; server time is the page's Server-Timing (arrival to send), the round trip its upper bound.`,
    ...ok.map(
      (r) =>
        `${r.database}: seeded in ${fmt(r.seedSeconds ?? 0, 1)} s; load average ${r.load?.before.map((n) => n.toFixed(2)).join(' ')} before the pages, ${r.load?.after.map((n) => n.toFixed(2)).join(' ')} after.`,
    ),
  ];
}

/** `npx tsx scripts/bench-dashboard.ts`: this part alone, printed. */
if (process.argv[1]?.endsWith('bench-dashboard.ts')) {
  const only = process.env.BENCH_DASHBOARD_DATABASE;
  const run = only === 'pglite' ? measureOn('pglite', undefined).then((r) => [r]) : benchDashboard();
  void run.then(
    (results) => {
      console.log(`\n${markdownTable(dashboardCells(results))}\n\n${dashboardNotes(results).join('\n')}`);
      for (const goal of dashboardGoals(results)) console.log(`${goal.name}: ${goal.measured} ${goal.met === null ? 'n/a' : goal.met ? '✓' : '✗'}`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
