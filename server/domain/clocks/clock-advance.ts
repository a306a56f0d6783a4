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

const sandboxScope = (merchantId: number, offsetSeconds: number): DueScope => ({ kind: 'sandbox', merchantId, offsetSeconds });

/** Runs every kind of due work once at the scope's time, in order; each kind until nothing more is due. */
async function runDue(db: Kysely<Database>, base: Clock, work: DueWork[], scope: DueScope): Promise<number> {
  let total = 0;
  for (const w of work) {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await w.run(db, base, scope);
      total += n;
      if (n === 0) break;
    }
  }
  return total;
}

/** The earliest instant after `after` at which anything of the scope falls due. */
async function nextDue(db: Kysely<Database>, work: DueWork[], scope: DueScope, after: Date): Promise<Date | null> {
  const times = (await Promise.all(work.map((w) => w.next(db, scope, after)))).filter((t): t is Date => t !== null);
  return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
}

/**
 * `POST /v1/test-helpers/clock/advance`: moves one merchant's test-mode clock forward by `seconds`
 * and runs everything that falls due on the way, in time order. The clock stops at each instant
 * something is due (a session's expiry, a hold's lapse, a settlement, a wallet refund, a webhook
 * retry), runs all due work there in the order of `work`, and moves on, so a retry schedule or a
 * hold lapse happens at its exact times and work that one step creates (a retry scheduled by a
 * failed attempt) runs in a later step of the same call. It answers when all of it has run. Live
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

/** Moves the clock from `from` to `target` seconds ahead, stopping wherever something falls due; answers how much work ran. */
async function stepTo(
  db: Kysely<Database>,
  base: Clock,
  work: DueWork[],
  merchantId: number,
  from: number,
  target: number,
  move: (offset: number) => Promise<void>,
): Promise<number> {
  let offset = from;
  let jobsRun = 0;
  for (let step = 0; step < MAX_STEPS; step++) {
    jobsRun += await runDue(db, base, work, sandboxScope(merchantId, offset));
    const next = await nextDue(db, work, sandboxScope(merchantId, offset), new SandboxClock(base, offset).now());
    if (next === null) break;
    const nextOffset = Math.max(offset + 1, Math.ceil((next.getTime() - base.now().getTime()) / 1000));
    if (nextOffset >= target) break;
    offset = nextOffset;
    await move(offset);
  }
  await move(target);
  return jobsRun + (await runDue(db, base, work, sandboxScope(merchantId, target)));
}
