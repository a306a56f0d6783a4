#!/usr/bin/env tsx
/**
 * `npm run bench`: Till's throughput and latency, beside two reference points, and the
 * performance issue's goals judged on them, all in one run.
 *
 * One run measures three operations of the Checkout & Billing interface (bearer secret key):
 *
 *   read     GET  /v1/plans/{id}           one plan, by id
 *   write    POST /v1/customers            a new customer; every request sends a new email, so each
 *                                          one really inserts a row (201) instead of matching one (200)
 *   session  POST /v1/checkout-sessions    {amount: 25, currency: 'USD', mode: 'embedded',
 *                                          paymentType: 'oneTime'} with a new Idempotency-Key per
 *                                          request: a transaction, the key and an event (201)
 *
 * against these targets, one after the other, each in its own child process so that it never
 * shares an event loop with autocannon (the load generator, which runs in this process):
 *
 *   till-pglite       Till from the compiled build (`node scripts/build.mjs` once, then
 *                     `node dist/server/main.js`; NODE_ENV=production) on the embedded PGlite, fresh data dir
 *   till-postgres     Till on the PostgreSQL server, in a fresh database `till_bench_<timestamp>`
 *                     (skipped, and said so, when PostgreSQL is unreachable)
 *   till-postgres-2   the same with TILL_WORKERS=2: two worker processes on one port
 *   node-http         a bare `node:http` server answering Till's own plan JSON for GET, and Till's
 *                     201 customer or checkout session JSON for the POSTs: the ceiling of Node itself
 *   pg-floor          bare `node:http` and node-postgres sending Till's own statements for each
 *                     operation, in the same round trips, on a database Till migrated
 *                     (bench-floor-server.mjs): the ceiling of this machine for the same database work
 *   pg-floor-logged   the pg floor also writing a request log row per request with Till's batch
 *                     statement, in turn with pg-floor: what a request log costs whoever writes it
 *   express-floor     the pg floor's statements served by an Express app (a route per operation,
 *                     express.json()): what Express itself costs a request, the least any Express
 *                     server pays here
 *   pglite-floor      bare `node:http` and PGlite in one process sending Till's own statements, with
 *                     Till's economies on PGlite (bench-pglite-floor-server.mjs), on a data
 *                     directory Till made: the ceiling of this machine for the same embedded work
 *   prism             the Prism mock of the contract (`scripts/mock.mjs`), validating every request
 *
 * It prints req/s, p50 and p99 latency and non-2xx counts per target and operation, with req/s
 * ratios to node-http and to Prism. Then (bench-payments.ts) full card payments on till-postgres:
 * BENCH_CONNECTIONS loops create a session, tokenize 4242424242424242 and confirm it, reported as
 * payments/s and the p50/p99 of a whole payment; and (bench-cold-start.ts) cold starts: `npm start`
 * with a fresh data dir (and database) to the first 200 of GET /v1/plans, the median of
 * BENCH_COLD_START_RUNS runs, on PostgreSQL and PGlite.
 *
 * Then the webhook case (bench-webhooks.ts), on PostgreSQL only: Till with NODE_ENV=development and
 * TILL_ALLOW_LOOPBACK_WEBHOOKS=true, one endpoint subscribed to every event, and an HTTPS receiver
 * in its own process. Two cases, each writing events for 1 s warm-up + BENCH_DURATION s and then
 * waiting (at most BENCH_WEBHOOK_DRAIN s) until every event it wrote has arrived:
 *
 *   API state changes   BENCH_CONNECTIONS loops of full card payments (payment.succeeded and
 *                       checkout.session.completed per confirm), as fast as the API answers
 *   outbox writes       BENCH_WEBHOOK_RATE events a second inserted into the events table (the
 *                       outbox) one per statement, as writeEvent writes them
 *
 * measuring delivered events/s, the latency from each event's `created` to its receipt, the events
 * missing or duplicated, and the CPU used by each process. Goals: >= 500 events/s, p99 <= 1 s.
 * Then, Till stopped, the outbox case once more delivered by the floor with Till's database work
 * (bench-webhook-db-floor.mjs, row `webhook-db-floor`), and the bare floor (bench-webhook-floor.ts):
 * signed POSTs only, the yardstick of delivery's share goal (70%).
 *
 * Then the invoice list (bench-invoices.ts), on PostgreSQL only: `GET /v1/invoice` over
 * BENCH_INVOICES (1,000,000) seeded invoices at 1 connection, a filtered page (goal p50 ≤ 5 ms) and
 * `$count=true` over all (goal p50 ≤ 200 ms); the page at BENCH_INVOICE_CONNECTIONS (4), and both
 * statements alone, reported beside them with their EXPLAIN (ANALYZE, BUFFERS).
 *
 * Then the sandbox clock (bench-clock.ts), on PGlite and PostgreSQL: a realistic sandbox merchant
 * made over the API (bench-clock-seed.ts) advanced by 1, 30 and 365 days (goals: a day ≤ 2 s, a year
 * ≤ 10 s), beside an empty sandbox merchant advanced the same and a GET round trip, as references.
 *
 * Then the dashboard (bench-dashboard.ts), on PGlite and PostgreSQL: one merchant with 10,000
 * payments and the other objects, every section's page requested one at a time; goal: every page's
 * p95 server time (its Server-Timing) ≤ 200 ms.
 *
 * Last, the goals (bench-goals.ts), each printed with ✓ or ✗ and its ratio, e.g.
 * "GET one plan ≥ 3× Prism: 4,210 vs 1,402 req/s = 3.00× ✓".
 *
 * It writes out/bench/results.json and out/bench/results.md (tables and goals). It exits non-zero
 * when a part could not be measured, when more than 1% of the responses (or payments) of any Till
 * row failed, or when a webhook case lost or duplicated an event; sample error answers are
 * printed. Missing a goal is reported, not a failure.
 *
 * Settings are environment variables, listed in `help` below (`npm run bench -- --help`).
 *
 * Every child process, temp dir and database this script creates is removed at the end, on an
 * error, and on Ctrl+C.
 */
