import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import type { Tenant } from '../shared/tenant.js';
import { type SandboxOffsets, tenantClock } from '../domain/clocks/tenant-clock.js';
import {
  claimKey,
  deleteKeysBefore,
  findKey,
  markKeyCommitted,
  reclaimExpiredKey,
  releaseKey,
  storeResponse,
  takeOverStaleKey,
} from './idempotency.repository.js';

/** How long a key is kept (then a job deletes it). */
export const IDEMPOTENCY_RETENTION_HOURS = 24;
/** An in-flight claim older than this is taken to belong to a process that died; a retry may take it over. */
const STALE_CLAIM_SECONDS = 60;
/** Response headers kept with a stored response and replayed. */
const KEPT_HEADERS = ['content-type', 'location'];

/** JSON with object keys sorted, so equal parameters hash equally whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `Idempotency-Key` on POST, per merchant, mode and key. The first request claims the key with
 * an INSERT that only one process can win; its response (status, headers, body) is stored before
 * it is sent, and repeats get exactly those bytes back without running again. Different
 * parameters under the same key answer 409 `idempotency_key_reused`; a repeat while the first
 * still runs answers 409 `idempotency_request_in_progress` (retryable). A 5xx answer is not
 * stored: nothing was done (the transaction rolled back), so a retry runs again; so does a 502,
 * after which at most the refused attempt was recorded. The request's
 * transactions mark the key `committed` as they commit; a key that committed but whose answer
 * could not be stored is never released or taken over: a retry answers 409
 * `idempotency_answer_lost` instead of running it twice. A key is remembered for 24 hours of the
 * tenant's clock (a test-mode merchant's sandbox clock): after that the same key runs a new
 * request, whether or not the cleanup job has deleted it yet.
 */
export function idempotency(db: Kysely<Database>, clock: Clock, offsets?: SandboxOffsets): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    const auth = req.till.auth;
    if (req.method !== 'POST' || key === undefined || !auth || auth.merchantId === null) return next();
    // An answer that carries a new secret (`x-answer-holds-secret`, e.g. a sandbox merchant's keys) is
    // never stored, so its Idempotency-Key is not honoured: the contract says so.
    if ((req.till.route!.operation as { 'x-answer-holds-secret'?: boolean })['x-answer-holds-secret']) return next();
    try {
      const tenant: Tenant = { merchantId: auth.merchantId, livemode: auth.livemode };
      const requestHash = createHash('sha256')
        .update(canonical({ operation: req.till.route!.operationId, params: req.till.params, session: auth.sessionId, body: (req.body as unknown) ?? null }))
        .digest('hex');
      const now = (await tenantClock(db, clock, tenant, offsets)).now();
      const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_RETENTION_HOURS * 3600 * 1000);
      if (!(await claimKey(db, tenant, key, requestHash, now)) && !(await reclaimExpiredKey(db, tenant, key, requestHash, now, expiredBefore))) {
        const row = await findKey(db, tenant, key);
        if (!row) return next(new AppError('idempotency_request_in_progress'));
        if (row.request_hash !== requestHash) throw new AppError('idempotency_key_reused', { param: 'Idempotency-Key' });
        if (row.state === 'done') return replay(res, row);
        const staleBefore = new Date(now.getTime() - STALE_CLAIM_SECONDS * 1000);
        // Committed and never answered (the answer could not be stored): never run it again.
        if (row.state === 'committed' && row.locked_at < staleBefore) throw new AppError('idempotency_answer_lost', { param: 'Idempotency-Key' });
        if (!(await takeOverStaleKey(db, tenant, key, now, staleBefore))) throw new AppError('idempotency_request_in_progress');
      }
      // Every transaction of the request marks the key as it commits (see commit-hook.ts).
      req.till.beforeCommit = (trx) => markKeyCommitted(trx, tenant, key);
      storeBeforeSending(res, db, tenant, key);
      next();
    } catch (err) {
      next(err);
    }
  };
}

function replay(res: Response, row: { response_status: number | null; response_headers: Record<string, string> | null; response_body: string | null }) {
  for (const [name, value] of Object.entries(row.response_headers ?? {})) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(row.response_status ?? 200).send(row.response_body ?? '');
}

/** Wraps `res.send` so the answer is stored (or the claim released) before it leaves. */
function storeBeforeSending(res: Response, db: Kysely<Database>, tenant: Tenant, key: string) {
  const send = res.send.bind(res);
  let done = false;
  res.send = ((body?: unknown) => {
    if (done) return send(body as any);
    done = true;
    const status = res.statusCode;
    const text = body === undefined ? '' : typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    // A 502 is the processor refusing (processing_error, refund_failed, hold_operation_failed): the
    // request committed at most the record of that attempt, and retrying the same call is the
    // documented way on. Any other 5xx after a commit keeps the key, so nothing runs twice.
    const store =
      status >= 500 ? releaseKey(db, tenant, key, { evenCommitted: status === 502 }) : storeResponse(db, tenant, key, { status, headers, body: text });
    store.then(
      () => send(body as any),
      (err: unknown) => {
        res.req.till.log.error({ err }, 'could not store the idempotent response');
        send(body as any);
      },
    );
    return res;
  }) as Response['send'];
}

/** Deletes keys older than the retention period. Run by the `idempotency-cleanup` job. */
export async function deleteExpiredIdempotencyKeys(db: Kysely<Database>, clock: Clock): Promise<number> {
  return deleteKeysBefore(db, new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_HOURS * 3600 * 1000));
}
