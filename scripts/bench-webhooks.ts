/**
 * The webhook part of `npm run bench` (scripts/bench.ts; its header describes the cases): events
 * delivered per second and the latency from each event's write to its receipt, on PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  callJson,
  checkInterrupted,
  createBenchDatabase,
  DURATION_S,
  fmt,
  isInterrupted,
  type LatencySummary,
  latencySummary,
  message,
  onCleanup,
  PG_ADMIN_URL,
  PgUnreachable,
  positiveInt,
  root,
  sleep,
  spawnTill,
  spawnTracked,
  stopChild,
  type TillProcess,
  WARMUP_S,
} from './bench-lib.js';
import { payInLoops } from './bench-payments.js';

// ---------------------------------------------------------------------------------------------
// The webhook case: events delivered per second and latency from the state change to receipt
// ---------------------------------------------------------------------------------------------

/** The issue's goals for webhook delivery on PostgreSQL. */
export const WEBHOOK_GOALS = { eventsPerSec: 500, p99Ms: 1000 };
/** Events written per second by the outbox case. */
export const WEBHOOK_RATE = positiveInt('BENCH_WEBHOOK_RATE', 600);
/** Connections (and inserts in flight) of the outbox case's writer. */
const OUTBOX_WRITERS = 16;
/** How long to wait, after the writes stop, for every event to be received. */
export const WEBHOOK_DRAIN_S = positiveInt('BENCH_WEBHOOK_DRAIN', 60);

export type WebhookCase = 'API state changes' | 'outbox writes';

/** One measured webhook row of the report. */
export interface WebhookRow {
  target: 'till-postgres' | 'baseline-postgres';
  case: WebhookCase;
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: string;
  /** Events written per second in the measured window. */
  writtenPerSec?: number;
  /** Distinct events received per second in the measured window (first receipt of each). */
  deliveredPerSec?: number;
  /** From the event's `created` to its first receipt, over the events written in the window. */
  latencyMs?: LatencySummary;
  /** Every event of the case, warm-up and drain included. */
  events?: number;
  /** Events of the case not received by the end of the drain: lost, as far as the run can tell. */
  missing?: number;
  /** Receipts beyond the first of an event. */
  duplicates?: number;
  /** State changes (API case) or outbox inserts that failed. */
  failedWrites?: number;
  sampleErrors?: string[];
  /**
   * CPU used in the measured window, in cores (1 = one core busy the whole time): Till, the
   * receiver, this bench process (the writes), every PostgreSQL process, and everything else on
   * the machine (`other`: what is left of `machine`).
   */
  cpuCores?: { till?: number; receiver?: number; bench: number; postgres?: number; other?: number; machine: number; of: number };
  /** Whether each goal was met; `eventsPerSec` is null when fewer events than the goal were written (it cannot be judged). */
  goalsMet?: { eventsPerSec: boolean | null; p99: boolean };
}

/** CPU seconds (user + system) a process has used so far; undefined where /proc is not there. */
export async function processCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the command name; ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by every PostgreSQL server process on this machine; undefined without /proc. */
async function postgresCpuSeconds(): Promise<number | undefined> {
  try {
    const { readdir } = await import('node:fs/promises');
    let total = 0;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    }
    return total;
  } catch {
    return undefined;
  }
}

/** Busy CPU seconds of the whole machine so far, all cores together. */
function machineCpuSeconds(): number {
  return os.cpus().reduce((sum, cpu) => sum + (cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq) / 1000, 0);
}

/** The webhook receiver: an HTTPS server on 127.0.0.1 in its own process, reporting every receipt. */
interface WebhookReceiver {
  url: string;
  pid: number | undefined;
  /** By event id: how many times it arrived, its `created` and its first arrival (epoch ms). */
  receipts: Map<string, { count: number; created: number; firstAt: number }>;
  /** Requests whose body was not an event envelope (answered 400). */
  badRequests: number;
  stop: () => Promise<void>;
}