import { evaluateGoals } from './bench-goals.js';
import { parseCommandLine } from './cli.js';
import { cleanupAll, isInterrupted } from './bench-lib.js';
import { benchClock, type ClockDatabaseResult, clockGoals } from './bench-clock.js';
import { benchInvoices, type InvoiceBenchResult, invoiceGoals } from './bench-invoices.js';
import { benchDashboard, type DashboardResult, dashboardGoals } from './bench-dashboard.js';
import {
  BASELINE_REVISION,
  CANDIDATE_REVISION,
  benchColdStartPart,
  benchPaymentsPart,
  benchTargets,
  benchWebhooksPart,
  describeEnvironment,
  prepareBaseline,
  wanted,
} from './bench-parts.js';
import { addRatios, paymentAndStartProblems, printReport, type Report, rowProblems, webhookProblems, writeResults } from './bench-report.js';

const help = `Usage: [SETTING=value ...] npm run bench

Measures Till's throughput and latency (PGlite, PostgreSQL, two workers) beside node:http, the
PostgreSQL and PGlite floors and the Prism mock; then full card payments, cold starts, webhook delivery and the
invoice list; prints each goal with its ratio and writes out/bench/results.json and results.md.
Exit 1 when a part could not be measured or too many answers failed (a missed goal is reported, not
an exit status). It takes no flags but --help; its settings are environment variables:

  BENCH_DURATION          seconds measured per target and operation, for payments, and per
                          webhook case (default 5); plus 1 s warm-up
  BENCH_CONNECTIONS       concurrent connections, and payment loops (default 50)
  BENCH_PG_URL            PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
  BENCH_COLD_START_RUNS   cold starts per database (default 3)
  BENCH_WEBHOOK_RATE      events a second written by the outbox case (default 600)
  BENCH_WEBHOOK_DRAIN     seconds to wait for the last deliveries of a webhook case (default 60)
  BENCH_ONLY              the parts to run, comma-separated: till-pglite, till-postgres,
                          till-postgres-2, till-postgres-metrics (TILL_METRICS_TOKEN set), till-postgres-bare
                          (TILL_REQUEST_LOGS=off, no metrics), node-http,
                          pg-floor, pg-floor-logged, express-floor, pglite-floor, prism, payments, cold-start, webhooks, invoices, clock,
                          dashboard
                          (default all)
  BENCH_BASELINE          a git revision (e.g. main, HEAD~3): Till at that revision is measured
                          too, in turn with this checkout's Till on each database (rows
                          baseline-pglite, baseline-postgres, and a ×baseline ratio; payments too,
                          in rounds as the req/s rows); a revision
                          without scripts/build.mjs runs \`node --import tsx server/main.ts\`
  BENCH_ROUNDS            rounds of each Till target (default 1); with BENCH_BASELINE the order
                          alternates (odd rounds this checkout first), and the totals over all
                          rounds are compared, so neither side always runs on a warmer machine
  BENCH_CANDIDATE         with BENCH_BASELINE, a git revision whose Till is measured in place of
                          this checkout's (rows till-pglite, till-postgres): two revisions side by
                          side, e.g. BENCH_CANDIDATE=e052eca BENCH_BASELINE=5e27fa0 (tracing off)
  BENCH_INVOICES          invoices seeded for the invoice list (default 1,000,000)
  BENCH_INVOICE_RUNS      page requests timed at 1 connection (default 300; 20 untimed first)
  BENCH_INVOICE_COUNT_RUNS  \`$count=true\` requests timed (default 20; 2 untimed first)
  BENCH_INVOICE_CONNECTIONS  connections of the invoice page's concurrent row (default 4)
  BENCH_CLOCK_GETS        sequential GETs timed as the clock part's reference (default 200)
  BENCH_DASHBOARD_PAYMENTS  payments of the dashboard part's merchant (default 10,000)
  BENCH_DASHBOARD_RUNS    requests timed per dashboard page, one at a time (default 20)
  BENCH_TILL_NODE_ARGS    Node's flags for every Till the bench starts, space-separated, e.g.
                          "--cpu-prof --cpu-prof-dir=out/profiles" (a profile per Till, written as it stops)
`;

