// The report of `npm run bench`: the ratios, the tables, the problems that fail a run, and the console,
// Markdown and JSON output (out/bench/results.md and results.json).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { COLD_START_RUNS, type ColdStartRow, coldStartCells } from './bench-cold-start.js';
import { type Goal, goalCells, goalLines } from './bench-goal-kinds.js';
import { CONNECTIONS, DURATION_S, outDir, root, ROUNDS, WARMUP_S } from './bench-lib.js';
import { consoleTable, fmt, markdownTable } from './bench-format.js';
import { paymentCells, type PaymentRow } from './bench-payments.js';
import { type ClockDatabaseResult, clockCells, clockNotes } from './bench-clock.js';
import { type DashboardResult, dashboardCells, dashboardNotes } from './bench-dashboard.js';
import { type InvoiceBenchResult, invoiceCells, invoiceMarkdown, invoiceNotes } from './bench-invoices.js';
import { WEBHOOK_RATE } from './bench-webhook-writes.js';
import { WEBHOOK_DRAIN_S, WEBHOOK_GOALS } from './bench-webhook-case.js';
import { webhookCells } from './bench-webhooks.js';
import { floorLine } from './bench-webhook-floor.js';
import { BASELINE_OF, OPERATIONS, type OperationName, type Row, type TargetName } from './bench-load.js';
import { type Baseline, describeEnvironment, type WebhookResult } from './bench-parts.js';

/** A Till row fails the run when more than this share of its responses are non-2xx or errors. */
export const MAX_ERROR_SHARE = 0.01;

/**
 * The report as rows of strings, for the console and the Markdown table alike. A row that was
 * not measured has three cells: target, operation, and why.
 */
export function tableCells(rows: Row[]): string[][] {
  const withBaseline = rows.some((r) => r.target.startsWith('baseline-'));
  const header = ['target', 'operation', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', '×node:http', '×prism', ...(withBaseline ? ['×baseline'] : [])];
  // Two decimals, or two significant digits below 0.1 (0.0054×, not 0.01×).
  const ratio = (x: number | undefined) => (x === undefined ? 'n/a' : `${x >= 0.1 ? fmt(x, 2) : x.toPrecision(2)}×`);
  const body = rows.map((r) => {
    const operation = `${r.operation}${r.connections ? ` (c${r.connections})` : ''}`;
    if (r.status !== 'ok' || !r.latencyMs) return [`${r.target}${r.round ? ` #${r.round}` : ''}`, operation, `${r.status}: ${r.reason ?? ''}`];
    const non2xx = `${r.non2xx ?? 0}${r.errors ? ` (+${r.errors} errors)` : ''}`;
    const cells = [
      `${r.target}${r.round ? ` #${r.round}` : ''}`,
      operation,
      fmt(r.reqPerSec ?? 0, 0),
      fmt(r.latencyMs.p50, 2),
      fmt(r.latencyMs.p99, 2),
      non2xx,
      ratio(r.vsNodeHttp),
      ratio(r.vsPrism),
    ];
    return withBaseline ? [...cells, BASELINE_OF[r.target] ? ratio(r.vsBaseline) : ''] : cells;
  });
  return [header, ...body];
}
/** Over every round: each Till target's total req/s over its baseline's, per operation. */
export function overallVsBaseline(rows: Row[]): string[] {
  const total = (target: TargetName, operation: OperationName) =>
    rows.filter((r) => r.target === target && r.operation === operation && r.status === 'ok' && !r.connections).reduce((sum, r) => sum + (r.reqPerSec ?? 0), 0);
  return Object.entries(BASELINE_OF).flatMap(([ours, theirs]) =>
    OPERATIONS.flatMap((operation) => {
      const before = total(theirs, operation);
      return before > 0 ? [`  all rounds, ${ours} ${operation}: ${fmt(total(ours as TargetName, operation) / before, 2)}× the baseline`] : [];
    }),
  );
}

/** Ratios of req/s to the two references (and to the baseline), per operation. */
export function addRatios(rows: Row[]): void {
  for (const row of rows) {
    if (row.status !== 'ok') continue;
    const ref = (target: TargetName) =>
      rows.find((r) => r.target === target && r.operation === row.operation && r.connections === row.connections && r.status === 'ok')?.reqPerSec;
    const nodeHttp = ref('node-http');
    const prism = ref('prism');
    const before =
      BASELINE_OF[row.target] &&
      rows.find(
        (r) =>
          r.target === BASELINE_OF[row.target] &&
          r.operation === row.operation &&
          r.connections === row.connections &&
          r.round === row.round &&
          r.status === 'ok',
      )?.reqPerSec;
    if (nodeHttp) row.vsNodeHttp = row.reqPerSec! / nodeHttp;
    if (prism) row.vsPrism = row.reqPerSec! / prism;
    if (before) row.vsBaseline = row.reqPerSec! / before;
  }
}

/** Everything one run measured. */
export interface Report {
  environment: Awaited<ReturnType<typeof describeEnvironment>>;
  baseline: Baseline | undefined;
  /** BENCH_CANDIDATE: the revision measured in place of this checkout in till-pglite and till-postgres. */
  candidate?: Baseline | undefined;
  rows: Row[];
  payments: PaymentRow[];
  coldStarts: ColdStartRow[];
  webhooks: WebhookResult;
  invoices: InvoiceBenchResult;
  clock: ClockDatabaseResult[];
  dashboard: DashboardResult[];
  goals: Goal[];
}

/** Problems with the req/s rows: a target not measured, or too many non-2xx answers from Till. */
export function rowProblems(rows: Row[]): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    if (row.status === 'failed') problems.push(`${row.target} ${row.operation}: ${row.reason}`);
    if (row.status !== 'ok') continue;
    const bad = row.non2xx! + row.errors!;
    const share = bad / Math.max(1, row.responses! + row.errors!);
    if (bad > 0) {
      console.log(
        `\nbench: ${row.target} ${row.operation}: ${row.non2xx} non-2xx, ${row.errors} connection errors (${fmt(share * 100, 2)}%); status codes ${JSON.stringify(row.statusCodes)}; samples:`,
      );
      for (const sample of row.sampleErrors ?? []) console.log(`  ${sample}`);
    }
    if (!['node-http', 'prism'].includes(row.target) && share > MAX_ERROR_SHARE)
      problems.push(`${row.target} ${row.operation}: ${fmt(share * 100, 2)}% of responses non-2xx or errors (limit ${MAX_ERROR_SHARE * 100}%)`);
    if (row.target.startsWith('till-') && row.operation === 'POST /v1/customers' && (row.statusCodes?.['200'] ?? 0) > 0) {
      problems.push(
        `${row.target} POST /v1/customers: ${row.statusCodes?.['200']} answers were 200 (existing customer) instead of 201 (created): the emails were not unique`,
      );
    }
  }
  return problems;
}