/**
 * Starts the receiver with a self-signed certificate made by openssl (as the tests' receivers
 * are). It answers 200 to every event envelope and reports `R <eventId> <createdMs> <receivedMs>`
 * per request on stdout, in batches every 50 ms, so that reporting costs little and never delays
 * the answer; the receipt time is taken when the body has arrived.
 */
async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-tls-'));
  const removeDir = onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
    ]);
  } catch (error) {
    await removeDir();
    throw new Error(`openssl could not make the receiver's certificate: ${message(error)}`, { cause: error });
  }
  const code = `
    const https = require('node:https');
    const fs = require('node:fs');
    let lines = [];
    setInterval(() => {
      if (lines.length === 0) return;
      process.stdout.write(lines.join('\\n') + '\\n');
      lines = [];
    }, 50);
    const server = https.createServer({ key: fs.readFileSync(process.env.BENCH_TLS_KEY), cert: fs.readFileSync(process.env.BENCH_TLS_CERT), keepAliveTimeout: 30000 }, (req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        let event;
        try { event = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch {}
        if (!event || typeof event.id !== 'string' || typeof event.created !== 'string') {
          lines.push('B');
          res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': 2 });
          return res.end('{}');
        }
        lines.push('R ' + event.id + ' ' + Date.parse(event.created) + ' ' + at);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 17 });
        res.end('{"received":true}');
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('PORT=' + server.address().port));
    process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
  `;
  const { child, output, exited } = spawnTracked(process.execPath, ['-e', code], { ...process.env, BENCH_TLS_KEY: key, BENCH_TLS_CERT: cert });
  const stopChildProcess = onCleanup(`stop the webhook receiver (pid ${child.pid})`, () => stopChild(child, exited, 5000));
  const receiver: WebhookReceiver = {
    url: '',
    pid: child.pid,
    receipts: new Map(),
    badRequests: 0,
    stop: async () => {
      await stopChildProcess();
      await removeDir();
    },
  };
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString();
    const lines = text.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'B') receiver.badRequests += 1;
      if (!line.startsWith('R ')) continue;
      const [, id, created, at] = line.split(' ');
      const seen = receiver.receipts.get(id!);
      if (seen) seen.count += 1;
      else receiver.receipts.set(id!, { count: 1, created: Number(created), firstAt: Number(at) });
    }
  });
  try {
    const deadline = Date.now() + 10_000;
    let port: string | undefined;
    while (!(port = /PORT=(\d+)/.exec(output())?.[1])) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the webhook receiver did not start:\n${output()}`);
      await sleep(50);
    }
    receiver.url = `https://127.0.0.1:${port}/hooks`;
    return receiver;
  } catch (error) {
    await receiver.stop();
    throw error;
  }
}

/** What the writes of a case came to, so far. */
interface WriteTally {
  /** Events written (known to the writer: two per confirmed session, one per outbox insert). */
  written: number;
  failed: number;
  samples: string[];
}

function recordFailure(tally: WriteTally, error: unknown): void {
  tally.failed += 1;
  const text = message(error).slice(0, 300);
  if (tally.samples.length < 3 && !tally.samples.includes(text)) tally.samples.push(text);
}

/**
 * The API case's writes: CONNECTIONS loops of full card payments (bench-payments.ts) until
 * `deadline`. Each confirm writes `payment.succeeded` and `checkout.session.completed`.
 */
async function writeThroughApi(till: TillProcess, deadline: number, tally: WriteTally): Promise<void> {
  await payInLoops(
    till,
    deadline,
    () => {
      tally.written += 2;
    },
    (error) => recordFailure(tally, error),
  );
}

/** Makes an id in the shape of Till's (`evt_` and 24 letters and digits). */
function eventId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `evt_${Array.from(randomBytes(24), (b) => alphabet[b % alphabet.length]).join('')}`;
}

/**
 * The outbox case's writes: WEBHOOK_RATE events a second, each inserted on its own into the
 * `events` table (the outbox) exactly as Till's `writeEvent` writes them, with `created` set just
 * before the insert, until `deadline`. It stands for many API processes writing at once: the API
 * of one process on this machine cannot write that many. At most OUTBOX_WRITERS inserts are in flight,
 * one per pooled connection, so that none waits for a connection after its `created` is set.
 */
