/**
 * The sandbox clock part of `npm run bench` (scripts/bench.ts; `BENCH_ONLY=clock`): how long
 * `POST /v1/test-helpers/clock/advance` takes for a merchant with a realistic sandbox
 * (bench-clock-seed.ts: hundreds of sessions and payments, dozens of subscriptions, a webhook
 * endpoint that answers 500 beside one that answers 200), on PGlite and on PostgreSQL.
 *
 * Till runs from the compiled build with NODE_ENV=development and TILL_ALLOW_LOOPBACK_WEBHOOKS=true
 * (loopback webhooks are refused in production), its deliveries going to the bench's HTTPS
 * receiver. Once the sandbox is made and the job queue has made the first attempt of every
 * delivery, the merchant's clock is advanced by 1 day, then 30 days, then 365 days, one after the
 * other, each timed from the request to its answer. Goals: a day ≤ 2 s, a year ≤ 10 s.
 *
 * The machine is shared, so the same run measures references beside them: the mean of
 * BENCH_CLOCK_GETS sequential `GET /v1/plans/{id}` round trips, and the same advances of an empty
 * sandbox merchant (`POST /v1/test-helpers/merchants`). With BENCH_BASELINE, Till at that revision
 * is measured the same beside this checkout's on each database (rows `baseline-pglite`,
 * `baseline-postgres`, on a sandbox of their own). With BENCH_ROUNDS, each database is measured
 * that many times; the goals and the comparison with the baseline take the mean of the rounds.
 */
import os from 'node:os';
import type { Goal } from './bench-goal-kinds.js';
import { createBenchDatabase, message, PgUnreachable, positiveInt, ROUNDS, sleep } from './bench-lib.js';
import { apiOf, SANDBOX, seedSandbox } from './bench-clock-seed.js';
import { spawnTill, type TillProcess } from './bench-till.js';
import type { Baseline } from './bench-baseline.js';
import { startWebhookReceiver, type WebhookReceiver } from './bench-webhook-receiver.js';
import { fmt } from './bench-format.js';
import { type CpuSample, sampleCpu } from './bench-cpu.js';

const DAY = 86_400;
/** The advances, in the order they are made. */
const ADVANCES = [
  { label: '1 day', seconds: DAY },
  { label: '30 days', seconds: 30 * DAY },
  { label: '365 days', seconds: 365 * DAY },
] as const;
const GOALS_S: Record<string, number> = { '1 day': 2, '365 days': 10 };
const GETS = positiveInt('BENCH_CLOCK_GETS', 200);

export interface ClockAdvanceRow {
  merchant: 'sandbox' | 'empty';
  advance: string;
  seconds: number;
  jobsRun: number;
  /** CPU seconds used during the advance by Till, PostgreSQL (every server process) and the receiver, where /proc tells. */
  cpu?: { till?: number; postgres?: number; receiver?: number };
}

export interface ClockDatabaseResult {
  database: 'pglite' | 'postgres';
  /** The BENCH_BASELINE commit this Till ran at; absent for this checkout. */
  baseline?: string;
  /** With BENCH_ROUNDS > 1, the round. */
  round?: number;
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  seedSeconds?: number;
  /** The mean of a sequential GET /v1/plans/{id}, ms: the reference. */
  getMs?: number;
  advances?: ClockAdvanceRow[];
  /** Requests the failing endpoint received (answered 500), and events the other received, by the end. */
  failedAttempts?: number;
  received?: number;
  load?: number[];
}

/** POST /v1/test-helpers/clock/advance with `key`, timed; throws on anything but a 200. */
async function advance(till: TillProcess, key: string, seconds: number): Promise<{ seconds: number; jobsRun: number }> {
  const start = performance.now();
  const res = await fetch(`${till.url}/v1/test-helpers/clock/advance`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ seconds }),
    signal: AbortSignal.timeout(900_000),
  });
  const text = await res.text();
  const elapsed = (performance.now() - start) / 1000;
  if (res.status !== 200) throw new Error(`advance by ${seconds} s answered ${res.status}: ${text.slice(0, 300)}`);
  return { seconds: elapsed, jobsRun: (JSON.parse(text) as { jobsRun: number }).jobsRun };
}

