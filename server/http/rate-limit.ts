import type { RequestHandler, Response } from 'express';
import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { TillDatabase } from '../db/database.js';
import type { RatePlan } from '../db/tables/merchants.js';
import { AppError } from '../shared/errors.js';

/** Requests per second and burst, per plan (checkout-billing-api.md, Limits). */
export const RATE_PLANS: Record<RatePlan, { perSecond: number; burst: number }> = {
  standard: { perSecond: 100, burst: 200 },
  enterprise: { perSecond: 500, burst: 1000 },
};

/** Seconds over which the burst reserve (burst - rate) refills. */
const BURST_REFILL_SECONDS = 10;

/**
 * Per-key limits on rate-limiter-flexible's PostgreSQL store, shared by every process on the
 * database. Each plan is a BurstyRateLimiter: `perSecond` points a second, and when those are
 * spent a reserve of `burst - perSecond` points that refills every 10 seconds, so a key can send
 * `burst` requests in one second and `perSecond` a second after that.
 */
export class RateLimits {
  private readonly limiters = new Map<string, BurstyRateLimiter>();

  constructor(
    private readonly database: TillDatabase,
    private readonly scale = 1,
  ) {}

  private storeClient() {
    if (this.database.pool) return { storeClient: this.database.pool, storeType: 'pool' as const };
    // PGlite: the store only needs `query({text, values})` answering `{rows, rowCount}`.
    const sql = this.database.sql;
    return { storeClient: { query: (q: { text: string; values?: unknown[] }) => sql.query(q.text, q.values) }, storeType: 'client' as const };
  }

  /** The limiter of a plan, built once. */
  limiter(plan: RatePlan): BurstyRateLimiter {
    let limiter = this.limiters.get(plan);
    if (!limiter) {
      const { perSecond, burst } = RATE_PLANS[plan];
      const common = { ...this.storeClient(), tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false };
      limiter = new BurstyRateLimiter(
        new RateLimiterPostgres({ ...common, keyPrefix: `rl_${plan}`, points: perSecond * this.scale, duration: 1 }),
        new RateLimiterPostgres({ ...common, keyPrefix: `rlb_${plan}`, points: (burst - perSecond) * this.scale, duration: BURST_REFILL_SECONDS }),
      );
      this.limiters.set(plan, limiter);
    }
    return limiter;
  }

  /** Numbers for the headers, from the limiter's answer. */
  headers(plan: RatePlan, res: RateLimiterRes | undefined): { limit: number; remaining: number; reset: number } {
    const { perSecond } = RATE_PLANS[plan];
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

/**
 * Spends one point of the caller's bucket: the API key, or for public and client-secret calls
 * the session or the client address. Sets the three headers on every response; over the limit
 * it answers 429 `rate_limit_exceeded` with `Retry-After`.
 */
/** Deletes the limiters' rows whose window has passed (the store's own timer is off: pg-boss runs this). */
export async function deleteExpiredRateLimits(database: TillDatabase): Promise<void> {
  await database.sql.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now()]);
}

export function rateLimit(limits: RateLimits): RequestHandler {
  return async (req, res, next) => {
    const auth = req.till.auth!;
    const plan = auth.ratePlan;
    const key = auth.keyId !== null ? `key:${auth.keyId}` : auth.sessionId ? `session:${auth.sessionId}` : `ip:${req.ip ?? 'unknown'}`;
    try {
      const result = await limits.limiter(plan).consume(key, 1);
      setHeaders(res, limits.headers(plan, result));
      next();
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const h = limits.headers(plan, err);
        setHeaders(res, { ...h, remaining: 0 });
        res.setHeader('Retry-After', String(Math.max(1, h.reset)));
        next(new AppError('rate_limit_exceeded', { message: `Too many requests. Retry after ${Math.max(1, h.reset)} second(s), then back off exponentially.` }));
        return;
      }
      next(err);
    }
  };
}

/** Headers for answers given before a caller is known (unknown routes, bad keys): the plan's full bucket. */
export function setDefaultRateLimitHeaders(res: Response, limits: RateLimits): void {
  if (!res.getHeader('X-RateLimit-Limit')) setHeaders(res, limits.headers('standard', undefined));
}