async function writeToOutbox(
  pool: pg.Pool,
  template: { merchantId: number; type: string; apiVersion: string; data: unknown },
  deadline: number,
  tally: WriteTally,
): Promise<void> {
  const started = Date.now();
  const data = JSON.stringify(template.data);
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  while (Date.now() < deadline && !isInterrupted()) {
    const due = Math.floor(((Date.now() - started) / 1000) * WEBHOOK_RATE);
    while (issued < due && inFlight.size < OUTBOX_WRITERS) {
      issued += 1;
      const insert = pool
        .query(
          'INSERT INTO events (id, merchant_id, livemode, type, api_version, data, session_id, payment_id, created_at) VALUES ($1, $2, false, $3, $4, $5, NULL, NULL, $6)',
          [eventId(), template.merchantId, template.type, template.apiVersion, data, new Date()],
        )
        .then(
          () => {
            tally.written += 1;
          },
          (error: unknown) => recordFailure(tally, error),
        )
        .finally(() => inFlight.delete(insert));
      inFlight.add(insert);
    }
    await (inFlight.size >= OUTBOX_WRITERS ? Promise.race(inFlight) : sleep(2));
  }
  await Promise.all(inFlight);
}

/** Events of the merchant in the database (`webhook.test` aside): id → `created` in epoch ms. */
async function storedEvents(pool: pg.Pool, merchantId: number): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ id: string; created_at: Date }>(`SELECT id, created_at FROM events WHERE merchant_id = $1 AND type <> 'webhook.test'`, [
    merchantId,
  ]);
  return new Map(rows.map((r) => [r.id, r.created_at.getTime()]));
}

/**
 * Runs one webhook case: writes for WARMUP_S + DURATION_S seconds, then waits (at most
 * WEBHOOK_DRAIN_S) until every event the case wrote has been received. Events of earlier cases
 * (`previous`) are left out. Prints progress every second.
 */
