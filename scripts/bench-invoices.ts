/**
 * The invoice-list part of `npm run bench` (scripts/bench.ts): the Commerce OData list over
 * 1,000,000 invoices of one merchant on PostgreSQL, through the same code as the handler
 * (`compileQuery` of the declared invoice resource, then `listCommerceInvoices`, the tenant ANDed
 * outside the filter), in this process so the figure is the database's and the engine's, not HTTP's.
 *
 *   filter  $filter=status eq 'Pending' and totalCost gt 100&$orderby=id desc&$top=25   goal p50 ≤ 5 ms
 *   count   $count=true&$top=25 over every invoice of the merchant                       goal ≤ 200 ms
 *
 * The rows are seeded by one INSERT … SELECT over generate_series (statuses in turn, totals spread
 * over 0–499.99), then VACUUM ANALYZE, as a long-lived table would be.
 */
import { sql } from 'kysely';
import { openDatabase } from '../server/db/database.js';
import { migrateToLatest } from '../server/db/migrate.js';
import { listCommerceInvoices } from '../server/domain/invoices/commerce-invoice.js';
import { invoiceResource } from '../server/domain/invoices/invoice.odata.js';
import { createMerchant } from '../server/domain/merchants/merchant.service.js';
import { compileQuery } from '../server/odata/index.js';
import { systemClock } from '../server/shared/clock.js';
import type { Goal } from './bench-goals.js';
import { createBenchDatabase, fmt, type LatencySummary, latencySummary, message, PgUnreachable, positiveInt } from './bench-lib.js';

/** Invoices seeded (BENCH_INVOICES, default 1,000,000). */
export const INVOICE_ROWS = positiveInt('BENCH_INVOICES', 1_000_000);
const FILTER = { $filter: "status eq 'Pending' and totalCost gt 100", $orderby: 'id desc', $top: '25' };
const COUNT = { $count: 'true', $top: '25' };

export interface InvoiceBenchResult {
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  rows?: number;
  seedSeconds?: number;
  filterMs?: LatencySummary;
  filterRuns?: number;
  countMs?: LatencySummary;
  countRuns?: number;
  counted?: number;
}

async function timed(runs: number, work: () => Promise<unknown>): Promise<LatencySummary> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return latencySummary(times);
}

/** Seeds the invoices and measures both queries; `skipped` when PostgreSQL is unreachable. */
export async function benchInvoices(): Promise<InvoiceBenchResult> {
  let bench: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    bench = await createBenchDatabase();
  } catch (error) {
    if (error instanceof PgUnreachable) return { status: 'skipped', reason: `PostgreSQL unreachable: ${error.message}` };
    throw error;
  }
  const database = await openDatabase({ databaseUrl: bench.url, maxConnections: 2 });
  try {
    const db = database.db;
    await migrateToLatest(db);
    const { merchant } = await createMerchant(db, systemClock, { name: 'Bench invoices' });
    const seedStart = performance.now();
    await sql`INSERT INTO invoices (merchant_id, livemode, identifier, reference, invoice_number, status, currency, subtotal, tax_amount, discount, total, amount_paid, amount_refunded, line_items, created_at)
      SELECT ${merchant.id}, false, gen_random_uuid(), 'BENCH-' || g, 'INV-' || lpad(g::text, 7, '0'),
        (ARRAY['draft', 'pending', 'sent', 'partially_paid', 'paid', 'overdue', 'cancelled', 'expired'])[1 + g % 8],
        'USD', t, 0, 0, t, CASE WHEN g % 8 = 4 THEN t ELSE 0 END, 0, '[]', now() - make_interval(secs => ${INVOICE_ROWS} - g)
      FROM generate_series(1, ${INVOICE_ROWS}) AS g, LATERAL (SELECT ((g::bigint * 7919) % 50000) / 100.0 AS t) AS amounts`.execute(db);
    await sql`VACUUM ANALYZE invoices`.execute(db);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const tenant = { merchantId: merchant.id, livemode: false };
    const run = (query: Record<string, string>) => listCommerceInvoices(db, tenant, compileQuery(invoiceResource, query), '/v1/invoice');
    const filterRuns = positiveInt('BENCH_INVOICE_RUNS', 200);
    await timed(20, () => run(FILTER));
    const filterMs = await timed(filterRuns, () => run(FILTER));
    const countRuns = 10;
    await timed(2, () => run(COUNT));
    const countMs = await timed(countRuns, () => run(COUNT));
    const counted = (await run(COUNT)).page['@odata.count'];
    return { status: 'ok', rows: INVOICE_ROWS, seedSeconds, filterMs, filterRuns, countMs, countRuns, ...(counted === undefined ? {} : { counted }) };
  } catch (error) {
    return { status: 'failed', reason: message(error) };
  } finally {
    await database.close();
    await bench.drop();
  }
}

/** The two goals on this part's figures. */
export function invoiceGoals(result: InvoiceBenchResult): Goal[] {
  const rows = fmt(result.rows ?? INVOICE_ROWS, 0);
  const filterName = `Invoice list, ${rows} rows: $filter status and totalCost, $orderby id desc, $top 25, p50 ≤ 5 ms`;
  const countName = `Invoice list, ${rows} rows: $count=true over all ≤ 200 ms (median)`;
  if (result.status !== 'ok') return [filterName, countName].map((name) => ({ name, measured: `${result.status}: ${result.reason ?? ''}`, met: null }));
  const goal = (name: string, value: number, limit: number, detail: string): Goal => ({ name, measured: `${fmt(value, 2)} ms (${detail})`, ratio: limit / value, met: value <= limit, shown: `${fmt(value / limit, 2)}× the limit` });
  return [
    goal(filterName, result.filterMs!.p50, 5, `p99 ${fmt(result.filterMs!.p99, 2)} ms over ${result.filterRuns} runs`),
    goal(countName, result.countMs!.p50, 200, `count ${fmt(result.counted ?? 0, 0)}, max ${fmt(result.countMs!.max, 1)} ms over ${result.countRuns} runs`),
  ];
}
