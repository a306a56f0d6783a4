/**
 * The invoice-list part of `npm run bench` (scripts/bench.ts): the Commerce OData list over
 * 1,000,000 invoices of one merchant on PostgreSQL, through HTTP against Till itself (the compiled
 * build, `NODE_ENV=production`, as the other parts run it), one request at a time:
 *
 *   page    GET /v1/invoice?$filter=status eq 'Pending' and totalCost gt 100&$orderby=id desc&$top=25   goal p50 ≤ 5 ms
 *   count   GET /v1/invoice?$count=true&$top=25 (every invoice of the merchant)                          goal p50 ≤ 200 ms
 *
 * The goals are latencies, so they are judged at 1 connection (each request sent when the last
 * answer has been read): more connections on this 2-core machine measure queueing, not the list.
 * The page is also measured at BENCH_INVOICE_CONNECTIONS (4) concurrent connections, and both
 * statements alone (the SQL the handler runs, built by the same code, from this process), without
 * a goal, alternating request by request with the HTTP ones at 1 connection: the difference is
 * Till's own time. `EXPLAIN (ANALYZE, BUFFERS)` of both
 * statements goes into the report, and the load average before and after, since the machine's
 * other work moves every figure.
 *
 * The rows are seeded by one INSERT … SELECT over generate_series (statuses in turn, totals spread
 * over 0–499.99), then VACUUM ANALYZE, as a long-lived table would be.
 */
import os from 'node:os';
import { type CompiledQuery as KyselyCompiled, sql } from 'kysely';
import { type TillDatabase, openDatabase } from '../server/db/database.js';
import { tenantInvoices } from '../server/domain/invoices/invoice.repository.js';
import { invoiceResource } from '../server/api/commerce/odata/invoices.js';
import { compileQuery, countStatement } from '../server/odata/index.js';
import type { Goal } from './bench-goal-kinds.js';
import { createBenchDatabase, message, PgUnreachable, positiveInt } from './bench-lib.js';
import { spawnTill, type TillProcess } from './bench-till.js';
import { fmt, type LatencySummary, latencySummary, markdownTable } from './bench-format.js';

/** Invoices seeded (BENCH_INVOICES, default 1,000,000). */
export const INVOICE_ROWS = positiveInt('BENCH_INVOICES', 1_000_000);
const PAGE_RUNS = positiveInt('BENCH_INVOICE_RUNS', 300);
const COUNT_RUNS = positiveInt('BENCH_INVOICE_COUNT_RUNS', 20);
const CONCURRENT = positiveInt('BENCH_INVOICE_CONNECTIONS', 4);
const PAGE = { $filter: "status eq 'Pending' and totalCost gt 100", $orderby: 'id desc', $top: '25' };
const COUNT = { $count: 'true', $top: '25' };
const PAGE_GOAL_MS = 5;
const COUNT_GOAL_MS = 200;

/** One measured case: what, how (HTTP or the statements alone), at how many connections. */
export interface InvoiceCase {
  name: 'page' | 'count';
  via: 'HTTP' | 'SQL';
  connections: number;
  requests: number;
  latencyMs: LatencySummary;
}

export interface InvoiceBenchResult {
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  rows?: number;
  seedSeconds?: number;
  cases?: InvoiceCase[];
  counted?: number;
  /** EXPLAIN (ANALYZE, BUFFERS) of the page's and the count's statements, after the measurements. */
  plans?: { page: string; count: string };
  /** os.loadavg() (1, 5, 15 minutes) before and after the measurements. */
  load?: { before: number[]; after: number[] };
}

const query = (options: Record<string, string>) =>
  `?${Object.entries(options)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&')}`;