async function measureWebhookCase(
  name: WebhookCase,
  context: { till: TillProcess; receiver: WebhookReceiver; pool: pg.Pool; previous: Set<string> },
  write: (deadline: number, tally: WriteTally) => Promise<void>,
): Promise<WebhookRow> {
  const { till, receiver, pool, previous } = context;
  const label = `bench: ${'webhooks'.padEnd(13)} ${name.padEnd(20)}`;
  console.log(`${label} ... ${WARMUP_S} s warm-up + ${DURATION_S} s of writes, then up to ${WEBHOOK_DRAIN_S} s for the last deliveries`);
  checkInterrupted();
  const tally: WriteTally = { written: 0, failed: 0, samples: [] };
  const start = Date.now();
  const t0 = start + WARMUP_S * 1000;
  const t1 = t0 + DURATION_S * 1000;
  const receivedBefore = receiver.receipts.size;
  const cpu: Array<{ till?: number; receiver?: number; bench: number; postgres?: number; machine: number }> = [];
  const sampleCpu = async () => {
    const own = process.cpuUsage();
    cpu.push({
      till: await processCpuSeconds(till.pid),
      receiver: await processCpuSeconds(receiver.pid),
      bench: (own.user + own.system) / 1e6,
      postgres: await postgresCpuSeconds(),
      machine: machineCpuSeconds(),
    });
  };
  const cpuTimers = [setTimeout(() => void sampleCpu(), t0 - start), setTimeout(() => void sampleCpu(), t1 - start)];
  let lastReceived = receivedBefore;
  let phase = 'writing';
  const progress = setInterval(() => {
    const received = receiver.receipts.size;
    const second = Math.round((Date.now() - start) / 1000);
    console.log(
      `${label} ${String(second).padStart(3)} s ${phase.padEnd(8)} written ${String(tally.written).padStart(6)}  received ${String(received - receivedBefore).padStart(6)} (${fmt(received - lastReceived, 0)}/s)${tally.failed ? `  failed writes ${tally.failed}` : ''}`,
    );
    lastReceived = received;
  }, 1000);
  try {
    await write(t1, tally);
    checkInterrupted();
    phase = 'draining';
    // The case's events, as stored: every one must arrive.
    const all = await storedEvents(pool, till.merchantId);
    const events = new Map([...all].filter(([id]) => !previous.has(id)));
    for (const id of events.keys()) previous.add(id);
    const drainDeadline = Date.now() + WEBHOOK_DRAIN_S * 1000;
    const missing = () => [...events.keys()].filter((id) => !receiver.receipts.has(id));
    while (missing().length > 0 && Date.now() < drainDeadline) {
      checkInterrupted();
      await sleep(100);
    }
    await sleep(300); // a duplicate would arrive right after the first copy
    clearInterval(progress);
    if (cpu.length < 2) await sampleCpu();

    const inWindow = [...events].filter(([, created]) => created >= t0 && created < t1);
    const latencies = inWindow.flatMap(([id]) => {
      const r = receiver.receipts.get(id);
      return r ? [r.firstAt - r.created] : [];
    });
    const delivered = [...events.keys()].filter((id) => {
      const at = receiver.receipts.get(id)?.firstAt;
      return at !== undefined && at >= t0 && at < t1;
    }).length;
    const notReceived = missing().length;
    const duplicates = [...events.keys()].reduce((n, id) => n + Math.max(0, (receiver.receipts.get(id)?.count ?? 0) - 1), 0);
    const [a, b] = cpu;
    const cores = (x: number | undefined, y: number | undefined) =>
      x === undefined || y === undefined ? undefined : Math.round(((y - x) / DURATION_S) * 100) / 100;
    const cpuCores = (a: (typeof cpu)[number], b: (typeof cpu)[number]): NonNullable<WebhookRow['cpuCores']> => {
      const used = {
        till: cores(a.till, b.till),
        receiver: cores(a.receiver, b.receiver),
        bench: cores(a.bench, b.bench)!,
        postgres: cores(a.postgres, b.postgres),
        machine: cores(a.machine, b.machine)!,
      };
      const known = [used.till, used.receiver, used.postgres];
      const other = known.every((x) => x !== undefined)
        ? Math.max(0, Math.round((used.machine - used.bench - known.reduce((x, y) => x! + y!, 0)!) * 100) / 100)
        : undefined;
      return { ...used, other, of: os.cpus().length };
    };
    const row: WebhookRow = {
      target: 'till-postgres',
      case: name,
      status: 'ok',
      writtenPerSec: inWindow.length / DURATION_S,
      deliveredPerSec: delivered / DURATION_S,
      latencyMs: latencySummary(latencies),
      events: events.size,
      missing: notReceived,
      duplicates,
      failedWrites: tally.failed,
      sampleErrors: tally.samples,
      ...(a && b ? { cpuCores: cpuCores(a, b) } : {}),
    };
    const judged = row.writtenPerSec! >= WEBHOOK_GOALS.eventsPerSec || row.deliveredPerSec! >= WEBHOOK_GOALS.eventsPerSec;
    row.goalsMet = {
      eventsPerSec: judged ? row.deliveredPerSec! >= WEBHOOK_GOALS.eventsPerSec : null,
      p99: latencies.length > 0 && row.latencyMs!.p99 <= WEBHOOK_GOALS.p99Ms,
    };
    if (inWindow.length === 0) {
      row.status = 'failed';
      row.reason = `no event was written in the measured window${tally.samples[0] ? ` (${tally.samples[0]})` : ''}`;
    }
    const l = row.latencyMs!;
    console.log(
      `${label} → ${fmt(row.deliveredPerSec!, 0)} events/s delivered (${fmt(row.writtenPerSec!, 0)}/s written), p50 ${fmt(l.p50, 0)} ms, p99 ${fmt(l.p99, 0)} ms, max ${fmt(l.max, 0)} ms; ${events.size} events, ${notReceived} missing, ${duplicates} duplicates${tally.failed ? `, ${tally.failed} failed writes` : ''}`,
    );
    return row;
  } finally {
    clearInterval(progress);
    for (const timer of cpuTimers) clearTimeout(timer);
  }
}

