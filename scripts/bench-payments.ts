/**
 * Full card payments, for `npm run bench` (scripts/bench.ts): CONNECTIONS loops, each creating a
 * checkout session with the secret key (and an Idempotency-Key of its own), tokenizing test card
 * 4242424242424242 with the publishable key and the client secret, and confirming it; as fast as
 * Till answers. Used by the payments part (payments/s and the latency of a whole payment) and by
 * the webhook case's API writes (each confirm writes two events).
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { checkInterrupted, CONNECTIONS, createBenchDatabase, DURATION_S, idOf, isInterrupted, message, onCleanup, sleep, WARMUP_S } from './bench-lib.js';
import { type CpuSample, sampleCpu } from './bench-cpu.js';
import { spawnTill, type TillProcess } from './bench-till.js';
import { fmt, type LatencySummary, latencySummary } from './bench-format.js';

/** The checkout session every payment (and the create-session operation) creates. */
export const SESSION_BODY = { amount: 25, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' } as const;
/** Test card 4242424242424242, expiring in 2031. */
export const CARD = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123' } as const;

/**
 * The payments' HTTP client: undici's `request` on one pool of kept-alive connections. The load runs
 * on the same cores as Till and PostgreSQL, so its own cost counts: with `fetch` the bench spent
 * 2.5–3.5 ms of CPU per payment, with this 0.9–1.2 ms (same run, 1,000 payments at 50 loops).
 */
let client: Agent | undefined;
function paymentsClient(): Agent {
  if (!client) {
    const made = new Agent({ connections: 4 * CONNECTIONS, keepAliveTimeout: 30_000 });
    client = made;
    onCleanup('close the payments HTTP client', async () => {
      client = undefined;
      await made.close();
    });
  }
  return client;
}

/** POSTs JSON and answers the status and the parsed answer; throws on a non-2xx answer. */
async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: paymentsClient(),
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`POST ${url} answered ${res.statusCode}: ${text.slice(0, 500)}`);
  return { status: res.statusCode, json: JSON.parse(text) as unknown };
}

/** One full payment: create (201), tokenize (201), confirm (200). Throws on any other answer. */
export async function payOnce(till: TillProcess): Promise<void> {
  const secret = { authorization: `Bearer ${till.secretKey}`, 'idempotency-key': `bench-pay-${randomUUID()}` };
  const created = await postJson(`${till.url}/v1/checkout-sessions`, secret, SESSION_BODY);
  const session = created.json as { id: string; clientSecret: string };
  const payer = { authorization: `Bearer ${till.publishableKey}`, 'x-client-secret': session.clientSecret };
  const method = await postJson(`${till.url}/v1/checkout-sessions/${session.id}/tokenize`, payer, CARD);
  const confirmed = await postJson(`${till.url}/v1/checkout-sessions/${session.id}/confirm`, payer, { paymentMethodId: idOf(method.json) });
  const statuses = [created.status, method.status, confirmed.status];
  if (statuses.join() !== '201,201,200') throw new Error(`a payment answered ${statuses.join(', ')}; expected 201, 201, 200`);
}

/**
 * CONNECTIONS loops of payOnce until `deadline` (epoch ms). `done` gets each payment's start and
 * end (epoch ms, fractional); `failed` each error (the loop then pauses 50 ms).
 */
export async function payInLoops(
  till: TillProcess,
  deadline: number,
  done: (startedAt: number, endedAt: number) => void,
  failed: (error: unknown) => void,
): Promise<void> {
  const now = () => performance.timeOrigin + performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < deadline && !isInterrupted()) {
        const startedAt = now();
        try {
          await payOnce(till);
          done(startedAt, now());
        } catch (error) {
          failed(error);
          await sleep(50);
        }
      }
    }),
  );
}

/** The payments row of the report. */
export interface PaymentRow {
  target: 'till-postgres' | 'till-postgres-2' | 'baseline-postgres';
  /** With BENCH_BASELINE and BENCH_ROUNDS > 1, the round. */
  round?: number;
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  /** Payments completed in the measured window, per second. */
  paymentsPerSec?: number;
  /** Of a whole payment (three requests), over the payments completed in the window. */
  latencyMs?: LatencySummary;
  /** Completed in the window. */
  payments?: number;
  /** Payments that failed, over warm-up and window. */
  failed?: number;
  /**
   * CPU per payment completed in the window, in ms: Till's process (not measured with
   * TILL_WORKERS), every PostgreSQL process's, and the bench's own (the load, on the same cores).
   */
  cpuMsPerPayment?: { till?: number; postgres?: number; bench?: number };
  sampleErrors?: string[];
}

/** ", CPU per payment: Till … ms, PostgreSQL … ms, the bench … ms" where measured. */
const cpuText = (cpu: PaymentRow['cpuMsPerPayment']) =>
  cpu?.till === undefined
    ? ''
    : `, CPU per payment: Till ${fmt(cpu.till, 1)} ms${cpu.postgres === undefined ? '' : `, PostgreSQL ${fmt(cpu.postgres, 1)} ms`}${cpu.bench === undefined ? '' : `, the bench ${fmt(cpu.bench, 1)} ms`}`;