/** Waits (at most 120 s) until the receiver has seen no request for 2 s: the job queue's first attempts are made. */
async function settled(receiver: WebhookReceiver): Promise<void> {
  const deadline = Date.now() + 120_000;
  let last = -1;
  while (Date.now() < deadline) {
    const seen = receiver.receipts.size + receiver.failed;
    if (seen === last) return;
    last = seen;
    await sleep(2000);
  }
}

/** CPU seconds used between two samples by Till, PostgreSQL and the receiver (steadier than the seconds on a shared machine). */
function cpuUsed(a: CpuSample, b: CpuSample): ClockAdvanceRow['cpu'] {
  const used = (x: number | undefined, y: number | undefined) => (x === undefined || y === undefined ? undefined : y - x);
  return { till: used(a.till, b.till), postgres: used(a.postgres, b.postgres), receiver: used(a.receiver, b.receiver) };
}

/** The reference: the mean of GETS sequential GET /v1/plans/{id}, in ms. */
async function getRoundTrip(till: TillProcess): Promise<number> {
  const api = apiOf(till);
  const plans = (await api('GET', '/v1/plans?limit=1')) as { data?: { data?: Array<{ id: number }> } | Array<{ id: number }> };
  const list = Array.isArray(plans.data) ? plans.data : (plans.data?.data ?? []);
  const path = list[0] ? `/v1/plans/${list[0].id}` : '/v1/plans?limit=1';
  for (let i = 0; i < 20; i++) await api('GET', path);
  const start = performance.now();
  for (let i = 0; i < GETS; i++) await api('GET', path);
  return (performance.now() - start) / GETS;
}

/** The row's name: the database, `baseline-` before it for the baseline's Till, ` #<round>` after it in rounds. */
export const clockTarget = (r: Pick<ClockDatabaseResult, 'database' | 'baseline' | 'round'>) =>
  `${r.baseline ? 'baseline-' : ''}${r.database}${r.round ? ` #${r.round}` : ''}`;

/** A result's side and round: `baseline` for the baseline's Till, `round` with BENCH_ROUNDS > 1. */
const sideOf = (baseline: Baseline | undefined, round: number | undefined) => ({
  ...(baseline ? { baseline: baseline.commit } : {}),
  ...(round ? { round } : {}),
});