/** Problems with payments and cold starts: not measured, or too many failed payments. */
export function paymentAndStartProblems(payments: PaymentRow[], coldStarts: ColdStartRow[]): string[] {
  const problems: string[] = [];
  for (const row of payments) {
    if (row.status === 'failed') problems.push(`payments ${row.target}: ${row.reason}`);
    if (row.status !== 'ok' || !row.failed) continue;
    const share = row.failed / Math.max(1, row.failed + row.payments!);
    console.log(`\nbench: payments ${row.target}: ${row.failed} failed (${fmt(share * 100, 2)}%), e.g. ${row.sampleErrors?.[0] ?? '?'}`);
    if (share > MAX_ERROR_SHARE)
      problems.push(`payments ${row.target}: ${row.failed} payments failed (${fmt(share * 100, 2)}%, limit ${MAX_ERROR_SHARE * 100}%)`);
  }
  for (const row of coldStarts) if (row.status === 'failed') problems.push(`cold start ${row.database}: ${row.reason}`);
  return problems;
}

/** Problems with the webhook case: not measured, events lost or duplicated, writes failed. */
export function webhookProblems(webhooks: WebhookResult): string[] {
  const problems: string[] = [];
  for (const row of webhooks.rows) {
    const name = `webhooks ${row.case}`;
    if (row.status === 'failed') problems.push(`${name}: ${row.reason}`);
    if (row.status !== 'ok') continue;
    if (row.missing)
      problems.push(`${name}: ${row.missing} of ${row.events} events had not reached the receiver ${WEBHOOK_DRAIN_S} s after the writes stopped`);
    if (row.duplicates) problems.push(`${name}: ${row.duplicates} events reached the receiver more than once`);
    const share = (row.failedWrites ?? 0) / Math.max(1, (row.failedWrites ?? 0) + (row.events ?? 0));
    if (share > MAX_ERROR_SHARE) problems.push(`${name}: ${row.failedWrites} writes failed (${fmt(share * 100, 2)}%), e.g. ${row.sampleErrors?.[0] ?? '?'}`);
    else if (row.failedWrites) console.log(`\nbench: ${name}: ${row.failedWrites} writes failed, e.g. ${row.sampleErrors?.[0] ?? '?'}`);
  }
  if (webhooks.unexpected) problems.push(`webhooks: ${webhooks.unexpected} events received that the database does not hold`);
  if (webhooks.badRequests) problems.push(`webhooks: ${webhooks.badRequests} requests to the receiver were not event envelopes`);
  return problems;
}

