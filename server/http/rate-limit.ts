import type { RequestHandler, Response } from 'express';
import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { TillDatabase } from '../db/database.js';
import type { RatePlan } from '../domain/merchants/merchant.tables.js';
import { AppError } from '../shared/errors.js';

/** Requests per second and burst, per plan (checkout-billing-api.md, Limits). */
export const RATE_PLANS: Record<RatePlan, { perSecond: number; burst: number }> = {
  standard: { perSecond: 100, burst: 200 },
  enterprise: { perSecond: 500, burst: 1000 },
};

/**
 * Public look-ups by a secret code (`x-public-lookup` in the contract, e.g. `getByReference`):
 * besides the caller's bucket, each client address may make 20 at once, then 5 a second.
 */
export const PUBLIC_LOOKUP = { perSecond: 5, burst: 20 };

/** What a bucket is limited by: a merchant's rate plan, or the public look-ups of a client address. */
export type Bucket = RatePlan | 'public-lookup';

const RATES: Record<Bucket, { perSecond: number; burst: number }> = { ...RATE_PLANS, 'public-lookup': PUBLIC_LOOKUP };

/** A lease of tokens is this fraction of a plan's rate per second (1/20: 5 tokens for 100/s). */
const LEASE_FRACTION = 20;
/** Keys whose lease a process remembers at most. */
const MAX_LEASES = 10_000;

/** Seconds over which the burst reserve (burst - rate) refills. */
const BURST_REFILL_SECONDS = 10;

/**
 * Per-key limits on rate-limiter-flexible's PostgreSQL store, shared by every process on the
 * database. Each plan is a BurstyRateLimiter: `perSecond` points a second, and when those are
 * spent a reserve of `burst - perSecond` points that refills every 10 seconds, so a key can send
 * `burst` requests in one second and `perSecond` a second after that.
 */
export class RateLimits {
  private readonly limiters = new Map<Bucket, BurstyRateLimiter>();
  /** Tokens this process took from the store and has not spent yet, per plan and key. */
  private readonly leases = new Map<string, { tokens: number; until: number; remaining: number }>();
  /** The lease being taken, per plan and key: concurrent requests wait for it rather than each taking one. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly database: TillDatabase,
    private readonly scale = 1,
  ) {}

  private storeClient() {
    return storeClientOf(this.database);
  }

  /** The limiter of a plan (or of public look-ups), built once. */
  limiter(plan: Bucket): BurstyRateLimiter {
    let limiter = this.limiters.get(plan);
    if (!limiter) {
      const { perSecond, burst } = RATES[plan];
      const common = { ...this.storeClient(), tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false };
      limiter = new BurstyRateLimiter(
        new RateLimiterPostgres({ ...common, keyPrefix: `rl_${plan}`, points: perSecond * this.scale, duration: 1 }),
        new RateLimiterPostgres({ ...common, keyPrefix: `rlb_${plan}`, points: (burst - perSecond) * this.scale, duration: BURST_REFILL_SECONDS }),
      );
      this.limiters.set(plan, limiter);
    }
    return limiter;
  }

  /**
   * Spends one token of `key`'s bucket. Tokens are taken from the shared store in leases of
   * `leaseSize` (a twentieth of the plan's rate), so most requests cost no database write; a lease
   * lasts only as long as the window it was taken in. Near the limit (fewer than two leases left)
   * tokens are taken one at a time, so the count is exact there. What several processes can lose
   * is the unspent rest of their last lease: a key is never let through more than its limit, and
   * at most `leaseSize - 1` requests per process are refused early.
   */
  async consume(plan: Bucket, key: string): Promise<RateLimiterRes> {
    const id = `${plan}:${key}`;
    for (;;) {
      const lease = this.leases.get(id);
      const now = Date.now();
      if (lease && lease.tokens > 0 && lease.until > now) {
        lease.tokens--;
        return new RateLimiterRes(lease.remaining + lease.tokens, lease.until - now, 0, false);
      }
      const pending = this.pending.get(id);
      if (pending) {
        await pending;
        continue;
      }
      const size = lease && lease.remaining >= 2 * this.leaseSize(plan) ? this.leaseSize(plan) : lease ? 1 : this.leaseSize(plan);
      const taking = this.limiter(plan)
        .consume(key, size)
        .then(
          (res) => this.keepLease(id, { tokens: size, until: now + res.msBeforeNext, remaining: res.remainingPoints }),
          (err: unknown) => {
            // Refused (or failed): the next request asks the store again, one token at a time.
            this.keepLease(id, { tokens: 0, until: 0, remaining: 0 });
            throw err;
          },
        );
      this.pending.set(id, taking);
      try {
        await taking;
      } finally {
        this.pending.delete(id);
      }
    }
  }