/** Seeds and measures on one database (`url` undefined: PGlite), with this checkout's Till or the baseline's. */
async function measureOn(
  database: ClockDatabaseResult['database'],
  url: string | undefined,
  baseline: Baseline | undefined,
  round: number | undefined,
): Promise<ClockDatabaseResult> {
  let receiver: WebhookReceiver | undefined;
  let till: TillProcess | undefined;
  const which = sideOf(baseline, round);
  const name = clockTarget({ database, ...which });
  try {
    receiver = await startWebhookReceiver();
    const env = { NODE_ENV: 'development', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true', LOG_LEVEL: 'error' };
    till = await (baseline ? spawnTill(url, env, baseline.dir) : spawnTill(url, env));
    console.log(`bench: clock on ${name}: seeding the sandbox…`);
    const seedStart = performance.now();
    await seedSandbox(till, receiver.url);
    await settled(receiver);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const empty = (await apiOf(till)('POST', '/v1/test-helpers/merchants', { name: 'bench empty' })) as { secretKey: string };
    const getMs = await getRoundTrip(till);
    const advances: ClockAdvanceRow[] = [];
    for (const a of ADVANCES) {
      for (const [merchant, key] of [
        ['empty', empty.secretKey],
        ['sandbox', till.secretKey],
      ] as const) {
        const before = await sampleCpu(till.pid, receiver.pid);
        const r = await advance(till, key, a.seconds);
        advances.push({ merchant, advance: a.label, ...r, cpu: cpuUsed(before, await sampleCpu(till.pid, receiver.pid)) });
        console.log(`bench: clock on ${name}: ${merchant} merchant, advance by ${a.label}: ${fmt(r.seconds, 2)} s (${r.jobsRun} jobs run)`);
      }
    }
    const load = os.loadavg();
    return { database, ...which, status: 'ok', seedSeconds, getMs, advances, failedAttempts: receiver.failed, received: receiver.receipts.size, load };
  } catch (error) {
    return { database, ...which, status: 'failed', reason: message(error).split('\n')[0] ?? '' };
  } finally {
    await till?.stop();
    await receiver?.stop();
  }
}

/**
 * The clock part on PGlite and on PostgreSQL (skipped, and said so, when PostgreSQL is unreachable),
 * BENCH_ROUNDS times. With a baseline, the order alternates: in odd rounds this checkout's Till
 * first on PGlite and the baseline's first on PostgreSQL, in even rounds the other way (the side
 * measured first was about 20% slower with identical code).
 */
export async function benchClock(baseline?: Baseline): Promise<ClockDatabaseResult[]> {
  const results: ClockDatabaseResult[] = [];
  const order = (oursFirst: boolean) => (!baseline ? [undefined] : oursFirst ? [undefined, baseline] : [baseline, undefined]);
  for (let round = 1; round <= ROUNDS; round++) {
    const tag = ROUNDS > 1 ? round : undefined;
    for (const b of order(round % 2 === 1)) results.push(await measureOn('pglite', undefined, b, tag));
    for (const b of order(round % 2 === 0)) results.push(await measureOnPostgres(b, tag));
  }
  return results;
}

/** measureOn on a fresh PostgreSQL database, dropped afterwards; skipped when PostgreSQL is unreachable. */
async function measureOnPostgres(baseline: Baseline | undefined, round: number | undefined): Promise<ClockDatabaseResult> {
  let bench: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    bench = await createBenchDatabase();
  } catch (error) {
    if (!(error instanceof PgUnreachable)) throw error;
    return { database: 'postgres', ...sideOf(baseline, round), status: 'skipped', reason: `PostgreSQL unreachable: ${error.message}` };
  }
  try {
    return await measureOn('postgres', bench.url, baseline, round);
  } finally {
    await bench.drop();
  }
}

const row = (r: ClockDatabaseResult, merchant: ClockAdvanceRow['merchant'], label: string) =>
  r.advances?.find((a) => a.merchant === merchant && a.advance === label);

/** The sandbox merchant's mean advance by `label` over the ok rounds of one database and one side; undefined when none. */
function meanAdvance(results: ClockDatabaseResult[], database: string, baseline: boolean, label: string) {
  const rounds = results.filter((r) => r.database === database && !!r.baseline === baseline && r.status === 'ok');
  const seconds = rounds.map((r) => row(r, 'sandbox', label)?.seconds).filter((x): x is number => x !== undefined);
  if (seconds.length === 0) return undefined;
  return { seconds: seconds.reduce((sum, x) => sum + x, 0) / seconds.length, each: seconds, first: rounds[0]! };
}

/** The rounds' figures, when more than one: " (mean of 1.91, 2.10 s)". */
const roundsText = (each: number[]) => (each.length > 1 ? ` (mean of ${each.map((x) => fmt(x, 2)).join(', ')} s)` : '');

/**
 * The issue's goals (a day ≤ 2 s, a year ≤ 10 s) on each database, on the mean of the rounds, with
 * the first round's jobs, empty merchant's time and GET beside; with a baseline, this checkout's
 * mean against the baseline's.
 */
