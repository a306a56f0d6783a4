/**
 * What a goal of `npm run bench` is and how one is judged and printed: against a reference's req/s
 * (ratioGoal) or a limit (thresholdGoal), from the req/s rows (rate, p99). The issue's goals
 * themselves: bench-goals.ts.
 */
import { fmt, type LatencySummary } from './bench-format.js';
import { CONNECTIONS } from './bench-lib.js';

/** The part of a req/s row of bench.ts that the goals read. */
export interface RateRow {
  target: string;
  operation: string;
  status: 'ok' | 'skipped' | 'failed';
  reqPerSec?: number;
  latencyMs?: LatencySummary;
  round?: number;
  connections?: number;
}

export interface Goal {
  /** The goal, e.g. "GET one plan ≥ 3× Prism". */
  name: string;
  /** What was measured, e.g. "4,210 vs 1,402 req/s". */
  measured: string;
  /** The ratio judged (≥ 1 meets a goal), or undefined when there is no goal or no figure. */
  ratio?: number;
  /** `null`: not measured in this run; undefined: a figure reported without a goal. */
  met?: boolean | null;
  /** How the ratio is shown: "3.00×", or "15.2%" for a share. */
  shown?: string;
}

/** The rows of a target and operation at `connections` (BENCH_CONNECTIONS when not given). */
export const measuredAt = (rows: RateRow[], target: string, operation: string, connections?: number) =>
  rows.filter((r) => r.target === target && r.operation === operation && r.status === 'ok' && (r.connections ?? CONNECTIONS) === (connections ?? CONNECTIONS));

/** req/s of a target and operation (the mean over rounds), if measured. */
export function rate(rows: RateRow[], target: string, operation: string, connections?: number): number | undefined {
  const ok = measuredAt(rows, target, operation, connections).filter((r) => r.reqPerSec !== undefined);
  return ok.length ? ok.reduce((sum, r) => sum + r.reqPerSec!, 0) / ok.length : undefined;
}

/** The p99 (ms) of a target and operation (the worst over rounds), if measured. */
export function p99(rows: RateRow[], target: string, operation: string, connections?: number): number | undefined {
  const ok = measuredAt(rows, target, operation, connections).filter((r) => r.latencyMs);
  return ok.length ? Math.max(...ok.map((r) => r.latencyMs!.p99)) : undefined;
}

export const notMeasured = (name: string, what: string): Goal => ({ name, measured: `${what}not measured in this run`, met: null });
export const times = (x: number) => `${fmt(x, 2)}×`;

/** "a ≥ factor × b": Till's req/s over a reference's. */
export function ratioGoal(name: string, ours: number | undefined, theirs: number | undefined, factor: number, reference: string, asShare = false): Goal {
  if (ours === undefined || theirs === undefined) return notMeasured(name, ours === undefined ? '' : `${reference} `);
  const ratio = ours / theirs;
  return {
    name,
    measured: `${fmt(ours, 0)} vs ${fmt(theirs, 0)} req/s`,
    ratio: ratio / factor,
    met: ratio >= factor,
    shown: asShare ? `${fmt(ratio * 100, 1)}%` : times(ratio),
  };
}

/** "value ≥ floor" (or "value ≤ ceiling" with `atMost`). */
export function thresholdGoal(name: string, value: number | undefined, limit: number, unit: string, atMost = false): Goal {
  if (value === undefined) return notMeasured(name, '');
  const ratio = atMost ? limit / value : value / limit;
  const digits = unit === 'req/s' ? 0 : unit === 'ms' ? 1 : 2;
  return {
    name,
    measured: `${fmt(value, digits)} ${unit}`,
    ratio,
    met: atMost ? value <= limit : value >= limit,
    shown: `${times(value / limit)} the ${atMost ? 'limit' : 'goal'}`,
  };
}

/** ✓, ✗, n/a (not measured), or · (a figure without a goal). */
export function mark(goal: Goal): string {
  return goal.met === undefined ? '·' : goal.met === null ? 'n/a' : goal.met ? '✓' : '✗';
}

/** One printed line per goal, e.g. "GET one plan ≥ 3× Prism: 4,210 vs 1,402 req/s = 3.00× ✓". */
export function goalLines(goals: Goal[]): string[] {
  const width = Math.max(...goals.map((g) => g.name.length));
  return goals.map((g) => `${`${g.name}:`.padEnd(width + 1)} ${g.measured}${g.shown ? ` = ${g.shown}` : ''} ${mark(g)}`);
}

/** The goals as cells, for the Markdown table. */
export function goalCells(goals: Goal[]): string[][] {
  return [['goal', 'measured', 'ratio', 'met'], ...goals.map((g) => [g.name, g.measured, g.shown ?? '', mark(g)])];
}
