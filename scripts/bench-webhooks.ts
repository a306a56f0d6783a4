/**
 * The webhook part of `npm run bench` (scripts/bench.ts; its header describes the cases): events
 * delivered per second and the latency from each event's write to its receipt, on PostgreSQL.
 * One case is measured in bench-webhook-case.ts, the receiver is in bench-webhook-receiver.ts, the
 * writes in bench-webhook-writes.ts.
 */
import pg from 'pg';
import { callJson, checkInterrupted, createBenchDatabase, isInterrupted, message, onCleanup, PG_ADMIN_URL, PgUnreachable, root } from './bench-lib.js';
import { spawnTill, type TillProcess } from './bench-till.js';
import { fmt } from './bench-format.js';
import { measureWebhookCase, WEBHOOK_GOALS, type WebhookCase, type WebhookRow } from './bench-webhook-case.js';
import { startWebhookReceiver, type WebhookReceiver } from './bench-webhook-receiver.js';
import { measureWebhookDbFloor, measureWebhookFloor, type WebhookFloor } from './bench-webhook-floor.js';
import { OUTBOX_WRITERS, storedEvents, writeThroughApi, writeToOutbox } from './bench-webhook-writes.js';

/** What benchWebhooks answers. */
type WebhookResult = { rows: WebhookRow[]; unexpected: number; badRequests: number; postgres?: string; floor?: WebhookFloor };

/** A fresh bench database, or the rows saying why the webhook case is skipped (or failed) without one. */
async function webhookDatabase(target: WebhookRow['target'], cases: WebhookCase[]): Promise<Awaited<ReturnType<typeof createBenchDatabase>> | WebhookResult> {
  const allAre = (status: 'skipped' | 'failed', reason: string) => ({
    rows: cases.map((c) => ({ target, case: c, status, reason })),
    unexpected: 0,
    badRequests: 0,
  });
  try {
    return await createBenchDatabase();
  } catch (error) {
    checkInterrupted();
    if (error instanceof PgUnreachable) {
      console.log(`bench: PostgreSQL unreachable at ${PG_ADMIN_URL} (${error.message}): skipping the webhook case`);
      return allAre('skipped', 'PostgreSQL unreachable');
    }
    console.log(`bench: could not create the webhook bench database: ${message(error)}`);
    return allAre('failed', `could not create the bench database: ${message(error)}`);
  }
}

/** The outbox case writes events shaped like the API case's payment.succeeded. */
async function outboxTemplate(pool: pg.Pool, merchantId: number) {
  const { rows: sample } = await pool.query<{ type: string; api_version: string; data: unknown }>(
    `SELECT type, api_version, data FROM events WHERE merchant_id = $1 AND type = 'payment.succeeded' ORDER BY seq DESC LIMIT 1`,
    [merchantId],
  );
  return {
    merchantId,
    type: 'payment.succeeded',
    apiVersion: sample[0]?.api_version ?? '2026-11-01',
    data: sample[0]?.data ?? { object: 'payment', id: 0 },
  };
}