/** A CPU sample of Till and PostgreSQL (each absent without /proc), with the bench's own CPU seconds. */
type PaymentCpuSample = CpuSample & { bench: number };

/** CPU ms per payment between the window's two samples. */
function perPayment([a, b]: PaymentCpuSample[], payments: number): PaymentRow['cpuMsPerPayment'] {
  const ms = (x: number | undefined, y: number | undefined) => (x === undefined || y === undefined || payments === 0 ? undefined : ((y - x) * 1000) / payments);
  return a && b ? { till: ms(a.till, b.till), postgres: ms(a.postgres, b.postgres), bench: ms(a.bench, b.bench) } : undefined;
}

/** CPU seconds (user + system) this process has used so far. */
const benchCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Runs the loops for WARMUP_S + DURATION_S and counts the payments completed in the last DURATION_S. */
export async function measurePayments(target: PaymentRow['target'], till: TillProcess): Promise<PaymentRow> {
  process.stdout.write(`bench: ${target.padEnd(15)} ${'full card payment'.padEnd(26)} ... ${WARMUP_S} s warm-up + ${DURATION_S} s, ${CONNECTIONS} loops`);
  checkInterrupted();
  const t0 = Date.now() + WARMUP_S * 1000;
  const t1 = t0 + DURATION_S * 1000;
  const times: number[] = [];
  const samples: string[] = [];
  let failed = 0;
  const done = (startedAt: number, endedAt: number) => {
    if (endedAt >= t0 && endedAt < t1) times.push(endedAt - startedAt);
  };
  const fail = (error: unknown) => {
    failed += 1;
    const text = message(error)
      .replace(/req_[0-9a-f]+/g, 'req_…')
      .slice(0, 300);
    if (samples.length < 3 && !samples.includes(text)) samples.push(text);
  };
  const cpu: PaymentCpuSample[] = [];
  const sampleAt = async (at: number) => {
    await sleep(Math.max(0, at - Date.now()));
    // With TILL_WORKERS the pid is the primary's, which serves no request: only PostgreSQL's CPU then.
    cpu.push({ ...(await sampleCpu(target === 'till-postgres-2' ? undefined : till.pid, undefined)), bench: benchCpuSeconds() });
  };
  await Promise.all([payInLoops(till, t1, done, fail), sampleAt(t0).then(() => sampleAt(t1))]);
  checkInterrupted();
  const row: PaymentRow = {
    target,
    status: 'ok',
    paymentsPerSec: times.length / DURATION_S,
    latencyMs: latencySummary(times),
    payments: times.length,
    failed,
    sampleErrors: samples,
    cpuMsPerPayment: perPayment(cpu, times.length),
  };
  if (times.length === 0) Object.assign(row, { status: 'failed', reason: `no payment completed${samples[0] ? ` (${samples[0]})` : ''}` });
  console.log(
    `  → ${fmt(row.paymentsPerSec!, 0)} payments/s, p50 ${fmt(row.latencyMs!.p50, 1)} ms, p99 ${fmt(row.latencyMs!.p99, 1)} ms${failed ? `, ${failed} failed` : ''}${cpuText(row.cpuMsPerPayment)}`,
  );
  return row;
}

/** The payments part: Till (production) on a fresh PostgreSQL database, with `workers` processes, from the checkout `cwd`. */
export async function benchPayments(target: PaymentRow['target'], workers: number, cwd?: string): Promise<PaymentRow> {
  const database = await createBenchDatabase();
  let till: TillProcess | undefined;
  try {
    console.log(`bench: starting ${target} for full card payments...`);
    till = await spawnTill(database.url, workers > 1 ? { TILL_WORKERS: String(workers) } : {}, cwd);
    await payOnce(till); // a broken setup fails here with a readable answer
    return await measurePayments(target, till);
  } finally {
    await till?.stop();
    await database.drop();
  }
}

/** The payment rows as cells, for the console and the Markdown table alike. */
export function paymentCells(rows: PaymentRow[]): string[][] {
  const header = ['target', 'operation', 'payments/s', 'p50 ms', 'p99 ms', 'payments', 'failed', 'CPU ms/payment till·pg·bench'];
  const body = rows.map((r) => {
    const target = r.round ? `${r.target} #${r.round}` : r.target;
    if (r.status !== 'ok' || !r.latencyMs) return [target, 'full card payment', `${r.status}: ${r.reason ?? ''}`];
    return [
      target,
      'full card payment',
      fmt(r.paymentsPerSec ?? 0, 0),
      fmt(r.latencyMs.p50, 1),
      fmt(r.latencyMs.p99, 1),
      fmt(r.payments ?? 0, 0),
      String(r.failed ?? 0),
      [r.cpuMsPerPayment?.till, r.cpuMsPerPayment?.postgres, r.cpuMsPerPayment?.bench].map((ms) => (ms === undefined ? 'n/a' : fmt(ms, 1))).join(' · '),
    ];
  });
  return [header, ...body];
}
