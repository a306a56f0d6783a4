/**
 * The performance issue's goals, judged on the figures of one `npm run bench` run
 * (scripts/bench.ts). Each goal is printed with ✓ or ✗ and the ratio it was judged by; a goal
 * whose figures were not measured in the run is `n/a`. Missing a goal is reported, never a
 * failure of the run. Some lines report a figure that has no goal (marked `·`).
 */
import type { ColdStartRow } from './bench-cold-start.js';
import { fmt } from './bench-format.js';
import { type Goal, notMeasured, p99, rate, type RateRow, ratioGoal, thresholdGoal, times } from './bench-goal-kinds.js';
import type { PaymentRow } from './bench-payments.js';

export interface GoalInputs {
  rows: RateRow[];
  /** Short commits of BENCH_BASELINE and BENCH_CANDIDATE, when set. */
  revisions?: { baseline?: string | undefined; candidate?: string | undefined };
  payments: PaymentRow[];
  coldStarts: ColdStartRow[];
}

const GET = 'GET /v1/plans/{id}';
const CUSTOMER = 'POST /v1/customers';
const SESSION = 'POST /v1/checkout-sessions';

/** The req/s goals on one PostgreSQL target (1 or 2 processes). */
function postgresGoals(rows: RateRow[], target: string, suffix: string): Goal[] {
  const prism = (op: string) => rate(rows, 'prism', op);
  return [
    ratioGoal(`GET one plan ≥ 3× Prism${suffix}`, rate(rows, target, GET), prism(GET), 3, 'Prism'),
    ratioGoal(`GET one plan ≥ 12% of node:http${suffix}`, rate(rows, target, GET), rate(rows, 'node-http', GET), 0.12, 'node:http', true),
    ratioGoal(`POST create customer ≥ 2× Prism${suffix}`, rate(rows, target, CUSTOMER), prism(CUSTOMER), 2, 'Prism'),
    thresholdGoal(`Create checkout session ≥ 1,500 req/s${suffix}`, rate(rows, target, SESSION), 1500, 'req/s'),
    thresholdGoal(`Create checkout session p99 ≤ 50 ms${suffix}`, p99(rows, target, SESSION), 50, 'ms', true),
  ];
}

/** Issue 37's share of the pg floor per operation (c50): GET, create customer, create checkout session. */
const FLOOR_SHARES: Array<[string, string, number]> = [
  [GET, 'GET one plan', 0.75],
  [CUSTOMER, 'create customer', 0.8],
  [SESSION, 'create checkout session', 0.95],
];
/** A checkout session's p99 at most this many times the pg floor's. */
const SESSION_P99_OF_FLOOR = 1.15;
/** Full card payments per second on PostgreSQL (one process). */
const PAYMENTS_PER_SEC = 150;

/**
 * Issue 37 on PostgreSQL at BENCH_CONNECTIONS: Till (`target`) against the pg floor (the same
 * statements from bare node:http and node-postgres) measured in the same run.
 */
function floorGoals(rows: RateRow[], target: string, suffix: string): Goal[] {
  const goals = FLOOR_SHARES.map(([op, what, share]) =>
    ratioGoal(`PostgreSQL: ${what} ≥ ${share * 100}% of the pg floor${suffix}`, rate(rows, target, op), rate(rows, 'pg-floor', op), share, 'pg floor', true),
  );
  const name = `PostgreSQL: create checkout session p99 ≤ ${SESSION_P99_OF_FLOOR}× the pg floor's${suffix}`;
  const ours = p99(rows, target, SESSION);
  const floor = p99(rows, 'pg-floor', SESSION);
  if (ours === undefined || floor === undefined) return [...goals, notMeasured(name, ours === undefined ? '' : 'pg floor ')];
  const limit = SESSION_P99_OF_FLOOR * floor;
  goals.push({ name, measured: `${fmt(ours, 1)} vs ${fmt(floor, 1)} ms`, ratio: limit / ours, met: ours <= limit, shown: times(ours / floor) });
  return goals;
}