/** Prints the tables and the goals. */
export function printReport({ rows, payments, coldStarts, webhooks, invoices, clock, dashboard, goals, baseline, candidate }: Report): void {
  console.log(`\n${consoleTable(tableCells(rows))}\n`);
  if (candidate) console.log(`till-pglite and till-postgres: Till at ${candidate.revision} (${candidate.commit}), BENCH_CANDIDATE, not this checkout's.`);
  console.log('×node:http and ×prism: req/s of the row divided by req/s of that reference for the same operation.');
  if (baseline)
    console.log(
      `×baseline: req/s of the row divided by the same target's at ${baseline.revision} (${baseline.commit}) in the same round.${ROUNDS > 1 ? `\n${overallVsBaseline(rows).join('\n')}` : ''}`,
    );
  console.log(`\n${consoleTable(paymentCells(payments))}\n`);
  console.log(
    `Full card payment: create a checkout session, tokenize 4242424242424242, confirm; ${CONNECTIONS} loops; latency of the whole payment; CPU per payment of Till's process and of every PostgreSQL process over the measured window (the steadier figure on a shared machine).`,
  );
  console.log(`\n${consoleTable(coldStartCells(coldStarts))}\n`);
  console.log(
    'Cold start: `npm start` (dist/ built) with a fresh data dir and database, to the first 200 of GET /v1/plans; pglite-floor: node and PGlite alone (scripts/bench-pglite-floor.mjs), pglite-npm-floor: the same started by `npm run bench:pglite-floor`, as npm starts Till.',
  );
  console.log(`\n${consoleTable(webhookCells(webhooks.rows))}\n`);
  console.log(
    `Webhooks: written/s and delivered/s (distinct events first received) in the measured window; latency from the event's created to its receipt; missing and dup over every event of the case after the drain. Goals: ≥ ${WEBHOOK_GOALS.eventsPerSec} events/s, p99 ≤ ${WEBHOOK_GOALS.p99Ms} ms; n/a: fewer events were written than the goal, so it cannot be judged.`,
  );
  const floor = floorLine(webhooks.floor, webhooks.rows);
  if (floor) console.log(floor);
  console.log(`\n${consoleTable(invoiceCells(invoices))}\n`);
  for (const note of invoiceNotes(invoices)) console.log(note);
  if (clock.length) console.log(`\n${consoleTable(clockCells(clock))}\n\n${clockNotes(clock).join('\n')}`);
  if (dashboard.length) console.log(`\n${consoleTable(dashboardCells(dashboard))}\n\n${dashboardNotes(dashboard).join('\n')}`);
  console.log(
    `\nGoals (PostgreSQL ${baseline ? 'rows of this checkout, ' : ''}at ${CONNECTIONS} connections; ✓ met, ✗ missed, n/a not measured, · reported without a goal):\n`,
  );
  for (const line of goalLines(goals)) console.log(`  ${line}`);
}