  /** Keeps a key's lease, most recent last; past MAX_LEASES keys the least recently leased is dropped (sessions and addresses come and go). */
  private keepLease(id: string, lease: { tokens: number; until: number; remaining: number }): void {
    this.leases.delete(id);
    this.leases.set(id, lease);
    if (this.leases.size > MAX_LEASES) this.leases.delete(this.leases.keys().next().value!);
  }

  private leaseSize(plan: Bucket): number {
    return Math.max(1, Math.ceil((RATES[plan].perSecond * this.scale) / LEASE_FRACTION));
  }

  /** Numbers for the headers, from the limiter's answer. */
  headers(plan: Bucket, res: RateLimiterRes | undefined): { limit: number; remaining: number; reset: number } {
    const { perSecond } = RATES[plan];
    return {
      limit: perSecond * this.scale,
      remaining: Math.max(0, res?.remainingPoints ?? perSecond * this.scale),
      reset: Math.max(0, Math.ceil((res?.msBeforeNext ?? 0) / 1000)),
    };
  }
}

function setHeaders(res: Response, h: { limit: number; remaining: number; reset: number }) {
  res.setHeader('X-RateLimit-Limit', String(h.limit));
  res.setHeader('X-RateLimit-Remaining', String(h.remaining));
  res.setHeader('X-RateLimit-Reset', String(h.reset));
}

/** rate-limiter-flexible's PostgreSQL store on the app's database (a pool, or PGlite's one connection). */
function storeClientOf(database: TillDatabase) {
  if (database.pool) return { storeClient: database.pool, storeType: 'pool' as const };
  // PGlite: the store only needs `query({text, values})` answering `{rows, rowCount}`.
  const sql = database.sql;
  return { storeClient: { query: (q: { text: string; values?: unknown[] }) => sql.query(q.text, q.values) }, storeType: 'client' as const };
}

/**
 * A limit on attempts (the dashboard's sign-in): `points` per `durationSeconds` per key (a client
 * address), in the same shared store as the API's limits, so every process counts together.
 */
export function attemptLimiter(database: TillDatabase, keyPrefix: string, points: number, durationSeconds: number): RateLimiterPostgres {
  return new RateLimiterPostgres({
    ...storeClientOf(database),
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix,
    points,
    duration: durationSeconds,
  });
}

/** Deletes the limiters' rows whose window has passed (the store's own timer is off: pg-boss runs this). */
export async function deleteExpiredRateLimits(database: TillDatabase): Promise<void> {
  await database.sql.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now()]);
}

/**
 * Spends one point of `key`'s bucket and sets the three headers from it; over the limit it also
 * sets `Retry-After` and answers the 429 `rate_limit_exceeded` to pass on.
 */
async function spend(limits: RateLimits, res: Response, plan: Bucket, key: string): Promise<AppError | undefined> {
  try {
    setHeaders(res, limits.headers(plan, await limits.consume(plan, key)));
    return undefined;
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const h = limits.headers(plan, err);
    setHeaders(res, { ...h, remaining: 0 });
    res.setHeader('Retry-After', String(Math.max(1, h.reset)));
    return new AppError('rate_limit_exceeded', { message: `Too many requests. Retry after ${Math.max(1, h.reset)} second(s), then back off exponentially.` });
  }
}

/**
 * Spends one point of the caller's bucket: the API key, or for public and client-secret calls
 * the session or the client address. Sets the three headers on every response; over the limit
 * it answers 429 `rate_limit_exceeded` with `Retry-After`. A public look-up by a secret code
 * (`x-public-lookup`) also spends one of the client address's look-ups (PUBLIC_LOOKUP), and its
 * headers are then that bucket's.
 */
export function rateLimit(limits: RateLimits): RequestHandler {
  return async (req, res, next) => {
    const auth = req.till.auth!;
    const address = `ip:${req.ip ?? 'unknown'}`;
    const key = auth.keyId !== null ? `key:${auth.keyId}` : auth.sessionId ? `session:${auth.sessionId}` : address;
    const lookup = req.till.route?.operation['x-public-lookup'] === true;
    try {
      const refused = (await spend(limits, res, auth.ratePlan, key)) ?? (lookup ? await spend(limits, res, 'public-lookup', address) : undefined);
      next(refused);
    } catch (err) {
      next(err);
    }
  };
}

/** Headers for answers given before a caller is known (unknown routes, bad keys): the plan's full bucket. */
export function setDefaultRateLimitHeaders(res: Response, limits: RateLimits): void {
  if (!res.getHeader('X-RateLimit-Limit')) setHeaders(res, limits.headers('standard', undefined));
}