/** Starts the receiver and Till (kept in `started`, for the caller to stop), subscribes the receiver to every event, and runs the two cases. */
async function runWebhookCases(
  target: WebhookRow['target'],
  database: { url: string },
  cwd: string,
  pool: pg.Pool,
  rows: WebhookRow[],
  started: { receiver?: WebhookReceiver; till?: TillProcess },
): Promise<{ unexpected: number; badRequests: number; floor: WebhookFloor }> {
  console.log(`bench: starting the webhook receiver and ${target} (NODE_ENV=development, TILL_ALLOW_LOOPBACK_WEBHOOKS=true)...`);
  const receiver = (started.receiver = await startWebhookReceiver());
  const till = (started.till = await spawnTill(database.url, { NODE_ENV: 'development', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true' }, cwd));
  await callJson(
    'POST',
    `${till.url}/v1/WebhookConfiguration`,
    { Authorization: `Bearer ${till.secretKey}` },
    { sandboxUrl: receiver.url, subscribedEvents: ['*'], description: 'bench receiver' },
  );
  const context = { till, receiver, pool, previous: new Set<string>() };
  rows.push({ ...(await measureWebhookCase('API state changes', context, (deadline, tally) => writeThroughApi(till, deadline, tally))), target });
  const template = await outboxTemplate(pool, till.merchantId);
  rows.push({ ...(await measureWebhookCase('outbox writes', context, (deadline, tally) => writeToOutbox(pool, template, deadline, tally))), target });
  // Anything received that the database does not hold?
  const stored = await storedEvents(pool, till.merchantId);
  const unexpected = [...receiver.receipts.keys()].filter((id) => !stored.has(id)).length;
  const badRequests = receiver.badRequests;
  // The outbox case again, delivered by the floor with Till's database work: Till stops first.
  await till.stop();
  rows.push(await measureWebhookDbFloor(context, database.url, (deadline, tally) => writeToOutbox(pool, template, deadline, tally)));
  // Then the bare floor, to the same receiver (its envelopes are not Till's, so they come after the count).
  return { unexpected, badRequests, floor: await measureWebhookFloor(receiver, template.data) };
}

/**
 * The webhook case, on PostgreSQL only: a fresh database, a receiver, Till with
 * `NODE_ENV=development` (loopback webhooks are refused in production) and
 * `TILL_ALLOW_LOOPBACK_WEBHOOKS=true`, one endpoint subscribed to every event; then the two cases.
 */
export async function benchWebhooks(target: WebhookRow['target'] = 'till-postgres', cwd = root): Promise<WebhookResult> {
  const cases: WebhookCase[] = ['API state changes', 'outbox writes'];
  const database = await webhookDatabase(target, cases);
  if ('rows' in database) return database;
  const rows: WebhookRow[] = [];
  const started: { receiver?: WebhookReceiver; till?: TillProcess } = {};
  const pool = new pg.Pool({ connectionString: database.url, max: OUTBOX_WRITERS });
  // An idle connection the database's drop ends at the close is expected, not a crash of the bench.
  pool.on('error', () => {});
  const endPool = onCleanup('close the webhook bench pool', () => pool.end());
  try {
    const { unexpected, badRequests, floor } = await runWebhookCases(target, database, cwd, pool, rows, started);
    return { rows, unexpected, badRequests, postgres: database.serverVersion, floor };
  } catch (error) {
    if (isInterrupted()) throw error;
    console.log(`\nbench: the webhook case failed: ${message(error)}`);
    const done = new Set(rows.map((r) => r.case));
    for (const c of cases) if (!done.has(c)) rows.push({ target, case: c, status: 'failed', reason: message(error).split('\n')[0] ?? '' });
    return { rows, unexpected: 0, badRequests: started.receiver?.badRequests ?? 0 };
  } finally {
    await started.till?.stop();
    await started.receiver?.stop();
    await endPool();
    await database.drop();
  }
}

/** The webhook rows as cells, for the console and the Markdown table alike. */
export function webhookCells(rows: WebhookRow[]): string[][] {
  const header = ['target', 'case', 'written/s', 'delivered/s', 'p50 ms', 'p99 ms', 'max ms', 'missing', 'dup', 'CPU till·recv·bench·pg·other', 'goals'];
  const n = (x: number | undefined) => (x === undefined ? '?' : fmt(x, 2));
  const cpu = (c: WebhookRow['cpuCores']) => (c ? `${n(c.till)}·${n(c.receiver)}·${n(c.bench)}·${n(c.postgres)}·${n(c.other)} of ${c.of}` : 'n/a');
  const body = rows.map((r) => {
    if (r.status !== 'ok' || !r.latencyMs) return [r.target, r.case, `${r.status}: ${r.reason ?? ''}`];
    const mark = (met: boolean | null | undefined) => (met === null ? 'n/a' : met ? '✓' : '✗');
    const goals = `≥${WEBHOOK_GOALS.eventsPerSec}/s ${mark(r.goalsMet?.eventsPerSec)} p99≤${WEBHOOK_GOALS.p99Ms / 1000} s ${mark(r.goalsMet?.p99)}`;
    const l = r.latencyMs;
    return [
      r.target,
      r.case,
      fmt(r.writtenPerSec ?? 0, 0),
      fmt(r.deliveredPerSec ?? 0, 0),
      fmt(l.p50, 0),
      fmt(l.p99, 0),
      fmt(l.max, 0),
      String(r.missing ?? 0),
      String(r.duplicates ?? 0),
      cpu(r.cpuCores),
      goals,
    ];
  });
  return [header, ...body];
}
