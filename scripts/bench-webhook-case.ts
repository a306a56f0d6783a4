// One case of the webhook bench: writes for the warm-up and the measured window, waits for the last
// deliveries, and makes the row (rates, latency, losses, CPU, goals); with the webhook goals and row type.
import type pg from 'pg';
import { type CpuCores, cpuCores, type CpuSample, sampleCpu } from './bench-cpu.js';
import { checkInterrupted, DURATION_S, positiveInt, sleep, WARMUP_S } from './bench-lib.js';
import { type TillProcess } from './bench-till.js';
import { fmt, type LatencySummary, latencySummary } from './bench-format.js';
import type { WebhookReceiver } from './bench-webhook-receiver.js';
import { storedEvents, type WriteTally } from './bench-webhook-writes.js';

/** The issue's goals for webhook delivery on PostgreSQL. */
export const WEBHOOK_GOALS = { eventsPerSec: 500, p99Ms: 1000 };
/** How long to wait, after the writes stop, for every event to be received. */
export const WEBHOOK_DRAIN_S = positiveInt('BENCH_WEBHOOK_DRAIN', 60);

export type WebhookCase = 'API state changes' | 'outbox writes';

/** One measured webhook row of the report. */
export interface WebhookRow {
  /** `webhook-db-floor`: the outbox case delivered by bench-webhook-db-floor.mjs in Till's place (its CPU in the `till` column). */
  target: 'till-postgres' | 'baseline-postgres' | 'webhook-db-floor';
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
  cpuCores?: CpuCores;
  /** Whether each goal was met; `eventsPerSec` is null when fewer events than the goal were written (it cannot be judged). */
  goalsMet?: { eventsPerSec: boolean | null; p99: boolean };
}

/** What a case runs against: Till, the receiver, the database, and the events of earlier cases (left out). */
export interface CaseContext {
  till: TillProcess;
  receiver: WebhookReceiver;
  pool: pg.Pool;
  previous: Set<string>;
}

/** Prints, every second, what the case has written and the receiver received so far; answers how to stop it. */
function printProgress(label: string, start: number, receiver: WebhookReceiver, tally: WriteTally, state: { phase: string }): NodeJS.Timeout {
  const receivedBefore = receiver.receipts.size;
  let lastReceived = receivedBefore;
  return setInterval(() => {
    const received = receiver.receipts.size;
    const second = Math.round((Date.now() - start) / 1000);
    console.log(
      `${label} ${String(second).padStart(3)} s ${state.phase.padEnd(8)} written ${String(tally.written).padStart(6)}  received ${String(received - receivedBefore).padStart(6)} (${fmt(received - lastReceived, 0)}/s)${tally.failed ? `  failed writes ${tally.failed}` : ''}`,
    );
    lastReceived = received;
  }, 1000);
}

/** The case's events, as stored (id → `created`): those of earlier cases left out, and these added to them. */
async function caseEvents({ pool, till, previous }: CaseContext): Promise<Map<string, number>> {
  const all = await storedEvents(pool, till.merchantId);
  const events = new Map([...all].filter(([id]) => !previous.has(id)));
  for (const id of events.keys()) previous.add(id);
  return events;
}

/** Waits (at most WEBHOOK_DRAIN_S) until every event has been received, then a little more for duplicates. */
async function drain(events: Map<string, number>, receiver: WebhookReceiver): Promise<void> {
  const drainDeadline = Date.now() + WEBHOOK_DRAIN_S * 1000;
  const missing = () => [...events.keys()].filter((id) => !receiver.receipts.has(id));
  while (missing().length > 0 && Date.now() < drainDeadline) {
    checkInterrupted();
    await sleep(100);
  }
  await sleep(300); // a duplicate would arrive right after the first copy
}

/** The row of a case: what was written and delivered in the window [t0, t1), the latencies, the losses, the CPU and the goals. */
function caseRow(
  name: WebhookCase,
  events: Map<string, number>,
  receiver: WebhookReceiver,
  tally: WriteTally,
  window: { t0: number; t1: number },
  cpu: CpuSample[],
): WebhookRow {
  const { t0, t1 } = window;
  const inWindow = [...events].filter(([, created]) => created >= t0 && created < t1);
  const latencies = inWindow.flatMap(([id]) => {
    const r = receiver.receipts.get(id);
    return r ? [r.firstAt - r.created] : [];
  });
  const delivered = [...events.keys()].filter((id) => {
    const at = receiver.receipts.get(id)?.firstAt;
    return at !== undefined && at >= t0 && at < t1;
  }).length;
  const [a, b] = cpu;
  const row: WebhookRow = {
    target: 'till-postgres',
    case: name,
    status: 'ok',
    writtenPerSec: inWindow.length / DURATION_S,
    deliveredPerSec: delivered / DURATION_S,
    latencyMs: latencySummary(latencies),
    events: events.size,
    missing: [...events.keys()].filter((id) => !receiver.receipts.has(id)).length,
    duplicates: [...events.keys()].reduce((n, id) => n + Math.max(0, (receiver.receipts.get(id)?.count ?? 0) - 1), 0),
    failedWrites: tally.failed,
    sampleErrors: tally.samples,
    ...(a && b ? { cpuCores: cpuCores(a, b, DURATION_S) } : {}),
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
  return row;
}

/**
 * Runs one webhook case: writes for WARMUP_S + DURATION_S seconds, then waits (at most
 * WEBHOOK_DRAIN_S) until every event the case wrote has been received. Events of earlier cases
 * (`previous`) are left out. Prints progress every second.
 */
export async function measureWebhookCase(
  name: WebhookCase,
  context: CaseContext,
  write: (deadline: number, tally: WriteTally) => Promise<void>,
): Promise<WebhookRow> {
  const { till, receiver } = context;
  const label = `bench: ${'webhooks'.padEnd(13)} ${name.padEnd(20)}`;
  console.log(`${label} ... ${WARMUP_S} s warm-up + ${DURATION_S} s of writes, then up to ${WEBHOOK_DRAIN_S} s for the last deliveries`);
  checkInterrupted();
  const tally: WriteTally = { written: 0, failed: 0, samples: [] };
  const start = Date.now();
  const t0 = start + WARMUP_S * 1000;
  const t1 = t0 + DURATION_S * 1000;
  const cpu: CpuSample[] = [];
  const sample = async () => {
    cpu.push(await sampleCpu(till.pid, receiver.pid));
  };
  const cpuTimers = [setTimeout(() => void sample(), t0 - start), setTimeout(() => void sample(), t1 - start)];
  const state = { phase: 'writing' };
  const progress = printProgress(label, start, receiver, tally, state);
  try {
    await write(t1, tally);
    checkInterrupted();
    state.phase = 'draining';
    // The case's events, as stored: every one must arrive.
    const events = await caseEvents(context);
    await drain(events, receiver);
    clearInterval(progress);
    if (cpu.length < 2) await sample();
    const row = caseRow(name, events, receiver, tally, { t0, t1 }, cpu);
    const l = row.latencyMs!;
    console.log(
      `${label} → ${fmt(row.deliveredPerSec!, 0)} events/s delivered (${fmt(row.writtenPerSec!, 0)}/s written), p50 ${fmt(l.p50, 0)} ms, p99 ${fmt(l.p99, 0)} ms, max ${fmt(l.max, 0)} ms; ${events.size} events, ${row.missing} missing, ${row.duplicates} duplicates${tally.failed ? `, ${tally.failed} failed writes` : ''}`,
    );
    return row;
  } finally {
    clearInterval(progress);
    for (const timer of cpuTimers) clearTimeout(timer);
  }
}
