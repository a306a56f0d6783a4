// Advancing a merchant's test-mode clock, and running on the way everything that falls due.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { baseClock, type Clock, SandboxClock } from '../../shared/clock.js';
import type { DueScope } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { holdClock, moveClock, releaseClock } from './tenant-clock.js';
import type { DueWork } from './due-work-kind.js';

/** How long one advance holds the merchant's clock; renewed at every step, it lapses if the process dies. */
const HOLD_MS = 15 * 60_000;
/**
 * At most this many intermediate stops per advance. Past it, whatever is still due runs at the
 * target time (in order, nothing skipped, only its timestamps later than exact).
 */
const MAX_STEPS = 5_000;
/** How far ahead of the base clock a test clock may run in all: 100 years. */
export const MAX_OFFSET_SECONDS = 100 * 365 * 86_400;
/** A run of one kind handles at most a batch; it is repeated until nothing more is due, up to this many times. */
const MAX_BATCHES = 200;

/** A test clock after an advance. */
export interface AdvancedClock {
  now: Date;
  advancedBySeconds: number;
  /** How many items of due work ran on the way. */
  jobsRun: number;
}

const sandboxScope = (merchantId: number, offsetSeconds: number, since?: Date): DueScope =>
  since === undefined ? { kind: 'sandbox', merchantId, offsetSeconds } : { kind: 'sandbox', merchantId, offsetSeconds, since };

/** Runs one kind at the scope's time until nothing more of it is due; answers how many items it handled. */
async function runKind(db: Kysely<Database>, base: Clock, w: DueWork, scope: DueScope): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await w.run(db, base, scope);
    total += n;
    if (n === 0 || w.drains) break;
  }
  return total;
}

/** What one stop ran: how many items, and which kinds' next times it may have moved. */
interface StopResult {
  jobsRun: number;
  /** Kinds whose next time must be asked again: those that ran, or every kind after work that others read. */
  stale: number[];
  /** Whether a kind did work that others read: every kind runs at the next stop, as it would have at every stop. */
  shared: boolean;
}

/**
 * Runs, at the scope's time and in the order of `work`, the kinds `due` names, every kind that
 * catches up (it makes what fell due since the previous stop), and every kind after one that did
 * work others read (events, payments, balances: the kinds after it see it at the same instant). A
 * kind left out has nothing due: its next time, asked when nothing had changed since, is later.
 */
async function runStop(db: Kysely<Database>, base: Clock, work: DueWork[], scope: DueScope, due: (i: number) => boolean): Promise<StopResult> {
  let jobsRun = 0;
  let shared = false;
  const ran: number[] = [];
  for (const [i, w] of work.entries()) {
    const expected = due(i) || w.catchesUp === true;
    if (!shared && !expected) continue;
    const n = await runKind(db, base, w, scope);
    jobsRun += n;
    ran.push(i);
    // A kind due here that found nothing was done by another process (the job queue runs this scope
    // too): what that changed is unknown here, so it counts as work others read.
    if ((n > 0 || expected) && !w.selfContained) shared = true;
  }
  const asked = (i: number) => !work[i]!.catchesUp;
  return { jobsRun, shared, stale: (shared ? work.map((_, i) => i) : ran).filter(asked) };
}

/**
 * `POST /v1/test-helpers/clock/advance`: moves one merchant's test-mode clock forward by `seconds`
 * and runs everything that falls due on the way, in time order. The clock stops at each instant
 * something is due (a hold's lapse, a settlement, a wallet refund, a renewal), runs all due work
 * there in the order of `work`, and moves on, so a hold lapse happens at its exact time. Work that
 * catches up (webhook attempts) makes no stops: at each stop it makes, each at the time it fell due,
 * what fell due since the previous one, retries it schedules included, so a retry schedule keeps
 * its exact times. It answers when all of it has run. Live
 * mode and other merchants are untouched; one advance per merchant at a time (409 otherwise).
 */
export async function advanceSandboxClock(db: Kysely<Database>, clock: Clock, merchantId: number, seconds: number, work: DueWork[]): Promise<AdvancedClock> {
  const base = baseClock(clock);
  const holdUntil = () => new Date(base.now().getTime() + HOLD_MS);
  const held = await holdClock(db, merchantId, base.now(), holdUntil());
  if (held === undefined) throw new AppError('invalid_state', { message: 'The test clock is already being advanced. Retry when that call has answered.' });
  try {
    const target = held + seconds;
    if (target > MAX_OFFSET_SECONDS) {
      throw new AppError('parameter_invalid', {
        param: 'seconds',
        message: `The test clock can run at most 100 years ahead; it is ${Math.floor(held / 86_400)} days ahead now, so it can advance at most ${MAX_OFFSET_SECONDS - held} more seconds.`,
      });
    }
    const move = (offset: number) => moveClock(db, merchantId, offset, base.now(), holdUntil());
    const jobsRun = await stepTo(db, base, work, merchantId, held, target, move);
    return { now: new SandboxClock(base, target).now(), advancedBySeconds: seconds, jobsRun };
  } finally {
    await releaseClock(db, merchantId);
  }
}

/**
 * Moves the clock from `from` to `target` seconds ahead, stopping wherever something falls due;
 * answers how much work ran. Every kind runs at the first and the last instant; in between, a stop
 * runs the kinds due there, those that catch up, and what follows work others read, and asks again
 * only the next times that work may have moved (never those of kinds that catch up).
 */
async function stepTo(
  db: Kysely<Database>,
  base: Clock,
  work: DueWork[],
  merchantId: number,
  from: number,
  target: number,
  move: (offset: number) => Promise<void>,
): Promise<number> {
  const next: Array<Date | null> = work.map(() => null);
  // Asked after the stop's time, not the time it is when asked: wall time ran on while the stop's
  // work ran, and an item that fell due meanwhile was not run by the kinds that ran before it.
  const ask = async (kinds: number[], offset: number, after: Date) => {
    const times = await Promise.all(kinds.map((i) => work[i]!.next(db, sandboxScope(merchantId, offset), after)));
    kinds.forEach((i, k) => (next[i] = times[k]!));
  };
  let offset = from;
  // The clock's time at the previous stop: what catches up makes what fell due since.
  let since = new SandboxClock(base, offset).now();
  let stop = await runStop(db, base, work, sandboxScope(merchantId, offset, since), () => true);
  let jobsRun = stop.jobsRun;
  for (let step = 0; step < MAX_STEPS; step++) {
    await ask(stop.stale, offset, since);
    const times = next.filter((t): t is Date => t !== null).map((t) => t.getTime());
    if (times.length === 0) break;
    const nextOffset = Math.max(offset + 1, Math.ceil((Math.min(...times) - base.now().getTime()) / 1000));
    if (nextOffset >= target) break;
    offset = nextOffset;
    await move(offset);
    const now = new SandboxClock(base, offset).now();
    const all = stop.shared;
    stop = await runStop(db, base, work, sandboxScope(merchantId, offset, since), (i) => all || (next[i]?.getTime() ?? Infinity) <= now.getTime());
    since = now;
    jobsRun += stop.jobsRun;
  }
  await move(target);
  return jobsRun + (await runStop(db, base, work, sandboxScope(merchantId, target, since), () => true)).jobsRun;
}