/**
 * The Express floor beside the pg floor and Till, per operation (reported): the pg floor's work
 * through an Express app is the least an Express server pays here, so a share of the pg floor above
 * the Express floor's is out of reach of Till's stack on this machine.
 */
function expressFloorRates(rows: RateRow[]): Goal[] {
  return FLOOR_SHARES.flatMap(([op, what]) => {
    const express = rate(rows, 'express-floor', op);
    const floor = rate(rows, 'pg-floor', op);
    if (express === undefined || floor === undefined) return [];
    const till = rate(rows, 'till-postgres', op);
    const share = (a: number, b: number) => `${fmt((100 * a) / b, 1)}%`;
    return [
      {
        name: `PostgreSQL: Express floor, ${what} (reported)`,
        measured: `${fmt(express, 0)} vs ${fmt(floor, 0)} req/s${till === undefined ? '' : `; Till ${fmt(till, 0)} req/s, ${share(till, express)} of the Express floor`}`,
        shown: `${share(express, floor)} of the pg floor`,
      },
    ];
  });
}

/** One target's payments over its rounds: payments/s, and p50 and p99 of its rounds' mean; undefined when none is ok. */
function paymentsOf(payments: PaymentRow[], target: PaymentRow['target']): { perSec: number; p50: number; p99: number } | undefined {
  const ok = payments.filter((p) => p.target === target && p.status === 'ok' && p.latencyMs);
  if (ok.length === 0) return undefined;
  const mean = (pick: (p: PaymentRow) => number) => ok.reduce((sum, p) => sum + pick(p), 0) / ok.length;
  return { perSec: mean((p) => p.paymentsPerSec!), p50: mean((p) => p.latencyMs!.p50), p99: mean((p) => p.latencyMs!.p99) };
}

/** Full card payments on PostgreSQL, one process (issue 37: ≥ 150/s), the mean of its rounds. */
function paymentGoal(payments: PaymentRow[]): Goal {
  const name = `PostgreSQL: full card payments ≥ ${PAYMENTS_PER_SEC}/s`;
  const first = payments.find((p) => p.target === 'till-postgres');
  if (!first) return notMeasured(name, '');
  const one = paymentsOf(payments, 'till-postgres');
  if (!one) return { name, measured: `${first.status}: ${first.reason ?? ''}`, met: null };
  return {
    ...thresholdGoal(name, one.perSec, PAYMENTS_PER_SEC, 'payments/s'),
    measured: `${fmt(one.perSec, 0)} payments/s, p50 ${fmt(one.p50, 1)} ms, p99 ${fmt(one.p99, 1)} ms`,
  };
}

/** Figures reported without a goal: payments with 2 processes, 2 processes over 1. */
function reportedFigures({ rows, payments }: GoalInputs): Goal[] {
  const figures: Goal[] = [];
  for (const p of payments.filter((p) => p.target === 'till-postgres-2')) {
    const name = `Full card payment, ${p.target === 'till-postgres-2' ? '2 processes' : 'PostgreSQL'} (reported)`;
    figures.push(
      p.status === 'ok'
        ? { name, measured: `${fmt(p.paymentsPerSec!, 0)} payments/s, p50 ${fmt(p.latencyMs!.p50, 1)} ms, p99 ${fmt(p.latencyMs!.p99, 1)} ms` }
        : { name, measured: `${p.status}: ${p.reason ?? ''}` },
    );
  }
  const ours = paymentsOf(payments, 'till-postgres');
  const theirs = paymentsOf(payments, 'baseline-postgres');
  if (ours && theirs)
    figures.push({
      name: 'Full card payments vs the baseline (reported)',
      measured: `${fmt(ours.perSec, 0)} vs ${fmt(theirs.perSec, 0)} payments/s`,
      shown: times(ours.perSec / theirs.perSec),
    });
  for (const op of [GET, CUSTOMER, SESSION]) {
    const one = rate(rows, 'till-postgres', op);
    const two = rate(rows, 'till-postgres-2', op);
    if (one !== undefined && two !== undefined)
      figures.push({ name: `2 processes vs 1, ${op} (reported)`, measured: `${fmt(two, 0)} vs ${fmt(one, 0)} req/s`, shown: times(two / one) });
  }
  return figures;
}