/** Runs `work` `runs` times in each of `connections` loops (after `warmup` untimed runs per loop); the latency of each run. */
async function timed(runs: number, warmup: number, connections: number, work: () => Promise<unknown>): Promise<LatencySummary> {
  const times: number[] = [];
  const loop = async () => {
    for (let i = 0; i < warmup + runs; i++) {
      const start = performance.now();
      await work();
      if (i >= warmup) times.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return latencySummary(times);
}

interface ListBody {
  value: Array<{ id: number; status: string; totalCost: number }>;
  '@odata.count'?: number;
}

/** One GET of the list; throws on anything but a 200 with a list body. */
async function getList(till: TillProcess, options: Record<string, string>): Promise<ListBody> {
  const response = await fetch(`${till.url}/v1/invoice${query(options)}`, { headers: { 'x-api-key': till.secretKey } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v1/invoice answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as ListBody;
}

/** The answers are what the goals name: 25 Pending invoices over 100, newest first, and the count of every row. */
async function checkAnswers(till: TillProcess): Promise<number> {
  const { value } = await getList(till, PAGE);
  const ordered = value.every((item, i) => i === 0 || item.id < value[i - 1]!.id);
  if (value.length !== 25 || !ordered || value.some((item) => item.status !== 'Pending' || !(item.totalCost > 100))) {
    throw new Error(`the filtered page is wrong: ${JSON.stringify(value.slice(0, 3))}…`);
  }
  const counted = (await getList(till, COUNT))['@odata.count'];
  if (counted !== INVOICE_ROWS) throw new Error(`@odata.count is ${counted}, not ${INVOICE_ROWS}`);
  return counted;
}

/** The page's and the count's statements, as the list handler builds them for the merchant. */
function statements(database: TillDatabase, merchantId: number): { page: KyselyCompiled; count: KyselyCompiled } {
  const scoped = tenantInvoices(database.db, { merchantId, livemode: false });
  return {
    page: compileQuery(invoiceResource, PAGE).apply(scoped).compile(),
    count: countStatement(compileQuery(invoiceResource, COUNT), scoped).compile(),
  };
}

async function explain(database: TillDatabase, statement: KyselyCompiled): Promise<string> {
  const { rows } = await database.sql.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, [...statement.parameters]);
  return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
}

/** Seeds the merchant's invoices over a connection of its own, closed afterwards. */
async function seed(url: string, merchantId: number): Promise<void> {
  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  try {
    await sql`INSERT INTO invoices (merchant_id, livemode, identifier, reference, invoice_number, status, currency, subtotal, tax_amount, discount, total, amount_paid, amount_refunded, line_items, created_at)
      SELECT ${merchantId}, false, gen_random_uuid(), 'BENCH-' || g, 'INV-' || lpad(g::text, 7, '0'),
        (ARRAY['draft', 'pending', 'sent', 'partially_paid', 'paid', 'overdue', 'cancelled', 'expired'])[1 + g % 8],
        'USD', t, 0, 0, t, CASE WHEN g % 8 = 4 THEN t ELSE 0 END, 0, '[]', now() - make_interval(secs => ${INVOICE_ROWS} - g)
      FROM generate_series(1, ${INVOICE_ROWS}) AS g, LATERAL (SELECT ((g::bigint * 7919) % 50000) / 100.0 AS t) AS amounts`.execute(database.db);
    await sql`VACUUM ANALYZE invoices`.execute(database.db);
  } finally {
    await database.close();
  }
}

/**
 * The latencies of `http` and `alone` (the same work without HTTP), one after the other `runs`
 * times (after `warmup` untimed pairs, each pair in turn in either order), so both see the same machine.
 */
async function alternating(
  runs: number,
  warmup: number,
  http: () => Promise<unknown>,
  alone: () => Promise<unknown>,
): Promise<[LatencySummary, LatencySummary]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < warmup + runs; i++) {
    const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const); // neither always runs first
    for (const k of order) {
      const work = k === 0 ? http : alone;
      const start = performance.now();
      await work();
      if (i >= warmup) times[k]!.push(performance.now() - start);
    }
  }
  return [latencySummary(times[0]), latencySummary(times[1])];
}

/** Every case: each at 1 connection through HTTP and alone, then the page at CONCURRENT connections. */
async function measure(till: TillProcess, database: TillDatabase): Promise<InvoiceCase[]> {
  const { page, count } = statements(database, till.merchantId);
  const run = (statement: KyselyCompiled) => () => database.sql.query(statement.sql, [...statement.parameters]);
  const [pageHttp, pageSql] = await alternating(PAGE_RUNS, 20, () => getList(till, PAGE), run(page));
  const [countHttp, countSql] = await alternating(COUNT_RUNS, 2, () => getList(till, COUNT), run(count));
  const perLoop = Math.ceil(PAGE_RUNS / CONCURRENT);
  const pageConcurrent = await timed(perLoop, 20, CONCURRENT, () => getList(till, PAGE));
  const one = (name: InvoiceCase['name'], via: InvoiceCase['via'], requests: number, latencyMs: LatencySummary): InvoiceCase => ({
    name,
    via,
    connections: 1,
    requests,
    latencyMs,
  });
  return [
    one('page', 'HTTP', PAGE_RUNS, pageHttp),
    one('count', 'HTTP', COUNT_RUNS, countHttp),
    { name: 'page', via: 'HTTP', connections: CONCURRENT, requests: perLoop * CONCURRENT, latencyMs: pageConcurrent },
    one('page', 'SQL', PAGE_RUNS, pageSql),
    one('count', 'SQL', COUNT_RUNS, countSql),
  ];
}