/** The Markdown report's description of the targets and operations. */
function markdownIntro({ environment, baseline, candidate, rows }: Report, generatedAt: string): string[] {
  return [
    '# Till benchmark',
    '',
    `${generatedAt} · node ${environment.node} · ${environment.cpus} CPUs (${environment.cpuModel}) · ${environment.platform} · PostgreSQL ${environment.postgres ?? 'n/a'} · autocannon ${environment.autocannon}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per row`,
    '',
    'Targets, each a separate process on this machine, loaded one at a time by autocannon from the bench process:',
    '',
    '- **till-pglite**: Till from the compiled build (`node dist/server/main.js`, `NODE_ENV=production`, so no response validation; rate limits scaled ×1000) on the embedded PGlite, fresh data directory.',
    '- **till-postgres**: the same, on the PostgreSQL server, in a fresh database dropped afterwards.',
    '- **till-postgres-2**: the same with `TILL_WORKERS=2` (two worker processes on one port).',
    '- **till-postgres-metrics**: till-postgres with `TILL_METRICS_TOKEN` set: every request measured for `/metrics`, process metrics collected (compare its req/s with till-postgres).',
    '- **till-postgres-bare**: till-postgres with `TILL_REQUEST_LOGS=off` and no metrics: the gap to till-postgres-metrics is what request logs and metrics cost.',
    "- **node-http**: a bare `node:http` server answering Till's plan JSON for GET and Till's 201 customer or checkout session JSON for the POSTs: what Node alone can do here.",
    "- **pg-floor**: bare `node:http` and node-postgres sending Till's own statements for each operation in the same round trips (pipelined, prepared; the session's claim, begin and insert, mark and commit, store), on a database Till migrated: what this machine can do with the same database work, with nothing of Till's own (no Express, validation, authentication, Kysely or views).",
    "- **pg-floor-logged**: the pg floor also writing one request log row per request (the same columns, both bodies, Till's batch statement: 200 rows or every 250 ms), measured in turn with pg-floor: what a request log costs on this machine whoever writes it, the reference for Till's request-log cost.",
    "- **express-floor**: the pg floor's statements in the same round trips, served by an Express app as one is written without Till (a route per operation, `express.json()` for the bodies, `res.status().type().send()`): what Express itself costs a request on this machine, the least any Express server doing this work pays (Till runs on Express).",
    "- **pglite-floor**: bare `node:http` and PGlite in one process sending Till's own statements for each operation, with Till's economies on PGlite (each prepared once; the one session taken in turn; the single statements that wait for a turn sent together in one exchange), on a data directory Till made: what this machine can do with the same embedded database work, the reference for PGlite's req/s goals.",
    '- **prism**: the Prism mock of the Checkout & Billing contract (`scripts/mock.mjs`), validating each request and answering the documented example.',
    '',
    'Operations, with a bearer secret key: `GET /v1/plans/{id}` (one plan by id), `POST /v1/customers` (a new email every request, so Till inserts a row each time) and `POST /v1/checkout-sessions` (a one-time embedded session of 25 USD, with a new `Idempotency-Key` every request: a transaction, the key and an event).',
    '×node:http and ×prism are req/s ratios to that reference for the same operation. Latency is measured per response with sub-millisecond precision.',
    ...(baseline
      ? [
          `**baseline-pglite** and **baseline-postgres**: Till at \`${baseline.revision}\` (${baseline.commit}), checked out beside this checkout and run the same way, in turn with it (${ROUNDS} round${ROUNDS > 1 ? 's, odd ones this checkout first, even ones the baseline first' : ', this checkout first'}); ×baseline is this checkout's req/s over the baseline's in the same round.`,
          ...(candidate
            ? [
                '',
                `**till-pglite** and **till-postgres** here: Till at \`${candidate.revision}\` (${candidate.commit}), \`BENCH_CANDIDATE\`, in place of this checkout's.`,
              ]
            : []),
          ...(ROUNDS > 1 ? ['', ...overallVsBaseline(rows).map((line) => `- ${line.trim()}`)] : []),
        ]
      : []),
  ];
}