parseCommandLine('bench', help, {});

async function main(): Promise<number> {
  const environment = await describeEnvironment();
  const postgres = { unavailable: environment.unavailable };
  const baseline = BASELINE_REVISION ? await prepareBaseline(BASELINE_REVISION) : undefined;
  if (baseline) console.log(`bench: baseline ${baseline.revision} (${baseline.commit}) checked out in ${baseline.dir}`);
  const candidate = CANDIDATE_REVISION ? await prepareBaseline(CANDIDATE_REVISION) : undefined;
  if (candidate)
    console.log(
      `bench: candidate ${candidate.revision} (${candidate.commit}) checked out in ${candidate.dir}: its Till is the till-pglite and till-postgres rows`,
    );
  const rows = await benchTargets(baseline, postgres, candidate);
  await candidate?.remove();
  const payments = await benchPaymentsPart(postgres, baseline);
  const coldStarts = await benchColdStartPart(postgres);
  const webhooks = await benchWebhooksPart(baseline);
  const clock: ClockDatabaseResult[] = wanted('clock') ? await benchClock(baseline) : [];
  await baseline?.remove();
  const invoices: InvoiceBenchResult = wanted('invoices') ? await benchInvoices() : { status: 'skipped', reason: 'not in BENCH_ONLY' };
  const dashboard: DashboardResult[] = wanted('dashboard') ? await benchDashboard() : [];
  addRatios(rows);
  const revisions = { baseline: baseline?.commit, candidate: candidate?.commit };
  const goals = [...evaluateGoals({ rows, payments, coldStarts, revisions }), ...invoiceGoals(invoices), ...clockGoals(clock), ...dashboardGoals(dashboard)];
  const report: Report = { environment, baseline, candidate, rows, payments, coldStarts, webhooks, invoices, clock, dashboard, goals };
  printReport(report);
  const problems = [
    ...rowProblems(rows),
    ...paymentAndStartProblems(payments, coldStarts),
    ...webhookProblems(webhooks),
    ...(invoices.status === 'failed' ? [`invoices: ${invoices.reason ?? 'failed'}`] : []),
    ...clock.filter((c) => c.status === 'failed').map((c) => `clock on ${c.database}: ${c.reason ?? 'failed'}`),
    ...dashboard.filter((d) => d.status === 'failed').map((d) => `dashboard on ${d.database}: ${d.reason ?? 'failed'}`),
  ];
  await writeResults(report, problems);
  if (problems.length) {
    console.log('\nbench: FAILED');
    for (const problem of problems) console.log(`  - ${problem}`);
    return 1;
  }
  return 0;
}

void main()
  .then(
    (code) => code,
    (error: unknown) => {
      if (!isInterrupted()) console.error(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanupAll();
    process.exit(isInterrupted() ? 130 : code);
  });