export function clockGoals(results: ClockDatabaseResult[]): Goal[] {
  const databases = [...new Set(results.filter((r) => !r.baseline).map((r) => r.database))];
  return databases.flatMap((database) =>
    Object.entries(GOALS_S).flatMap(([label, limit]): Goal[] => {
      const name = `Sandbox clock, ${database}: advance a realistic sandbox by ${label} ≤ ${limit} s`;
      const ours = meanAdvance(results, database, false, label);
      if (!ours) {
        const r = results.find((x) => x.database === database && !x.baseline)!;
        return [{ name, measured: `${r.status}: ${r.reason ?? ''}`, met: null }];
      }
      const r = ours.first;
      const empty = row(r, 'empty', label);
      const jobs = row(r, 'sandbox', label)?.jobsRun;
      const goal: Goal = {
        name,
        measured: `${fmt(ours.seconds, 2)} s${roundsText(ours.each)}, ${jobs} jobs (empty merchant ${fmt(empty?.seconds ?? 0, 2)} s; GET ${fmt(r.getMs ?? 0, 1)} ms)`,
        ratio: limit / ours.seconds,
        met: ours.seconds <= limit,
        shown: `${fmt(ours.seconds / limit, 2)}× the limit`,
      };
      const theirs = meanAdvance(results, database, true, label);
      if (!theirs) return [goal];
      const against = {
        name: `Sandbox clock vs the baseline, ${database}, ${label} (reported)`,
        measured: `${fmt(ours.seconds, 2)} s${roundsText(ours.each)} vs ${fmt(theirs.seconds, 2)} s${roundsText(theirs.each)}`,
        shown: `${fmt(ours.seconds / theirs.seconds, 2)}× the baseline's time`,
      };
      return [goal, against];
    }),
  );
}

/** The advances as table cells (header first). */
export function clockCells(results: ClockDatabaseResult[]): string[][] {
  const header = ['database', 'advance', 'sandbox s', 'CPU s: Till · PostgreSQL · receiver', 'jobs run', 'empty merchant s', 'GET round trip ms'];
  const cpu = (a: ClockAdvanceRow | undefined) =>
    [a?.cpu?.till, a?.cpu?.postgres, a?.cpu?.receiver].map((s) => (s === undefined ? 'n/a' : fmt(s, 2))).join(' · ');
  return [
    header,
    ...results.flatMap((r) =>
      r.status !== 'ok'
        ? [[clockTarget(r), `${r.status}: ${r.reason ?? ''}`]]
        : ADVANCES.map(({ label }) => [
            clockTarget(r),
            label,
            fmt(row(r, 'sandbox', label)?.seconds ?? 0, 2),
            cpu(row(r, 'sandbox', label)),
            String(row(r, 'sandbox', label)?.jobsRun ?? ''),
            fmt(row(r, 'empty', label)?.seconds ?? 0, 2),
            fmt(r.getMs ?? 0, 2),
          ]),
    ),
  ];
}

/** What the table shows. */
export function clockNotes(results: ClockDatabaseResult[]): string[] {
  const ok = results.filter((r) => r.status === 'ok');
  if (ok.length === 0) return [];
  const s = SANDBOX.subscriptions;
  return [
    `Sandbox clock: one merchant with ${SANDBOX.payments} card payments (${SANDBOX.refundedInFull} refunded, ${SANDBOX.refundedInPart} in part), ${SANDBOX.holds} holds (${SANDBOX.holdsCaptured} captured), ${SANDBOX.openSessions} open sessions, ${s.monthly + s.yearly + s.monthlyTrial + s.yearlyTrial + s.declining} subscriptions (monthly and yearly, ${s.monthlyTrial + s.yearlyTrial} on trial, ${s.declining} on a card declined at renewal) and two webhook endpoints (one answers 500), advanced by 1, 30 and 365 days in turn; beside it an empty sandbox merchant advanced the same, and the mean of ${GETS} sequential GETs.`,
    ...ok.map(
      (r) =>
        `${clockTarget(r)}${r.baseline ? ` (${r.baseline})` : ''}: seeded in ${fmt(r.seedSeconds ?? 0, 1)} s; the failing endpoint got ${r.failedAttempts} attempts, the other ${r.received} events; load average ${r.load?.map((n) => n.toFixed(2)).join(' ')}.`,
    ),
  ];
}