/** The Markdown report: goals, req/s, payments, cold starts, webhooks, problems. */
function markdownReport(report: Report, problems: string[], generatedAt: string): string {
  const { rows, payments, coldStarts, webhooks, invoices, clock, dashboard, goals } = report;
  return [
    ...markdownIntro(report, generatedAt),
    '',
    markdownTable(tableCells(rows)),
    '',
    '## Goals',
    '',
    `Judged on the till-postgres rows (and, marked "2 processes", on till-postgres-2) of this run; ✓ met, ✗ missed, n/a not measured, · a figure reported without a goal. Missing a goal does not fail the run.`,
    '',
    markdownTable(goalCells(goals)),
    '',
    '## Full card payments (PostgreSQL)',
    '',
    `${CONNECTIONS} loops, each creating a checkout session (secret key, Idempotency-Key), tokenizing 4242424242424242 (publishable key and client secret, 201) and confirming it (200), for ${WARMUP_S} s warm-up + ${DURATION_S} s; payments/s and latency over the payments completed in the measured window, each from its first request to its last answer.`,
    '',
    markdownTable(paymentCells(payments)),
    '',
    '## Cold start',
    '',
    "`npm start` (literally; `dist/` already built) with a fresh `TILL_DATA_DIR` (and a fresh PostgreSQL database), until the first 200 of `GET /v1/plans` with the demo merchant's key (read from `demo-merchant.json` as soon as it exists; polled every 20 ms).",
    '',
    markdownTable(coldStartCells(coldStarts)),
    '',
    '## Webhook delivery (PostgreSQL)',
    '',
    `Till (\`NODE_ENV=development\`, \`TILL_ALLOW_LOOPBACK_WEBHOOKS=true\`) on a fresh PostgreSQL database delivers every event of the merchant to one HTTPS receiver on 127.0.0.1 in its own process (self-signed certificate, answers 200 at once). Each case writes for ${WARMUP_S} s warm-up + ${DURATION_S} s, then waits up to ${WEBHOOK_DRAIN_S} s for the last deliveries.`,
    '',
    `- **API state changes**: ${CONNECTIONS} loops of full card payments (\`payment.succeeded\` and \`checkout.session.completed\` per confirm), as fast as the API answers.`,
    `- **outbox writes**: the bench inserts ${WEBHOOK_RATE} events a second into the \`events\` table (the outbox), one per statement, as \`writeEvent\` writes them: many API processes' writes, more than the API of one process on this machine can make.`,
    '',
    `written/s: events whose \`created\` falls in the measured window; delivered/s: distinct events first received in it. Latency: from the event's \`created\` (its write, on the system clock) to its receipt, for the events written in the window. missing (not received by the end of the drain) and dup (received more than once): every event of the case. CPU: cores used in the window by Till, the receiver, the bench process (the writes), PostgreSQL (all its processes) and everything else on the machine. Goals: ≥ ${WEBHOOK_GOALS.eventsPerSec} events/s delivered, p99 ≤ ${WEBHOOK_GOALS.p99Ms} ms (n/a: fewer events were written than the goal). delivered/s can exceed written/s while a backlog from the warm-up drains.`,
    '',
    markdownTable(webhookCells(webhooks.rows)),
    '',
    ...(floorLine(webhooks.floor, webhooks.rows) ? [floorLine(webhooks.floor, webhooks.rows)!, ''] : []),
    ...invoiceMarkdown(invoices),
    ...(clock.length ? ['## Sandbox clock', '', ...clockNotes(clock).flatMap((n) => [n, '']), markdownTable(clockCells(clock)), ''] : []),
    ...(dashboard.length ? ['## Dashboard', '', ...dashboardNotes(dashboard).flatMap((n) => [n, '']), markdownTable(dashboardCells(dashboard)), ''] : []),
    ...(problems.length ? ['Problems:', '', ...problems.map((p) => `- ${p}`), ''] : []),
  ].join('\n');
}

/** Writes out/bench/results.json and out/bench/results.md. */
export async function writeResults(report: Report, problems: string[]): Promise<void> {
  const { environment, rows, payments, coldStarts, webhooks, invoices, clock, dashboard, goals } = report;
  const settings = { durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, connections: CONNECTIONS, pipelining: 1, coldStartRuns: COLD_START_RUNS };
  await mkdir(outDir, { recursive: true });
  const generatedAt = new Date().toISOString();
  const webhookJson = {
    goals: WEBHOOK_GOALS,
    settings: { outboxEventsPerSec: WEBHOOK_RATE, drainSeconds: WEBHOOK_DRAIN_S, apiLoops: CONNECTIONS },
    results: webhooks.rows,
    unexpectedEvents: webhooks.unexpected,
    badRequests: webhooks.badRequests,
  };
  await writeFile(
    path.join(outDir, 'results.json'),
    `${JSON.stringify({ generatedAt, environment, settings, goals, results: rows, payments, coldStarts, webhooks: webhookJson, invoices, clock, dashboard, problems }, null, 2)}\n`,
  );
  await writeFile(path.join(outDir, 'results.md'), markdownReport(report, problems, generatedAt));
  console.log(`\nbench: wrote ${path.relative(root, path.join(outDir, 'results.json'))} and ${path.relative(root, path.join(outDir, 'results.md'))}`);
}
