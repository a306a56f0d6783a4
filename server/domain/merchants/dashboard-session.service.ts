// Sessions of the merchant dashboard: a browser signs in with a secret or restricted key, and the
// server answers a random token for a cookie. The key is never kept by the browser, nor here: the
// session keeps the key's row id (one per mode, for the test/live toggle) and the token's hash.
// A session lasts 12 hours from its sign-in, in real time (never a sandbox clock).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import type { Tenant } from '../../shared/tenant.js';
import { parseKeyPrefix } from './keys.js';
import { findActiveKey } from './merchant.service.js';
import {
  deleteDashboardSession,
  deleteEndedDashboardSessions,
  findDashboardSession,
  insertDashboardSession,
  type SessionKey,
  updateDashboardSession,
} from './dashboard-session.repository.js';

export type { SessionKey };

/** How long a dashboard session lasts from its sign-in. */
export const DASHBOARD_SESSION_HOURS = 12;

/** An open dashboard session, as a page sees it. */
export interface DashboardAccess {
  tenant: Tenant;
  /** The key the shown mode is signed in with: a secret key holds every scope (`scopes` null). */
  key: SessionKey;
  /** Which modes this session is signed in to. */
  modes: { test: boolean; live: boolean };
  expiresAt: Date;
  /** The session as the audit log names it: `ds_` and the start of its token's hash (never the token). */
  sessionRef: string;
}

/** A sign-in's answer: the new (or extended) session's token, for the cookie; or why not. */
export type SignIn = { ok: true; token: string; expiresAt: Date } | { ok: false; reason: 'invalid_key' | 'other_merchant' };

/**
 * Signs in with a key. Only a secret (`sk_`) or restricted (`rk_`) key that is not revoked opens
 * a session. With the token of a session of the same merchant, the key is added to it for its
 * mode (the other mode stays signed in) and the session shows that mode.
 */
export async function signInToDashboard(db: Kysely<Database>, clock: Clock, presented: string, currentToken?: string): Promise<SignIn> {
  const kind = parseKeyPrefix(presented)?.kind;
  const key = kind === 'secret' || kind === 'restricted' ? await findActiveKey(db, presented) : undefined;
  if (!key || (key.kind !== 'secret' && key.kind !== 'restricted')) return { ok: false, reason: 'invalid_key' };
  const now = clock.now();
  const modeColumn = key.livemode ? 'live_key_id' : 'test_key_id';
  if (currentToken) {
    const current = await findDashboardSession(db, hashSecret(currentToken), now);
    if (current && current.row.merchant_id !== key.merchantId) return { ok: false, reason: 'other_merchant' };
    if (current) {
      await updateDashboardSession(db, current.row.token_hash, { [modeColumn]: key.keyId, livemode: key.livemode });
      return { ok: true, token: currentToken, expiresAt: current.row.expires_at };
    }
  }
  await deleteEndedDashboardSessions(db, now);
  const token = randomToken(43);
  const expiresAt = new Date(now.getTime() + DASHBOARD_SESSION_HOURS * 3_600_000);
  await insertDashboardSession(db, {
    token_hash: hashSecret(token),
    merchant_id: key.merchantId,
    test_key_id: key.livemode ? null : key.keyId,
    live_key_id: key.livemode ? key.keyId : null,
    livemode: key.livemode,
    created_at: now,
    expires_at: expiresAt,
  });
  return { ok: true, token, expiresAt };
}

/** The session of a token, in the mode it shows; undefined when there is none, it ended, or its key of that mode was revoked. */
export async function openDashboardSession(db: Kysely<Database>, clock: Clock, token: string): Promise<DashboardAccess | undefined> {
  const found = await findDashboardSession(db, hashSecret(token), clock.now());
  if (!found) return undefined;
  const key = found.row.livemode ? found.live : found.test;
  if (!key) return undefined;
  return {
    tenant: { merchantId: found.row.merchant_id, livemode: found.row.livemode },
    key,
    modes: { test: found.test !== null, live: found.live !== null },
    expiresAt: found.row.expires_at,
    sessionRef: `ds_${found.row.token_hash.slice(0, 16)}`,
  };
}

/** Shows the other mode; false when the session has no live key for it (the page then asks for one). */
export async function switchDashboardMode(db: Kysely<Database>, clock: Clock, token: string, livemode: boolean): Promise<boolean> {
  const found = await findDashboardSession(db, hashSecret(token), clock.now());
  if (!found || !(livemode ? found.live : found.test)) return false;
  await updateDashboardSession(db, found.row.token_hash, { livemode });
  return true;
}

/** Signs out: the session is gone. */
export async function signOutOfDashboard(db: Kysely<Database>, token: string): Promise<void> {
  await deleteDashboardSession(db, hashSecret(token));
}

/** Whether a session's key holds every one of `scopes` (a secret key holds them all). */
export const keyHolds = (key: SessionKey, scopes: readonly string[]): boolean => key.scopes === null || scopes.every((s) => key.scopes!.includes(s));