/** Seeds the invoices, starts Till on them and measures; `skipped` when PostgreSQL is unreachable. */
export async function benchInvoices(): Promise<InvoiceBenchResult> {
  let bench: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    bench = await createBenchDatabase();
  } catch (error) {
    if (error instanceof PgUnreachable) return { status: 'skipped', reason: `PostgreSQL unreachable: ${error.message}` };
    throw error;
  }
  let till: TillProcess | undefined;
  let database: TillDatabase | undefined;
  try {
    till = await spawnTill(bench.url); // migrates the fresh database and creates its demo merchant
    console.log(`bench: invoices: seeding ${fmt(INVOICE_ROWS, 0)} invoices of merchant ${till.merchantId}…`);
    const seedStart = performance.now();
    await seed(bench.url, till.merchantId);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    database = await openDatabase({ databaseUrl: bench.url, maxConnections: 1 }); // the statements alone, one connection
    const counted = await checkAnswers(till);
    const before = os.loadavg();
    const cases = await measure(till, database);
    const after = os.loadavg();
    const { page, count } = statements(database, till.merchantId);
    const plans = { page: await explain(database, page), count: await explain(database, count) };
    return { status: 'ok', rows: INVOICE_ROWS, seedSeconds, cases, counted, plans, load: { before, after } };
  } catch (error) {
    return { status: 'failed', reason: message(error) };
  } finally {
    await database?.close();
    await till?.stop();
    await bench.drop();
  }
}

const find = (result: InvoiceBenchResult, name: InvoiceCase['name'], via: InvoiceCase['via'], connections: number) =>
  result.cases?.find((c) => c.name === name && c.via === via && c.connections === connections);

/** The issue's two goals, judged on the HTTP cases at 1 connection. */
export function invoiceGoals(result: InvoiceBenchResult): Goal[] {
  const rows = fmt(result.rows ?? INVOICE_ROWS, 0);
  const pageName = `Invoice list, ${rows} rows, HTTP at 1 connection: $filter status and totalCost, $orderby id desc, $top 25, p50 ≤ ${PAGE_GOAL_MS} ms`;
  const countName = `Invoice list, ${rows} rows, HTTP at 1 connection: $count=true over all, p50 ≤ ${COUNT_GOAL_MS} ms`;
  const [page, count] = [find(result, 'page', 'HTTP', 1), find(result, 'count', 'HTTP', 1)];
  if (result.status !== 'ok' || !page || !count)
    return [pageName, countName].map((name) => ({ name, measured: `${result.status}: ${result.reason ?? ''}`, met: null }));
  const goal = (name: string, c: InvoiceCase, limit: number, extra = ''): Goal => ({
    name,
    measured: `${fmt(c.latencyMs.p50, 2)} ms (p99 ${fmt(c.latencyMs.p99, 2)} ms over ${c.requests} requests${extra})`,
    ratio: limit / c.latencyMs.p50,
    met: c.latencyMs.p50 <= limit,
    shown: `${fmt(c.latencyMs.p50 / limit, 2)}× the limit`,
  });
  return [goal(pageName, page, PAGE_GOAL_MS), goal(countName, count, COUNT_GOAL_MS, `, count ${fmt(result.counted ?? 0, 0)}`)];
}

/** The cases as table cells (header first). */
export function invoiceCells(result: InvoiceBenchResult): string[][] {
  const header = ['case', 'via', 'connections', 'requests', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'];
  if (result.status !== 'ok') return [header, ['invoice list', `${result.status}: ${result.reason ?? ''}`]];
  const label = { page: "$filter status eq 'Pending' and totalCost gt 100, $orderby id desc, $top 25", count: '$count=true, $top 25 (all rows)' };
  return [
    header,
    ...(result.cases ?? []).map((c) => [
      label[c.name],
      c.via,
      String(c.connections),
      String(c.requests),
      ...(['p50', 'p90', 'p99', 'max'] as const).map((p) => fmt(c.latencyMs[p], 2)),
    ]),
  ];
}

const loads = (l: number[]) => l.map((n) => n.toFixed(2)).join(' ');

/** What the table shows, and the machine's load while it was measured. */
export function invoiceNotes(result: InvoiceBenchResult): string[] {
  if (result.status !== 'ok') return [];
  return [
    `Invoice list: ${fmt(result.rows ?? 0, 0)} invoices of one merchant on PostgreSQL (seeded and VACUUM ANALYZEd in ${fmt(result.seedSeconds ?? 0, 1)} s). HTTP: GET /v1/invoice with x-api-key against Till (compiled build, NODE_ENV=production), each connection sending its next request when the last answer is read; the goals are judged at 1 connection. SQL: the page's and the count's statements alone, as the handler builds them, from the bench process, each run right after its HTTP request (the two alternate, so both see the same machine).`,
    `Load average (1, 5, 15 min) before ${loads(result.load?.before ?? [])}, after ${loads(result.load?.after ?? [])} on ${os.cpus().length} CPUs: other work on the machine moves every figure.`,
  ];
}

/** The Markdown section: the table, the notes and both plans. */
export function invoiceMarkdown(result: InvoiceBenchResult): string[] {
  const plan = (title: string, text: string | undefined) => (text ? [`${title}:`, '', '```', text, '```', ''] : []);
  return [
    '## Invoice list (PostgreSQL)',
    '',
    ...invoiceNotes(result).flatMap((n) => [n, '']),
    markdownTable(invoiceCells(result)),
    '',
    ...plan('EXPLAIN (ANALYZE, BUFFERS) of the page', result.plans?.page),
    ...plan('EXPLAIN (ANALYZE, BUFFERS) of the count', result.plans?.count),
  ];
}