// --- PGlite, the embedded default (issue 37) -------------------------------------------------
/** Connections of PGlite's create-session goal (an extra row when BENCH_CONNECTIONS differs). */
export const PGLITE_SESSION_CONNECTIONS = 10;

/** PGlite: sessions at 10 connections, GET one plan, a first `npm start` on a fresh data dir and a restart. */
function pgliteGoals(rows: RateRow[], coldStarts: ColdStartRow[]): Goal[] {
  const cold = coldStarts.find((c) => c.database === 'pglite' && c.status === 'ok');
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
  const c = PGLITE_SESSION_CONNECTIONS;
  return [
    thresholdGoal(`PGlite: create checkout session ≥ 500 req/s at c${c}`, rate(rows, 'till-pglite', SESSION, c), 500, 'req/s'),
    thresholdGoal(`PGlite: create checkout session p99 ≤ 100 ms at c${c}`, p99(rows, 'till-pglite', SESSION, c), 100, 'ms', true),
    thresholdGoal('PGlite: GET one plan ≥ 3,000 req/s', rate(rows, 'till-pglite', GET), 3000, 'req/s'),
    thresholdGoal('Cold npm start to first 200 ≤ 2.5 s, PGlite (fresh data dir)', seconds(cold?.medianMs), 2.5, 's', true),
    thresholdGoal('Restart npm start to first 200 ≤ 1 s, PGlite', seconds(cold?.restartMedianMs), 1, 's', true),
    ...pgliteFloor(coldStarts),
    ...pgliteFloorRates(rows),
  ];
}

/** Till on PGlite beside the PGlite floor (node:http and PGlite, Till's statements) for each req/s goal, reported. */
function pgliteFloorRates(rows: RateRow[]): Goal[] {
  const c = PGLITE_SESSION_CONNECTIONS;
  const measured: Array<[string, string, number | undefined]> = [
    [GET, 'GET one plan', undefined],
    [CUSTOMER, 'create customer', undefined],
    [SESSION, `create checkout session at c${c}`, c],
  ];
  return measured.flatMap(([op, what, connections]) => {
    const till = rate(rows, 'till-pglite', op, connections);
    const floor = rate(rows, 'pglite-floor', op, connections);
    if (floor === undefined) return [];
    const p99s = `p99 ${fmt(p99(rows, 'pglite-floor', op, connections)!, 1)} ms`;
    return [
      {
        name: `PGlite floor, ${what} (reported)`,
        measured: till === undefined ? `${fmt(floor, 0)} req/s, ${p99s}` : `Till ${fmt(till, 0)} vs ${fmt(floor, 0)} req/s, floor ${p99s}`,
        ...(till === undefined ? {} : { shown: `${fmt((100 * till) / floor, 0)}% of the floor` }),
      },
    ];
  });
}

/**
 * The PGlite floor's starts (node, PGlite and one statement behind node:http), reported beside the
 * start goals: started by node, and started by npm as `npm start` starts Till (the goals time
 * `npm start`, so npm's own time is in them).
 */
function pgliteFloor(coldStarts: ColdStartRow[]): Goal[] {
  const s = (ms: number) => `${fmt(ms / 1000, 2)} s`;
  const lines = [
    { database: 'pglite-floor', name: 'PGlite floor, node + PGlite to first 200 (reported)' },
    { database: 'pglite-npm-floor', name: 'PGlite floor started by npm run, npm + node + PGlite to first 200 (reported)' },
  ];
  return lines.flatMap(({ database, name }) => {
    const floor = coldStarts.find((c) => c.database === database && c.status === 'ok');
    return floor ? [{ name, measured: `fresh data dir ${s(floor.medianMs!)}, restart ${s(floor.restartMedianMs!)}` }] : [];
  });
}

/**
 * What request logs and metrics cost (issue 34: ≤ 5% of throughput): till-postgres-metrics (request
 * logs on, as by default, and metrics on) against till-postgres-bare (TILL_REQUEST_LOGS=off, no
 * metrics), each operation. Only when the run measured both.
 */
