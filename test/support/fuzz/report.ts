// Tallies the fuzz run: requests, answers per status, per operation and per case kind, the 501s
// of operations this server does not implement (counted apart), and every failing case with
// what is needed to send it again. Written to out/fuzz/report-<interface>.json and summed up on the console.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { FuzzCase } from './cases.js';
import type { FuzzOperation } from './contract.js';

const SLOW_MS = Number(process.env.FUZZ_SLOW_MS ?? 5_000);

export interface Failure {
  operationId: string;
  seed: number;
  index: number;
  kind: string;
  auth: string;
  request: { method: string; path: string; headers: Record<string, string>; body: string | undefined };
  status: number;
  problems: string[];
  answer: string;
  /** What the server logged about it (a 500's error). */
  serverLog: string | undefined;
}

export class FuzzReport {
  requests = 0;
  readonly byStatus: Record<string, number> = {};
  readonly byOperation: Record<string, { implemented: boolean; requests: number; byStatus: Record<string, number> }> = {};
  readonly byKind: Record<string, number> = {};
  /** 501s of operations without a handler (the Commerce interface, some billing operations). */
  notImplemented501 = 0;
  /** 501s of operations whose contract documents 501 as their only answer (createClientToken). */
  documented501 = 0;
  readonly failures: Failure[] = [];
  /** Answers slower than SLOW_MS: not a failure, but worth a look. */
  readonly slow: { operationId: string; index: number; kind: string; status: number; ms: number }[] = [];
  private readonly started = Date.now();

  constructor(
    readonly seed: number,
    readonly runsPerOperation: number,
    readonly database: string,
  ) {}

  record(op: FuzzOperation, c: FuzzCase, status: number, ms: number, index: number): void {
    this.requests++;
    if (ms > SLOW_MS) this.slow.push({ operationId: op.operationId, index, kind: c.kind, status, ms });
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    const entry = (this.byOperation[op.operationId] ??= { implemented: op.implemented, requests: 0, byStatus: {} });
    entry.requests++;
    entry.byStatus[status] = (entry.byStatus[status] ?? 0) + 1;
    const kind = c.kind.replace(/^path \S+ broken$/, 'path value broken');
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    if (status === 501 && !op.implemented) this.notImplemented501++;
    if (status === 501 && op.implemented && op.documentedNotImplemented) this.documented501++;
  }

  fail(failure: Failure): void {
    this.failures.push(failure);
  }

  write(file: string): Record<string, unknown> {
    const summary = {
      seed: this.seed,
      runsPerOperation: this.runsPerOperation,
      database: this.database,
      seconds: Math.round((Date.now() - this.started) / 100) / 10,
      requests: this.requests,
      byStatus: this.byStatus,
      notImplemented501: this.notImplemented501,
      documented501: this.documented501,
      notImplementedOperations: Object.entries(this.byOperation)
        .filter(([, o]) => !o.implemented)
        .map(([id]) => id),
      failures: this.failures.length,
      slowAnswers: this.slow.length,
      byKind: this.byKind,
    };
    mkdirSync(file.replace(/\/[^/]+$/, ''), { recursive: true });
    writeFileSync(file, JSON.stringify({ ...summary, byOperation: this.byOperation, failureCases: this.failures, slow: this.slow }, null, 2));
    const { notImplementedOperations, byKind: _kinds, ...short } = summary;
    console.log(`fuzz: ${JSON.stringify({ ...short, notImplementedOperations: notImplementedOperations.length })} (details in ${file})`);
    return summary;
  }
}

/** Enough of a body to read in a report (a 1 MB body is cut). */
export function preview(body: Buffer | undefined): string | undefined {
  if (body === undefined) return undefined;
  const text = body.toString('utf8');
  return text.length > 600 ? `${text.slice(0, 600)}... (${body.length} bytes)` : text;
}