/**
 * The webhook case, on PostgreSQL only: a fresh database, a receiver, Till with
 * `NODE_ENV=development` (loopback webhooks are refused in production) and
 * `TILL_ALLOW_LOOPBACK_WEBHOOKS=true`, one endpoint subscribed to every event; then the two cases.
 */
export async function benchWebhooks(
  target: WebhookRow['target'] = 'till-postgres',
  cwd = root,
): Promise<{ rows: WebhookRow[]; unexpected: number; badRequests: number; postgres?: string }> {
  const cases: WebhookCase[] = ['API state changes', 'outbox writes'];
  const allAre = (status: 'skipped' | 'failed', reason: string) => ({
    rows: cases.map((c) => ({ target, case: c, status, reason })),
    unexpected: 0,
    badRequests: 0,
  });
  let database: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    database = await createBenchDatabase();
  } catch (error) {
    checkInterrupted();
    if (error instanceof PgUnreachable) {
      console.log(`bench: PostgreSQL unreachable at ${PG_ADMIN_URL} (${error.message}): skipping the webhook case`);
      return allAre('skipped', 'PostgreSQL unreachable');
    }
    console.log(`bench: could not create the webhook bench database: ${message(error)}`);
    return allAre('failed', `could not create the bench database: ${message(error)}`);
  }
  const rows: WebhookRow[] = [];
  let receiver: WebhookReceiver | undefined;
  let till: TillProcess | undefined;
  const pool = new pg.Pool({ connectionString: database.url, max: OUTBOX_WRITERS });
  const endPool = onCleanup('close the webhook bench pool', () => pool.end());
  try {
    console.log(`bench: starting the webhook receiver and ${target} (NODE_ENV=development, TILL_ALLOW_LOOPBACK_WEBHOOKS=true)...`);
    receiver = await startWebhookReceiver();
    till = await spawnTill(database.url, { NODE_ENV: 'development', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true' }, cwd);
    await callJson(
      'POST',
      `${till.url}/v1/WebhookConfiguration`,
      { Authorization: `Bearer ${till.secretKey}` },
      { sandboxUrl: receiver.url, subscribedEvents: ['*'], description: 'bench receiver' },
    );
    const context = { till, receiver, pool, previous: new Set<string>() };
    const t = till;

    rows.push({ ...(await measureWebhookCase('API state changes', context, (deadline, tally) => writeThroughApi(t, deadline, tally))), target });

    // The outbox case writes events shaped like the API case's payment.succeeded.
    const { rows: sample } = await pool.query<{ type: string; api_version: string; data: unknown }>(
      `SELECT type, api_version, data FROM events WHERE merchant_id = $1 AND type = 'payment.succeeded' ORDER BY seq DESC LIMIT 1`,
      [t.merchantId],
    );
    const template = {
      merchantId: t.merchantId,
      type: 'payment.succeeded',
      apiVersion: sample[0]?.api_version ?? '2026-11-01',
      data: sample[0]?.data ?? { object: 'payment', id: 0 },
    };
    rows.push({ ...(await measureWebhookCase('outbox writes', context, (deadline, tally) => writeToOutbox(pool, template, deadline, tally))), target });

    // Anything received that the database does not hold?
    const stored = await storedEvents(pool, t.merchantId);
    const unexpected = [...receiver.receipts.keys()].filter((id) => !stored.has(id)).length;
    return { rows, unexpected, badRequests: receiver.badRequests, postgres: database.serverVersion };
  } catch (error) {
    if (isInterrupted()) throw error;
    console.log(`\nbench: the webhook case failed: ${message(error)}`);
    const done = new Set(rows.map((r) => r.case));
    for (const c of cases) if (!done.has(c)) rows.push({ target, case: c, status: 'failed', reason: message(error).split('\n')[0] ?? '' });
    return { rows, unexpected: 0, badRequests: receiver?.badRequests ?? 0 };
  } finally {
    await till?.stop();
    await receiver?.stop();
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