function observabilityCost(rows: RateRow[]): Goal[] {
  const measured = (target: string) => rows.some((r) => r.target === target && r.status === 'ok');
  const goals = measured('till-postgres-bare')
    ? [GET, CUSTOMER, SESSION].map((op) =>
        ratioGoal(`Request logs + metrics cost ≤ 5%, ${op}`, rate(rows, 'till-postgres-metrics', op), rate(rows, 'till-postgres-bare', op), 0.95, 'bare', true),
      )
    : [];
  // The reference: the same rows written by the pg floor (no Express, no redaction, no metrics).
  if (measured('pg-floor-logged'))
    for (const op of [GET, CUSTOMER, SESSION]) {
      const logged = rate(rows, 'pg-floor-logged', op);
      const floor = rate(rows, 'pg-floor', op);
      if (logged === undefined || floor === undefined) continue;
      // What a logged request costs the machine beyond an unlogged one (µs of wall time at full load),
      // beside Till's: the floor's is the least a request log row costs here.
      const perRequest = (on: number | undefined, off: number | undefined) => (on && off ? `${fmt(1e6 / on - 1e6 / off, 1)} µs` : 'n/a');
      goals.push({
        name: `Request logs at the pg floor, ${op} (reported)`,
        measured: `${fmt(logged, 0)} vs ${fmt(floor, 0)} req/s; a logged request costs ${perRequest(logged, floor)} more (Till: ${perRequest(rate(rows, 'till-postgres-metrics', op), rate(rows, 'till-postgres-bare', op))})`,
        shown: `${fmt((100 * logged) / floor, 1)}%`,
      });
    }
  return goals;
}

/**
 * What tracing costs while off (issue 34: ≤ 1%): Till at the commit that added tracing
 * (BENCH_CANDIDATE=e052eca, the SDK never loaded without OTEL_EXPORTER_OTLP_ENDPOINT) against its
 * parent (BENCH_BASELINE=5e27fa0), on PostgreSQL, mean req/s over the rounds. Only in such a run.
 */
const TRACING_COMMIT = 'e052eca';
const BEFORE_TRACING = '5e27fa0';
function tracingOffCost(rows: RateRow[], revisions: GoalInputs['revisions']): Goal[] {
  if (!revisions?.candidate?.startsWith(TRACING_COMMIT) || !revisions.baseline?.startsWith(BEFORE_TRACING)) return [];
  return [GET, CUSTOMER, SESSION].map((op) =>
    ratioGoal(`Tracing off costs ≤ 1%, ${op}`, rate(rows, 'till-postgres', op), rate(rows, 'baseline-postgres', op), 0.99, 'without tracing', true),
  );
}

/** Every goal of the issue, judged on this run's figures, then the figures reported without a goal. */
export function evaluateGoals(inputs: GoalInputs): Goal[] {
  const { rows, coldStarts } = inputs;
  const postgresCold = coldStarts.find((c) => c.database === 'postgres');
  const two = rows.some((r) => r.target === 'till-postgres-2' && r.status === 'ok');
  return [
    ...postgresGoals(rows, 'till-postgres', ''),
    thresholdGoal('PGlite: create customer ≥ 500 req/s', rate(rows, 'till-pglite', CUSTOMER), 500, 'req/s'),
    ...pgliteGoals(rows, coldStarts),
    thresholdGoal('Cold npm start to first 200 ≤ 3 s, PostgreSQL', postgresCold?.status === 'ok' ? postgresCold.medianMs! / 1000 : undefined, 3, 's', true),
    ...(two ? postgresGoals(rows, 'till-postgres-2', ', 2 processes') : []),
    ...floorGoals(rows, 'till-postgres', ''),
    ...(rows.some((r) => r.target === 'till-postgres-metrics' && r.status === 'ok') ? floorGoals(rows, 'till-postgres-metrics', ', logs + metrics') : []),
    ...expressFloorRates(rows),
    paymentGoal(inputs.payments),
    ...observabilityCost(rows),
    ...tracingOffCost(rows, inputs.revisions),
    ...reportedFigures(inputs),
  ];
}
